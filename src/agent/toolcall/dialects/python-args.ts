/**
 * Reads a Python-style call `name(key="v", n=2)` / `name({"k": "v"})` / `name("a.py")` at an index: the
 * shared grammar of the python-call, Llama python-tag and tool_code dialects. Values are Python or JSON
 * literals (read by the lenient JSON parser, which knows True/False/None and single quotes).
 */
import { extractBalanced, isPlainObject, parseLenientJson } from "../lenient-json.ts";
import { skipWs } from "../scan-util.ts";

export interface PyCall {
  name: string;
  /** an object, or a lone positional value (a string becomes the tool's main argument) */
  args: Record<string, unknown> | string;
  end: number;
}

const IDENT = /^[A-Za-z_][\w.\-]*/;

export function readPyCall(text: string, i: number): PyCall | undefined {
  const m = IDENT.exec(text.slice(i, i + 80));
  if (!m) return undefined;
  let name = m[0];
  let j = i + name.length;
  if (text[j] !== "(") return undefined;
  name = name.replace(/\.call$/, "");
  j++;
  const kw: Record<string, unknown> = {};
  let positional: unknown;
  let count = 0;
  for (;;) {
    j = skipWs(text, j);
    if (text[j] === ")") return finish(name, kw, positional, count, j + 1);
    if (count > 0) {
      if (text[j] !== ",") return undefined;
      j = skipWs(text, j + 1);
      if (text[j] === ")") return finish(name, kw, positional, count, j + 1);
    }
    const key = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(text.slice(j, j + 80));
    if (key) j += key[0].length;
    else if (count > 0) return undefined; // a positional after the first: not a tool call
    j = skipWs(text, j);
    if (text.startsWith('"""', j) || text.startsWith("'''", j)) {
      const q = text.slice(j, j + 3);
      const close = text.indexOf(q, j + 3);
      if (close < 0) return undefined;
      const v = text.slice(j + 3, close);
      if (key) kw[key[1]!] = v;
      else positional = v;
      j = close + 3;
    } else {
      const r = literal(text, j);
      if (!r) return undefined;
      if (key) kw[key[1]!] = r.value;
      else positional = r.value;
      j = r.end;
    }
    count++;
  }
}

function finish(name: string, kw: Record<string, unknown>, positional: unknown, count: number, end: number): PyCall | undefined {
  if (count === 0) return { name, args: {}, end };
  if (positional === undefined) return { name, args: kw, end };
  if (count !== 1) return undefined;
  if (isPlainObject(positional)) return { name, args: positional, end };
  if (typeof positional === "string") return { name, args: positional, end };
  return undefined;
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "\\": "\\", '"': '"', "'": "'" };

/** A Python/JSON literal at `j`: a quoted string, number, True/False/None, or a balanced list/dict. */
function literal(text: string, j: number): { value: unknown; end: number } | undefined {
  const q = text[j];
  if (q === '"' || q === "'") {
    let s = "";
    for (let k = j + 1; k < text.length; k++) {
      const ch = text[k]!;
      if (ch === "\\") {
        const n = text[k + 1] ?? "";
        s += ESCAPES[n] ?? `\\${n}`;
        k++;
        continue;
      }
      if (ch === q) return { value: s, end: k + 1 };
      if (ch === "\n") return undefined;
      s += ch;
    }
    return undefined;
  }
  if (q === "{" || q === "[") {
    const b = extractBalanced(text, j);
    const r = parseLenientJson(b > 0 ? text.slice(0, b) : text, "loose", j);
    return r.ok ? { value: r.value, end: r.end } : undefined;
  }
  const m = /^(?:-?\d+(?:\.\d+)?|True|False|None|true|false|null)\b/.exec(text.slice(j, j + 40));
  if (!m) return undefined;
  const t = m[0];
  const value = t === "True" || t === "true" ? true : t === "False" || t === "false" ? false : t === "None" || t === "null" ? null : Number(t);
  return { value, end: j + t.length };
}
