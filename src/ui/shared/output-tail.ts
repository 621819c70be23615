/**
 * The bounded tail of a tool's output that a UI keeps (issue 26: live exec output was appended to view state
 * without limit, so 51 MB of output meant 51M chars re-split every frame). Only the last `max` chars are kept,
 * cut at a line start when one falls inside the kept part; what was dropped is counted so the UI can say so.
 * Pure: every call returns a new value, the input is never changed.
 */
import { safeTail } from "../../util/text.ts";

/** 64 KB of text: far more than any preview shows (the last few lines), small enough to re-scan per frame. */
export const OUTPUT_TAIL_CHARS = 64 * 1024;

export interface OutputTail {
  text: string;
  /** Chars no longer kept (they came before `text`). */
  droppedChars: number;
  /** Newlines among the dropped chars: lines that are no longer kept. */
  droppedLines: number;
}

export const EMPTY_TAIL: OutputTail = { text: "", droppedChars: 0, droppedLines: 0 };

/** `prev` followed by `chunk`, bounded to the last `max` chars. */
export function appendTail(prev: OutputTail, chunk: string, max = OUTPUT_TAIL_CHARS): OutputTail {
  if (!chunk) return prev;
  const whole = prev.text.length + chunk.length;
  if (whole <= max) return { ...prev, text: prev.text + chunk };
  // A chunk longer than the bound is cut alone: the (possibly huge) concatenation is never built.
  const kept = cutAtLine(safeTail(chunk.length >= max ? chunk : prev.text + chunk, max));
  const dropped = whole - kept.length;
  const fromPrev = Math.min(dropped, prev.text.length);
  const lines = countNewlines(prev.text, fromPrev) + countNewlines(chunk, dropped - fromPrev);
  return { text: kept, droppedChars: prev.droppedChars + dropped, droppedLines: prev.droppedLines + lines };
}

/** A whole text (a completed result), bounded the same way. */
export function tailOf(text: string, max = OUTPUT_TAIL_CHARS): OutputTail {
  return appendTail(EMPTY_TAIL, text, max);
}

/** Drops a partial first line when a line break leaves most of the tail intact. */
function cutAtLine(s: string): string {
  const nl = s.indexOf("\n");
  return nl >= 0 && nl < s.length / 2 ? s.slice(nl + 1) : s;
}

/** Newlines among the first `n` chars of `s` (a plain scan: output like `yes` has a newline every other char). */
function countNewlines(s: string, n: number): number {
  let count = 0;
  const end = Math.min(n, s.length);
  for (let i = 0; i < end; i++) if (s.charCodeAt(i) === 10) count++;
  return count;
}
