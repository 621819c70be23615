/** The one persistent history of a session. Every change goes to `onChange` (autosave); `replace` may announce it. */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import type { HistoryChange } from "./session-options.ts";

export class SessionHistory {
  private list: Message[];

  constructor(
    initial: readonly Message[],
    private readonly emit: (e: AgentEvent) => void,
    private readonly onChange?: (change: HistoryChange) => void,
  ) {
    this.list = [...initial];
  }

  /** The current array (replace swaps it: read it again after any await). */
  get messages(): Message[] {
    return this.list;
  }

  append(...messages: Message[]): void {
    this.list.push(...messages);
    this.onChange?.({ type: "append", messages });
  }

  /** `announce` re-renders the UI (clear, rewind, compaction); the pipeline's silent repairs do not. */
  replace(messages: Message[], reason: string, announce = true): void {
    this.list = messages;
    this.onChange?.({ type: "replace", messages, reason });
    if (announce) this.emit({ type: "history.replaced", messages });
  }
}
