/** What a UI needs from the core: ops in, events out. `Session` (src/agent/session/session.ts) implements it. */
import type { AgentEvent, Op } from "./events.ts";

export type AgentEventListener = (event: AgentEvent) => void;

export interface SessionLike {
  submit(op: Op): void;
  /** Returns the unsubscribe function. Listeners are called synchronously, in subscription order. */
  subscribe(listener: AgentEventListener): () => void;
}
