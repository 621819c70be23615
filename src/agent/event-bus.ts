/** Synchronous fan-out of AgentEvents. A throwing listener is isolated (logged), never breaks the core. */
import type { AgentEvent } from "../protocol/events.ts";
import type { AgentEventListener } from "../protocol/session-like.ts";

export class EventBus {
  private listeners: AgentEventListener[] = [];
  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  subscribe(listener: AgentEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(event: AgentEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
