/**
 * Streams an answer to a plain-text sink without showing tool-call markup. Models on the text protocol write
 * their calls into the answer (`<tool_call name=… />`, `{"tool_call": …}`, a ```json block); once the message
 * is complete the parser has separated prose from calls (`displayText`), but streamed bytes cannot be taken
 * back. So text is written as it arrives up to the first place a call could begin; from there it is held,
 * and at completion only the rest of the displayed text is written. Nothing shown is ever lost, only delayed.
 */
const TRIGGERS = ["<tool_call", "<function", "```json", "```tool", '{"tool_call"', '{"name"', "@coder"];

export class MarkupHoldback {
  private printed = "";
  private buffer = "";
  private holding = false;

  constructor(private readonly write: (s: string) => void) {}

  /** A text delta of the current message. */
  push(text: string): void {
    if (this.holding) return;
    this.buffer += text;
    const lower = this.buffer.toLowerCase();
    let cut = -1;
    for (const t of TRIGGERS) {
      const i = lower.indexOf(t);
      if (i !== -1 && (cut === -1 || i < cut)) cut = i;
    }
    if (cut !== -1) {
      this.holding = true;
      this.emit(this.buffer.slice(0, cut));
      this.buffer = "";
      return;
    }
    // Keep back a tail that could be the start of a trigger split across deltas.
    const keep = partialTriggerSuffix(lower);
    this.emit(this.buffer.slice(0, this.buffer.length - keep));
    this.buffer = this.buffer.slice(this.buffer.length - keep);
  }

  /** The message is complete: write what is left of the text a person should see; returns what was written in all. */
  complete(shown: string): string {
    if (shown.startsWith(this.printed)) this.emit(shown.slice(this.printed.length));
    const all = this.printed;
    this.printed = "";
    this.buffer = "";
    this.holding = false;
    return all;
  }

  private emit(s: string): void {
    if (!s) return;
    this.printed += s;
    this.write(s);
  }
}

function partialTriggerSuffix(lower: string): number {
  let best = 0;
  for (const t of TRIGGERS) {
    for (let n = Math.min(t.length - 1, lower.length); n > best; n--) {
      if (lower.endsWith(t.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}
