/**
 * The event sequence that redraws a saved session's transcript through the TUI reducer: the recorded view
 * events when there are any (so it looks exactly as it did live), else one `history.replaced` built from the
 * messages (imported files). A turn cut short by a crash gets a closing `turn.completed` so nothing is left
 * "running"; load warnings become notices at the end.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { LoadedSession } from "./session-file.ts";
import { t } from "../i18n/i18n.ts";

const ZERO = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };

/**
 * `contextWindow` / `contextTokens`: the live session's figures. The recorded `turn.completed` events carry the
 * meter as it was then (another model's window, a history since rewound); the redrawn screen shows today's.
 */
export function transcriptEvents(s: LoadedSession, opts: { contextWindow?: number; contextTokens?: number } = {}): AgentEvent[] {
  const recorded: AgentEvent[] = s.viewEvents.length ? [...s.viewEvents] : s.history.length ? [{ type: "history.replaced", messages: s.history }] : [];
  const out = recorded.map((e): AgentEvent => {
    if (e.type === "turn.completed") {
      return { ...e, ...(opts.contextWindow ? { contextWindow: opts.contextWindow } : {}), ...(opts.contextTokens !== undefined ? { contextTokens: opts.contextTokens } : {}) };
    }
    if (e.type === "model.changed" && opts.contextWindow) return { ...e, contextWindow: opts.contextWindow };
    return e;
  });
  let open: string | undefined;
  for (const e of out) {
    if (e.type === "turn.started") open = e.turnId;
    else if (e.type === "turn.completed") open = undefined;
  }
  if (open !== undefined) {
    out.push({ type: "notice", level: "warn", text: t("core.unfinishedTurn") });
    out.push({ type: "turn.completed", turnId: open, stopReason: "interrupted", usage: ZERO, totalUsage: ZERO, contextTokens: opts.contextTokens ?? 0, contextWindow: opts.contextWindow ?? 0 });
  }
  for (const w of s.warnings) out.push({ type: "notice", level: "warn", text: w });
  return out;
}

/** A SessionLike whose subscribers first receive `events` (the resumed transcript), then the live session. */
export function withReplay<S extends { subscribe(l: (e: AgentEvent) => void): () => void; submit(op: never): void }>(session: S, events: AgentEvent[]): S {
  return new Proxy(session, {
    get(target, prop, receiver) {
      if (prop === "subscribe") {
        return (l: (e: AgentEvent) => void) => {
          for (const e of events) l(e);
          return target.subscribe(l);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
