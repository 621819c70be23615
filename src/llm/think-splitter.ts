/**
 * Splits a streamed answer into thinking and answer text when the model inlines its reasoning as
 * `<think>…</think>` or `<thinking>…</thinking>` (LM Studio, llama.cpp, vLLM, OpenRouter, Ollama and friends
 * stream it in `content`). Contract:
 * - tags are matched case-insensitively and may be split across chunks: a suffix that could still become a tag
 *   is held back until the next chunk (or `end()`) decides it;
 * - a block is closed only by its own closing tag; text before an opening tag stays answer text;
 * - a closing tag with no opening one (a chat template that put `<think>` in the prompt) is dropped: tag text
 *   never reaches the answer, though what streamed before it stays answer text (it was already shown);
 * - a tag inside Markdown code (a fenced block or an inline backtick span) is answer text: an agent
 *   asked about think tags must be able to write one;
 * - an unclosed block at the end of the stream is thinking.
 */
export interface SplitPiece {
  kind: "text" | "thinking";
  text: string;
}

const PAIRS: Array<[open: string, close: string]> = [
  ["<think>", "</think>"],
  ["<thinking>", "</thinking>"],
];
const OPEN = PAIRS.map((p) => p[0]);
const CLOSE = PAIRS.map((p) => p[1]);
const ANY = [...OPEN, ...CLOSE];

export class ThinkSplitter {
  private buffer = "";
  /** The closing tag of the block we are in; null outside thinking. */
  private closeTag: string | null = null;
  /** Markdown code state of the answer text emitted so far. */
  private code = { fence: false, lineTicks: 0, lineHead: "" };

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
      // Every tag begins with "<": without one there is no tag and nothing to hold back (most chunks).
      if (!this.buffer.includes("<")) {
        this.emit(out, this.buffer);
        this.buffer = "";
        return out;
      }
      const lower = this.buffer.toLowerCase();
      const hit = this.closeTag ? firstOf(lower, [this.closeTag]) : this.firstAnswerTag(lower);
      if (hit) {
        this.emit(out, this.buffer.slice(0, hit.at));
        this.buffer = this.buffer.slice(hit.at + hit.tag.length);
        if (this.closeTag) this.closeTag = null;
        else if (OPEN.includes(hit.tag)) this.closeTag = PAIRS.find((p) => p[0] === hit.tag)?.[1] ?? null;
        // else: an orphan closing tag, dropped.
        continue;
      }
      const tags = this.closeTag ? [this.closeTag] : ANY;
      const keep = final ? 0 : partialTagSuffix(lower, tags);
      this.emit(out, this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return out;
    }
  }

  /** The first opening tag, or closing tag (an orphan), outside Markdown code. */
  private firstAnswerTag(lower: string): { at: number; tag: string } | null {
    for (let from = 0; ; ) {
      const hit = firstOf(lower, ANY, from);
      if (!hit || !inCode(this.code, this.buffer.slice(0, hit.at))) return hit;
      from = hit.at + 1;
    }
  }

  private emit(out: SplitPiece[], text: string): void {
    if (!text) return;
    const kind = this.closeTag ? "thinking" : "text";
    if (kind === "text") this.code = advanceCode(this.code, text);
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  }
}

interface CodeState {
  fence: boolean;
  /** Backticks on the current line (odd: inside an inline code span). */
  lineTicks: number;
  /** The current line's first characters, enough to recognise a fence. */
  lineHead: string;
}

function advanceCode(s: CodeState, text: string): CodeState {
  let { fence, lineTicks, lineHead } = s;
  for (const ch of text) {
    if (ch === "\n") {
      if (/^\s*(```|~~~)/.test(lineHead)) fence = !fence;
      lineTicks = 0;
      lineHead = "";
      continue;
    }
    if (ch === "`") lineTicks++;
    if (lineHead.length < 16) lineHead += ch;
  }
  return { fence, lineTicks, lineHead };
}

function inCode(s: CodeState, before: string): boolean {
  const after = advanceCode(s, before);
  return after.fence || after.lineTicks % 2 === 1 || /^\s*(```|~~~)/.test(after.lineHead);
}

function firstOf(lower: string, tags: string[], from = 0): { at: number; tag: string } | null {
  let best: { at: number; tag: string } | null = null;
  for (const tag of tags) {
    const at = lower.indexOf(tag, from);
    if (at >= 0 && (!best || at < best.at)) best = { at, tag };
  }
  return best;
}

function partialTagSuffix(lower: string, tags: string[]): number {
  // Every tag starts with its only "<", so only the tail from the last "<" can still grow into one.
  const from = lower.lastIndexOf("<");
  if (from < 0) return 0;
  const tail = lower.slice(from);
  return tags.some((t) => t.length > tail.length && t.startsWith(tail)) ? tail.length : 0;
}
