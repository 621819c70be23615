/** Type-ahead input typed while a run (or a compaction) is busy: FIFO, at most MAX_QUEUE, announced as `queue.updated`. */
import type { AgentEvent } from "../protocol/events.ts";
import { t } from "../i18n/i18n.ts";

export const MAX_QUEUE = 10;

export class TypeAheadQueue {
  private readonly items: string[] = [];

  constructor(private readonly emit: (e: AgentEvent) => void) {}

  get length(): number {
    return this.items.length;
  }

  /** Queues `text`; a full queue refuses it with a warning notice. */
  push(text: string): void {
    if (this.items.length >= MAX_QUEUE) {
      this.emit({ type: "notice", level: "warn", text: t("core.queueFull", { max: MAX_QUEUE }) });
      return;
    }
    this.items.push(text);
    this.emit({ type: "queue.updated", items: [...this.items] });
  }

  /** `remove_queued`: an index past the end is ignored. */
  remove(index: number): void {
    if (index < this.items.length) {
      this.items.splice(index, 1);
      this.emit({ type: "queue.updated", items: [...this.items] });
    }
  }

  /** Everything queued as one input (joined with newlines); the queue is left empty. */
  take(): string {
    const joined = this.items.splice(0, this.items.length).join("\n");
    this.emit({ type: "queue.updated", items: [] });
    return joined;
  }
}
