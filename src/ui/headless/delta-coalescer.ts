/**
 * stream-json merges the answer deltas of one message that arrive close together (within MAX_WAIT_MS) into one
 * line. How an answer is cut into deltas means nothing, and a line per token costs more in its envelope than in
 * its text: merging keeps the output within a small multiple of the answer. Text and thinking are never merged
 * into one delta (their order would be lost); any other event first flushes what is held, so the order of
 * lines is the order of events.
 */
import type { AgentEvent } from "../../protocol/events.ts";

type Delta = Extract<AgentEvent, { type: "message.delta" }>;

export const MAX_WAIT_MS = 30;
/** A held delta is written once it reaches this many characters, so no line grows without bound. */
export const MAX_HELD_CHARS = 64 * 1024;

export class DeltaCoalescer {
  private held: { messageId: string; kind: "text" | "thinking"; parts: string[]; chars: number } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly write: (e: AgentEvent) => void) {}

  push(e: AgentEvent): void {
    if (e.type !== "message.delta") {
      this.flush();
      this.write(e);
      return;
    }
    for (const [kind, piece] of pieces(e)) this.hold(e.messageId, kind, piece);
  }

  /** Writes what is held (call before the output ends). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const h = this.held;
    if (!h) return;
    this.held = null;
    this.write({ type: "message.delta", messageId: h.messageId, [h.kind]: h.parts.join("") });
  }

  private hold(messageId: string, kind: "text" | "thinking", piece: string): void {
    if (this.held && (this.held.messageId !== messageId || this.held.kind !== kind)) this.flush();
    this.held ??= { messageId, kind, parts: [], chars: 0 };
    this.held.parts.push(piece);
    this.held.chars += piece.length;
    if (this.held.chars >= MAX_HELD_CHARS) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), MAX_WAIT_MS);
  }
}

/** A delta's pieces in the order the loop produced them (it never sends both; thinking first if it did). */
function pieces(e: Delta): Array<["text" | "thinking", string]> {
  const out: Array<["text" | "thinking", string]> = [];
  if (e.thinking) out.push(["thinking", e.thinking]);
  if (e.text) out.push(["text", e.text]);
  return out;
}
