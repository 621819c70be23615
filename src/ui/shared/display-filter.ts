/**
 * Rewrites the answer stream a person sees so text-protocol tool-call markup never shows: message deltas are
 * passed through a MarkupHoldback per message (text up to where a call could begin streams live; the rest is
 * held), and a completed message's content becomes its `displayText` (prose with the calls removed). The
 * history and stream-json keep the raw text; only what the transcript renders changes. Pure apart from its
 * own per-message state; events of other types pass through untouched.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { MarkupHoldback } from "./markup-holdback.ts";

export class DisplayFilter {
  private messageId: string | null = null;
  private shown = "";
  private pending = "";
  private readonly holdback = new MarkupHoldback((s) => {
    this.pending += s;
  });

  /**
   * The events to render for one core event: none when nothing visible changed; for a completed message, a
   * last delta with the held-back rest of the displayed text (so delta-only consumers print it) and then the
   * completion whose content is the displayed text.
   */
  apply(e: AgentEvent): AgentEvent[] {
    if (e.type === "message.delta") {
      if (e.messageId !== this.messageId) this.reset(e.messageId);
      if (e.text === undefined) return [e];
      this.holdback.push(e.text);
      const text = this.take();
      if (!text && e.thinking === undefined) return [];
      const out: AgentEvent = { type: "message.delta", messageId: e.messageId };
      if (text) out.text = text;
      if (e.thinking !== undefined) out.thinking = e.thinking;
      return [out];
    }
    if (e.type === "message.completed" && e.message.role === "assistant") {
      const display = e.displayText ?? e.message.content;
      const out: AgentEvent[] = [];
      if (e.messageId === this.messageId) {
        this.holdback.complete(display);
        const rest = this.take();
        if (rest) out.push({ type: "message.delta", messageId: e.messageId, text: rest });
      }
      this.messageId = null;
      this.pending = "";
      this.shown = "";
      out.push(display === e.message.content ? e : { ...e, message: { ...e.message, content: display } });
      return out;
    }
    return [e];
  }

  private take(): string {
    const t = this.pending;
    this.pending = "";
    this.shown += t;
    return t;
  }

  /** A new message began without the previous one completing (interrupted stream): drop its held state. */
  private reset(id: string | null): void {
    if (this.messageId !== null) this.holdback.complete(this.shown);
    this.pending = "";
    this.shown = "";
    this.messageId = id;
  }
}
