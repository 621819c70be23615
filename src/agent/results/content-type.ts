/**
 * Coarse content-type guess for the one-line stub of a cleared tool result, following the design notes' table
 * (JSON, Go, Python, JavaScript, diff, git log, text).
 *
 * Surprise worth knowing: the prefix rules (JSON, diff, git log) are checked before the "contains" rules,
 * because a diff or a `git log -p` of Go code also contains `package ` and is better described by its shape.
 * The "contains" rules only look at the start of the text (CONTAINS_WINDOW chars): a keyword deep inside
 * prose says little about what the output is.
 */
import { safeHead } from "../../util/text.ts";

export type ContentType = "JSON" | "diff" | "git log" | "Go source" | "Python source" | "JavaScript source" | "text";

const CONTAINS_WINDOW = 1000;

// `read` prints `<n>\t<text>` lines (the number right-aligned): the gutter is not the file's content, and
// left in place it hides every "starts with" rule (a JSON file read back would be "text").
const READ_GUTTER = /^ *\d+\t/;

function withoutReadGutter(content: string): string {
  const head = safeHead(content, CONTAINS_WINDOW);
  if (!READ_GUTTER.test(head)) return content;
  return head
    .split("\n")
    .map((l) => l.replace(READ_GUTTER, ""))
    .join("\n");
}

export function detectContentType(content: string): ContentType {
  const t = withoutReadGutter(content).trimStart();
  if (t.startsWith("{") || t.startsWith("[")) return "JSON";
  if (t.startsWith("diff ") || t.startsWith("--- ")) return "diff";
  if (t.startsWith("commit ")) return "git log";
  const head = safeHead(t, CONTAINS_WINDOW);
  if (head.includes("package ")) return "Go source";
  if (head.includes("def ")) return "Python source";
  if (head.includes("function ")) return "JavaScript source";
  return "text";
}

/** Line count as a reader sees it: a trailing newline does not open a new line. */
export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 1;
  let i = s.indexOf("\n");
  while (i !== -1) {
    if (i !== s.length - 1) n++;
    i = s.indexOf("\n", i + 1);
  }
  return n;
}

/** Compact size for stubs and UI lines: `850`, `28K`, `1.4M`. */
export function formatChars(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 1000)}K`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}
