/**
 * Type-ahead input typed while the session is busy: FIFO, at most MAX_QUEUE, announced as `queue.updated`.
 * An interrupt pauses a non-empty queue: it then waits for the user (`send_queued`, the next prompt, or
 * `remove_queued` until it is empty) instead of starting the agent again.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";

export const MAX_QUEUE = 10;

export class TypeAheadQueue {
  private readonly items: string[] = [];
  private held = false;

  constructor(private readonly emit: (e: AgentEvent) => void) {}

  get length(): number {
    return this.items.length;
  }

  /** True while an interrupt holds the queue back. */
  get paused(): boolean {
    return this.held;
  }

  /** Queues `text`; a full queue refuses it with a warning notice (false). */
  push(text: string): boolean {
    if (this.items.length >= MAX_QUEUE) {
      this.emit({ type: "notice", level: "warn", text: t("core.queueFull", { max: MAX_QUEUE }) });
      return false;
    }
    this.items.push(text);
    this.announce();
    return true;
  }

  /** `remove_queued`: an index past the end is ignored. */
  remove(index: number): void {
    if (index >= this.items.length) return;
    this.items.splice(index, 1);
    if (!this.items.length) this.held = false;
    this.announce();
  }

  /** Interrupt: hold what is queued (an empty queue stays unpaused). */
  pause(): void {
    if (!this.items.length || this.held) return;
    this.held = true;
    this.announce();
  }

  /** `send_queued` while a task still runs: the queue goes out when it ends. */
  resume(): void {
    if (!this.held) return;
    this.held = false;
    this.announce();
  }

  /** Everything queued as one input (joined with newlines); the queue is left empty and unpaused. */
  take(): string {
    const joined = this.items.splice(0, this.items.length).join("\n");
    this.held = false;
    this.announce();
    return joined;
  }

  private announce(): void {
    this.emit({ type: "queue.updated", items: [...this.items], ...(this.held ? { paused: true } : {}) });
  }
}
