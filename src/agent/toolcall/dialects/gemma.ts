/**
 * FunctionGemma: `<start_function_call>call:read{path:<escape>a.py<escape>,limit:20}<end_function_call>`.
 * Strings sit between `<escape>` tokens; other values are bare numbers/booleans, nested `{…}` or `[…]`.
 */
import type { Dialect } from "./dialect.ts";

const OPEN = "<start_function_call>";
const CLOSE = "<end_function_call>";
const ESC = "<escape>";

interface R {
  v: unknown;
  j: number;
}

function skip(s: string, j: number): number {
  while (j < s.length && /\s/.test(s[j]!)) j++;
  return j;
}

function value(s: string, j: number): R | undefined {
  j = skip(s, j);
  if (s.startsWith(ESC, j)) {
    const k = s.indexOf(ESC, j + ESC.length);
    if (k < 0) return undefined;
    return { v: s.slice(j + ESC.length, k), j: k + ESC.length };
  }
  if (s[j] === "{") return object(s, j);
  if (s[j] === "[") {
    const out: unknown[] = [];
    j = skip(s, j + 1);
    while (s[j] !== "]") {
      const r = value(s, j);
      if (!r) return undefined;
      out.push(r.v);
      j = skip(s, r.j);
      if (s[j] === ",") j = skip(s, j + 1);
      else if (s[j] !== "]") return undefined;
    }
    return { v: out, j: j + 1 };
  }
  const m = /^[^,}\]]+/.exec(s.slice(j));
  if (!m) return undefined;
  const t = m[0].trim();
  const v = t === "true" ? true : t === "false" ? false : t === "null" ? null : /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
  return { v, j: j + m[0].length };
}

function object(s: string, j: number): R | undefined {
  const out: Record<string, unknown> = {};
  j = skip(s, j + 1);
  while (s[j] !== "}") {
    const k = /^\s*([\w.\-]+)\s*:/.exec(s.slice(j));
    if (!k) return undefined;
    const r = value(s, j + k[0].length);
    if (!r) return undefined;
    out[k[1]!] = r.v;
    j = skip(s, r.j);
    if (s[j] === ",") j = skip(s, j + 1);
    else if (s[j] !== "}") return undefined;
  }
  return { v: out, j: j + 1 };
}

export const gemma: Dialect = {
  id: "gemma",
  triggers: [OPEN, CLOSE],
  starts: (text, i) => text[i] === "<" && (text.startsWith(OPEN, i) || text.startsWith(CLOSE, i)),
  scan(text, i) {
    if (text.startsWith(CLOSE, i)) return { end: i + CLOSE.length, candidates: [], errors: [] };
    const m = /^call:\s*([A-Za-z_][\w.\-]*)\s*/.exec(text.slice(i + OPEN.length, i + OPEN.length + 100));
    if (!m) return undefined;
    const at = i + OPEN.length + m[0].length;
    const close = text.indexOf(CLOSE, at);
    const end = close < 0 ? text.length : close + CLOSE.length;
    const raw = text.slice(i, end);
    if (text[at] !== "{") return { end, candidates: [{ name: m[1]!, args: { kind: "none" }, raw, repaired: close < 0 }], errors: [] };
    const o = object(text.slice(0, close < 0 ? text.length : close), at);
    if (!o) return { end, candidates: [], errors: [`A Gemma function call's arguments could not be read: ${raw.slice(0, 120)}`] };
    return { end, candidates: [{ name: m[1]!, args: { kind: "value", value: o.v }, raw, repaired: close < 0 }], errors: [] };
  },
};
