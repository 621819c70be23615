/**
 * Splits a streamed answer into thinking and answer text when the model inlines its reasoning as
 * `<think>…</think>` (or `<thinking>…</thinking>`). Tags may be split across chunks: a partial tag is held
 * back until the next chunk decides it. Text outside tags is answer text.
 */
export interface SplitPiece {
  kind: "text" | "thinking";
  text: string;
}

const OPEN = ["<think>", "<thinking>"];
const CLOSE = ["</think>", "</thinking>"];

export class ThinkSplitter {
  private buffer = "";
  private inThink = false;

  push(chunk: string): SplitPiece[] {
    this.buffer += chunk;
    return this.drain(false);
  }

  /** Flush whatever is held back (end of stream). */
  end(): SplitPiece[] {
    return this.drain(true);
  }

  private drain(final: boolean): SplitPiece[] {
    const out: SplitPiece[] = [];
    for (;;) {
      const tags = this.inThink ? CLOSE : OPEN;
      const lower = this.buffer.toLowerCase();
      let at = -1;
      let tagLen = 0;
      for (const t of tags) {
        const i = lower.indexOf(t);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
          tagLen = t.length;
        }
      }
      if (at >= 0) {
        this.emit(out, this.buffer.slice(0, at));
        this.buffer = this.buffer.slice(at + tagLen);
        this.inThink = !this.inThink;
        continue;
      }
      // No complete tag: keep back a suffix that could still become one.
      const keep = final ? 0 : partialTagSuffix(lower, tags);
      this.emit(out, this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return out;
    }
  }

  private emit(out: SplitPiece[], text: string): void {
    if (!text) return;
    const kind = this.inThink ? "thinking" : "text";
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  }
}

function partialTagSuffix(lower: string, tags: string[]): number {
  let best = 0;
  for (const t of tags) {
    for (let n = Math.min(t.length - 1, lower.length); n > best; n--) {
      if (lower.endsWith(t.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}
