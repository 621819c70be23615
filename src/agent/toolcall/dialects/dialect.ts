/**
 * One tool-call dialect: a recogniser for the markup one model family was trained to write (harmony, Llama's
 * python tag, Cline XML, …). The parser's scan asks the registry (dialects/registry.ts) at every position a
 * dialect's `starts` test accepts; the first dialect that returns a hit consumes its span.
 *
 * Contract: `scan` never throws, returns undefined when the text at `i` is not its markup (so another dialect
 * or the generic scanners may try), and labels nothing itself: the registry stamps `dialect` with `id`.
 */
import type { ScanHit } from "../candidate.ts";
import { extractBalanced, parseLenientJson, tryStrictJson } from "../lenient-json.ts";

export interface Dialect {
  /** Stable id, shown as `recoveredFrom` on stream-json `tool.started`. */
  readonly id: string;
  /**
   * Lower-case strings whose appearance in a streaming answer means this dialect's markup may have begun; the
   * display filter holds text back from the first one.
   */
  readonly triggers: readonly string[];
  /** Cheap test at `i` (`lineStart`: only spaces/tabs before `i` on its line). */
  starts(text: string, i: number, lineStart: boolean): boolean;
  scan(text: string, i: number): ScanHit | undefined;
}

/** Index of the end of the line at `j` when only spaces (or a `;`) are left on it, else -1. */
export function restOfLineBlank(text: string, j: number): number {
  let k = j;
  while (k < text.length && (text[k] === " " || text[k] === "\t" || text[k] === ";" || text[k] === "\r")) k++;
  return k >= text.length || text[k] === "\n" ? k : -1;
}

export { parseLenientJson };

/** The JSON value at `j`: the balanced text parsed strictly, else leniently repaired; undefined when neither works. */
export function jsonValueAt(text: string, j: number): { value: unknown; end: number; repaired: boolean } | undefined {
  const b = extractBalanced(text, j);
  if (b > 0) {
    const s = tryStrictJson(text.slice(j, b));
    if (s.ok) return { value: s.value, end: b, repaired: false };
  }
  const r = parseLenientJson(text, "loose", j);
  return r.ok ? { value: r.value, end: r.end, repaired: true } : undefined;
}
