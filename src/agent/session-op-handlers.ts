/** The Session's ops that run outside a turn: `set_model`, `compact` and `rewind`. Each refuses while busy. */
import type { AgentEvent, Op } from "../protocol/events.ts";
import { t } from "../i18n/i18n.ts";
import type { SessionInternals } from "./session-internals.ts";

export async function onSetModel(s: SessionInternals, provider: string, model: string): Promise<void> {
  if (!s.opts.switchModel) {
    s.emit({ type: "notice", level: "warn", text: t("core.switchUnavailable") });
    return;
  }
  if (s.busy(t("core.what.switchModels"))) return;
  const r = await s.opts.switchModel(provider, model);
  if (typeof r === "string") {
    s.emit({ type: "notice", level: "error", text: r });
    return;
  }
  s.setBinding(r);
  s.emit({ type: "model.changed", provider: r.providerId, model: r.model, contextWindow: r.contextWindow });
}

export async function onCompact(s: SessionInternals, instruction: string | undefined): Promise<void> {
  if (!s.opts.compact) {
    s.emit({ type: "notice", level: "warn", text: t("core.compactUnavailable") });
    return;
  }
  if (s.busy(t("core.what.compact"))) return;
  const controller = new AbortController();
  s.setSideTask(controller);
  try {
    // The level reports ("compaction" events) go out after the swap: history.replaced rebuilds the transcript
    // from the new history, so a report sent before it would vanish from the screen. Progress notices stay live.
    const reports: AgentEvent[] = [];
    const emit = (e: AgentEvent) => (e.type === "compaction" ? reports.push(e) : s.emit(e));
    try {
      const r = await s.opts.compact({ history: s.history, signal: controller.signal, emit, ...(instruction ? { instruction } : {}) });
      if (r && r !== s.history) s.replaceHistory(r, "compaction");
    } finally {
      for (const e of reports) s.emit(e);
    }
  } catch (err) {
    s.emit({ type: "notice", level: "error", text: t("core.compactFailed", { error: (err as Error)?.message ?? String(err) }) });
  } finally {
    s.setSideTask(undefined);
  }
}

export async function onRewind(s: SessionInternals, op: Extract<Op, { type: "rewind" }>): Promise<void> {
  if (!s.opts.rewind) {
    s.emit({ type: "notice", level: "warn", text: t("core.rewindUnavailable") });
    return;
  }
  if (s.busy(t("core.what.rewind"))) return;
  try {
    const r = await s.opts.rewind(op, s.history);
    if (typeof r === "string") {
      s.emit({ type: "notice", level: "warn", text: r });
      return;
    }
    if (r.history) s.replaceHistory(r.history, "rewind");
    s.emit({ type: "rewound", checkpointId: op.checkpointId, mode: op.mode, prompt: r.prompt });
  } catch (err) {
    s.emit({ type: "notice", level: "error", text: t("core.rewindFailed", { error: (err as Error)?.message ?? String(err) }) });
  }
}
