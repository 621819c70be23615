/**
 * Wraps a session for the TUI so provider `error` events carry the explanation a person can act on (where it
 * looked, how to start Ollama, which models exist) instead of the transport's raw message — the same text
 * headless mode prints. Everything else passes through.
 */
import type { AgentEvent, Op } from "../protocol/events.ts";
import type { AgentEventListener, SessionLike } from "../protocol/session-like.ts";
import type { LlmError } from "../protocol/llm.ts";

export function describingErrors(session: SessionLike, describe: (e: LlmError) => string): SessionLike {
  return {
    submit: (op: Op) => session.submit(op),
    subscribe: (listener: AgentEventListener) =>
      session.subscribe((e: AgentEvent) => listener(e.type === "error" && e.error ? { ...e, message: describe(e.error) } : e)),
  };
}
