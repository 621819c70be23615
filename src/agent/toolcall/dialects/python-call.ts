/**
 * Python-style calls on a line of their own: `read(path="a.py")`, `read({"path": "a.py"})`,
 * `[read(path="a"), exec(command="ls")]` (BFCL's and Gemma's tool_code form). Only names of our tools and
 * their aliases count, only at the start of a line, and only when nothing but the call is on the line, so
 * "I would call read(path=…) but…" and code in prose stay text.
 */
import type { Candidate } from "../candidate.ts";
import type { Dialect } from "./dialect.ts";
import { restOfLineBlank } from "./dialect.ts";
import { readPyCall, type PyCall } from "./python-args.ts";
import { isBareCallName, looksLikeArgsOf } from "./known-names.ts";
import { skipWs } from "../scan-util.ts";

function toCandidate(c: PyCall, raw: string): Candidate {
  return { name: c.name, args: typeof c.args === "string" ? { kind: "value", value: c.args } : { kind: "value", value: c.args }, raw, repaired: false };
}

export function readPyCallList(text: string, i: number): { calls: PyCall[]; end: number } | undefined {
  if (text[i] !== "[") {
    const c = readPyCall(text, i);
    return c ? { calls: [c], end: c.end } : undefined;
  }
  const calls: PyCall[] = [];
  let j = skipWs(text, i + 1);
  for (;;) {
    const c = readPyCall(text, j);
    if (!c) return undefined;
    calls.push(c);
    j = skipWs(text, c.end);
    if (text[j] === "]") return { calls, end: j + 1 };
    if (text[j] !== ",") return undefined;
    j = skipWs(text, j + 1);
  }
}

export const pythonCall: Dialect = {
  id: "python-call",
  triggers: [],
  starts: (text, i, lineStart) => lineStart && /[A-Za-z_[]/.test(text[i] ?? ""),
  scan(text, i) {
    const r = readPyCallList(text, i);
    const bare = (c: PyCall) => c.name.replace(/^functions\./, "");
    if (!r || !r.calls.every((c) => isBareCallName(bare(c)))) return undefined;
    // keyword arguments must be the tool's: `search(x=1)` is code, not a call
    if (!r.calls.every((c) => typeof c.args === "string" || Object.keys(c.args).length === 0 || looksLikeArgsOf(bare(c), c.args))) return undefined;
    if (restOfLineBlank(text, r.end) < 0) return undefined;
    const raw = text.slice(i, r.end);
    return { end: r.end, candidates: r.calls.map((c) => toCandidate(c, raw)), errors: [] };
  },
};
