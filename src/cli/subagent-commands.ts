/**
 * `/agents` (issue 20): the session's subagents — running and finished, those of a resumed session too (folded
 * from its recorded `subagent.*` events) — and `/agents cancel ID` to stop one child alone. Wraps another
 * handler (the daily commands) so main.ts chains it with one call.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { SubagentRuntime } from "../agent/subagents/subagent-runtime.ts";
import { foldSubagent, subagentLine, type SubagentRow } from "../ui/shared/subagent-view.ts";
import { t } from "../i18n/i18n.ts";
import type { SlashHandler } from "./slash-commands.ts";
import type { Message } from "../protocol/message.ts";
import type { SubagentTranscript } from "../store/session-file.ts";
import type { PickerFlow } from "../ui/tui/tui-app-options.ts";
import { subagentPickerFlow } from "./subagent-picker.ts";

export function withSubagentCommands(
  inner: SlashHandler,
  runtime: SubagentRuntime,
  session: { subscribe(l: (e: AgentEvent) => void): () => void },
  recorded: readonly AgentEvent[] = [],
  saved: readonly SubagentTranscript[] = [],
): SlashHandler & { picker(): PickerFlow | undefined } {
  let rows: SubagentRow[] = [];
  // Finished children's transcripts: saved in the session file, or carried by `subagent.completed`.
  const transcripts = new Map<string, readonly Message[]>(saved.map((c) => [c.agentId, c.messages]));
  const observe = (e: AgentEvent) => {
    if (e.type === "subagent.started" || e.type === "subagent.progress" || e.type === "subagent.completed") rows = foldSubagent(rows, e, Date.now());
    if (e.type === "subagent.completed" && e.messages) transcripts.set(e.agentId, e.messages);
  };
  for (const e of recorded) observe(e);
  // A child still "running" in a saved session did not finish before that process ended.
  rows = rows.map((r) => (r.status === "running" ? { ...r, status: "cancelled" } : r));
  session.subscribe(observe);
  return {
    picker: () =>
      subagentPickerFlow({
        rows: () => rows,
        transcript: (id) => runtime.children.find((c) => c.agentId === id && c.endedAt === undefined)?.history ?? transcripts.get(id),
        cancel: (id) => runtime.cancel(id),
      }),
    commands: [...inner.commands, {
      name: "agents",
      get description() {
        return t("cmd.agents");
      },
    }],
    handle(cmd, args) {
      if (cmd !== "agents") return inner.handle(cmd, args);
      const [sub, id] = args.trim().split(/\s+/);
      if (sub === "cancel" && id) return Promise.resolve(runtime.cancel(id) ? t("subagents.cancelled", { id }) : t("subagents.notRunning", { id }));
      if (!rows.length) return Promise.resolve(t("subagents.none"));
      const running = rows.filter((r) => r.status === "running").length;
      const now = Date.now();
      return Promise.resolve([t("subagents.title", { running, total: rows.length }), ...rows.map((r) => `  ${r.status === "running" ? "▸" : r.status === "completed" ? "✓" : "✗"} ${subagentLine(r, now)}`)].join("\n"));
    },
  };
}
