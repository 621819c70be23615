/**
 * Unified diff of two texts, line based (Myers' O(ND) algorithm after trimming the common prefix and suffix).
 * When the edit distance exceeds `maxEditDistance` the changed middle is shown as one replaced block instead —
 * correct, just less minimal — so a rewrite of a huge file cannot stall the tool.
 */
import { safeHead } from "../../util/text.ts";

export interface DiffOptions {
  oldName?: string;
  newName?: string;
  context?: number;
  /** Cap on the diff text; the cut is marked. Default 20,000 chars. */
  maxChars?: number;
  maxEditDistance?: number;
}

export interface DiffResult {
  text: string;
  added: number;
  removed: number;
  truncated: boolean;
}

type Op = { kind: "eq" | "del" | "add"; line: string };

function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Shortest edit script between a and b, or undefined when it needs more than maxD edits. */
function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))) x = v[offset + k + 1] as number;
      else x = (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], offset: number, dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const prevK = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number)) ? k + 1 : k - 1;
    const prevX = v[offset + prevK] as number;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: "eq", line: a[x] as string });
    }
    if (x === prevX) ops.push({ kind: "add", line: b[--y] as string });
    else ops.push({ kind: "del", line: a[--x] as string });
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    ops.push({ kind: "eq", line: a[x] as string });
  }
  return ops.reverse();
}

export function unifiedDiff(oldText: string, newText: string, opts: DiffOptions = {}): DiffResult {
  const a = splitLines(oldText.replace(/\r\n/g, "\n"));
  const b = splitLines(newText.replace(/\r\n/g, "\n"));
  const context = opts.context ?? 3;
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  const mid = myers(midA, midB, opts.maxEditDistance ?? 4000) ?? [
    ...midA.map((line): Op => ({ kind: "del", line })),
    ...midB.map((line): Op => ({ kind: "add", line })),
  ];
  const ops: Op[] = [
    ...a.slice(0, pre).map((line): Op => ({ kind: "eq", line })),
    ...mid,
    ...a.slice(a.length - suf).map((line): Op => ({ kind: "eq", line })),
  ];
  const added = ops.filter((o) => o.kind === "add").length;
  const removed = ops.filter((o) => o.kind === "del").length;
  if (added === 0 && removed === 0) return { text: "", added, removed, truncated: false };

  const out: string[] = [`--- ${opts.oldName ?? "a"}`, `+++ ${opts.newName ?? "b"}`];
  // Group changes into hunks with `context` lines around them.
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]?.kind === "eq") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is within 2*context equal lines.
    for (;;) {
      while (end < ops.length && ops[end]?.kind !== "eq") end++;
      let eqRun = 0;
      while (end + eqRun < ops.length && ops[end + eqRun]?.kind === "eq") eqRun++;
      if (end + eqRun < ops.length && eqRun <= 2 * context) end += eqRun;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    let oldLine = 1;
    let newLine = 1;
    for (let j = 0; j < start; j++) {
      if (ops[j]?.kind !== "add") oldLine++;
      if (ops[j]?.kind !== "del") newLine++;
    }
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((o) => o.kind !== "add").length;
    const newCount = slice.filter((o) => o.kind !== "del").length;
    out.push(`@@ -${oldCount ? oldLine : oldLine - 1},${oldCount} +${newCount ? newLine : newLine - 1},${newCount} @@`);
    for (const o of slice) out.push(`${o.kind === "eq" ? " " : o.kind === "del" ? "-" : "+"}${o.line}`);
    i = end;
  }
  let text = `${out.join("\n")}\n`;
  const maxChars = opts.maxChars ?? 20_000;
  let truncated = false;
  if (text.length > maxChars) {
    text = `${safeHead(text, maxChars)}\n... [diff truncated: ${text.length - maxChars} more chars]\n`;
    truncated = true;
  }
  return { text, added, removed, truncated };
}
