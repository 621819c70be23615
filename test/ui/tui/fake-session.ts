/** A scripted SessionLike for TUI tests: records submitted ops and lets the test emit events. */
import type { AgentEvent, Op } from "../../../src/protocol/events.ts";
import type { AgentEventListener, SessionLike } from "../../../src/protocol/session-like.ts";

export class FakeSession implements SessionLike {
  readonly ops: Op[] = [];
  private listeners: AgentEventListener[] = [];

  submit(op: Op): void {
    this.ops.push(op);
  }

  subscribe(listener: AgentEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(...events: AgentEvent[]): void {
    for (const e of events) for (const l of this.listeners) l(e);
  }

  opsOf<T extends Op["type"]>(type: T): Extract<Op, { type: T }>[] {
    return this.ops.filter((o): o is Extract<Op, { type: T }> => o.type === type);
  }
}

export const zeroUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };

/** Emits a streamed answer as deltas of `chunkSize` chars. */
export function streamAnswer(s: FakeSession, messageId: string, text: string, chunkSize = 7): void {
  for (let i = 0; i < text.length; i += chunkSize) {
    s.emit({ type: "message.delta", messageId, text: text.slice(i, i + chunkSize) });
  }
}

export function turnCompleted(turnId: string, extra: Partial<Extract<AgentEvent, { type: "turn.completed" }>> = {}): AgentEvent {
  return {
    type: "turn.completed",
    turnId,
    stopReason: "stop",
    usage: zeroUsage,
    totalUsage: zeroUsage,
    contextTokens: 1200,
    contextWindow: 32000,
    ...extra,
  };
}
