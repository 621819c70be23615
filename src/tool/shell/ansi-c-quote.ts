/**
 * Decoding of bash's `$'…'` quoting. It matters for security: `$'\x72m'` is `rm`, so the permission checks must
 * see the decoded text. `pos` is just after the opening quote; `end` is just after the closing one.
 * Throws ShellSyntaxError when unterminated, RangeError for an invalid code point (parseShell catches both).
 */
import { ShellSyntaxError } from "./shell-syntax-error.ts";

const SIMPLE: Readonly<Record<string, string>> = {
  n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v",
  "\\": "\\", "'": "'", '"': '"', "?": "?",
};

export function decodeAnsiC(s: string, pos: number): { value: string; end: number } {
  let out = "";
  let i = pos;
  for (;;) {
    const c = s[i];
    if (c === undefined) throw new ShellSyntaxError("unterminated $'");
    if (c === "'") return { value: out, end: i + 1 };
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = s[i + 1];
    if (e === undefined) throw new ShellSyntaxError("unterminated $'");
    const mapped = SIMPLE[e];
    if (mapped !== undefined) {
      out += mapped;
      i += 2;
    } else if (e === "x" || e === "u" || e === "U") {
      const max = e === "x" ? 2 : e === "u" ? 4 : 8;
      let j = i + 2;
      while (j < i + 2 + max && /[0-9a-fA-F]/.test(s[j] ?? "")) j++;
      const hex = s.slice(i + 2, j);
      out += hex ? String.fromCodePoint(Number.parseInt(hex, 16)) : "\\" + e;
      i = j;
    } else if (e === "c" && s[i + 2] !== undefined) {
      out += String.fromCharCode((s.charCodeAt(i + 2) & 0x1f) >>> 0);
      i += 3;
    } else if (/[0-7]/.test(e)) {
      let j = i + 1;
      while (j < i + 4 && /[0-7]/.test(s[j] ?? "")) j++;
      out += String.fromCharCode(Number.parseInt(s.slice(i + 1, j), 8));
      i = j;
    } else {
      out += "\\" + e;
      i += 2;
    }
  }
}
