/**
 * A forgiving JSON reader for the broken JSON small models write. It is a real parser (not a chain of regex
 * rewrites), so repairs only ever touch structure: the characters inside a string are kept as written.
 *
 * Two strengths:
 * - "structural" (native arguments): trailing commas, missing closing braces/brackets or quote at the end,
 *   trailing garbage after the value, raw control characters and invalid escapes inside strings.
 * - "loose" (text protocol) adds: single-quoted strings, unquoted keys, Python literals, bare words, missing
 *   commas, and unescaped inner quotes (a quote only closes a string when what follows can follow a string).
 *
 * Never throws. `end` is the index just past the value, so callers can use it as an extractor.
 */

export type LenientMode = "structural" | "loose";

export type LenientResult =
  | { ok: true; value: unknown; repaired: boolean; end: number }
  | { ok: false; error: string };

class Fail {
  constructor(readonly message: string) {}
}

const MAX_DEPTH = 200;

export function parseLenientJson(src: string, mode: LenientMode, start = 0): LenientResult {
  const p = new Parser(src, mode, start);
  try {
    p.skipWs();
    if (p.pos >= src.length) return { ok: false, error: "empty input" };
    const value = p.value(0);
    const end = p.pos;
    p.skipWs();
    if (p.pos < src.length) p.repaired = true; // trailing garbage ignored
    return { ok: true, value, repaired: p.repaired, end };
  } catch (e) {
    if (e instanceof Fail) return { ok: false, error: e.message };
    return { ok: false, error: String(e) };
  }
}

class Parser {
  repaired = false;
  pos: number;
  private readonly loose: boolean;

  constructor(
    private readonly s: string,
    mode: LenientMode,
    start: number,
  ) {
    this.pos = start;
    this.loose = mode === "loose";
  }

  skipWs(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\ufeff") {
        this.pos++;
      } else if (this.loose && c === "\\" && /^\\[ \t]*\r?\n/.test(s.slice(this.pos, this.pos + 40))) {
        // a shell-style line continuation outside strings is whitespace
        this.repaired = true;
        this.pos++;
      } else if (this.loose && c === "/" && s[this.pos + 1] === "/") {
        this.repaired = true;
        while (this.pos < s.length && s[this.pos] !== "\n") this.pos++;
      } else {
        return;
      }
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new Fail("nesting too deep");
    this.skipWs();
    const c = this.s[this.pos];
    if (c === undefined) throw new Fail("unexpected end of input");
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string('"');
    if (c === "'" && this.loose) return this.string("'");
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    return this.word();
  }

  private object(depth: number): Record<string, unknown> {
    const s = this.s;
    const out: Record<string, unknown> = {};
    this.pos++; // {
    let members = 0;
    for (;;) {
      this.skipWs();
      const c = s[this.pos];
      if (c === undefined) {
        this.repaired = true; // truncated: close it
        return out;
      }
      if (c === "}") {
        this.pos++;
        return out;
      }
      if (c === ",") {
        this.repaired = members === 0 || this.repaired;
        this.pos++;
        this.skipWs();
        if (s[this.pos] === "}" || s[this.pos] === ",") this.repaired = true;
        continue;
      }
      const keyStart = this.pos;
      let key: string;
      if (c === '"') key = this.string('"');
      else if (c === "'" && this.loose) key = this.string("'");
      else if (this.loose && /[A-Za-z_$]/.test(c)) key = this.bareKey();
      else if (members > 0) {
        // something that cannot start a key after real members: the closing brace is missing
        this.repaired = true;
        return out;
      } else throw new Fail(`unexpected ${JSON.stringify(c)} where a key was expected`);
      this.skipWs();
      const sep = s[this.pos];
      if (sep === ":" || (this.loose && sep === "=")) {
        this.pos++;
      } else if (sep === undefined) {
        this.repaired = true;
        return out;
      } else if (members > 0) {
        this.pos = keyStart;
        this.repaired = true;
        return out;
      } else throw new Fail(`expected ":" after key ${JSON.stringify(key)}`);
      this.skipWs();
      if (this.pos >= s.length) {
        this.repaired = true;
        return out;
      }
      out[key] = this.value(depth + 1);
      members++;
      this.skipWs();
      const after = s[this.pos];
      if (after === ",") {
        this.pos++;
      } else if (after === "}" || after === undefined) {
        // closed (or truncated) on the next round
      } else if (this.loose) {
        this.repaired = true; // missing comma, or the end of a truncated object; the next round decides
      } else if (after === "]") {
        this.repaired = true; // a bracket where a brace belongs
        this.pos++;
        return out;
      } else {
        this.repaired = true;
        return out;
      }
    }
  }

  private array(depth: number): unknown[] {
    const s = this.s;
    const out: unknown[] = [];
    this.pos++; // [
    for (;;) {
      this.skipWs();
      const c = s[this.pos];
      if (c === undefined) {
        this.repaired = true;
        return out;
      }
      if (c === "]") {
        this.pos++;
        return out;
      }
      if (c === ",") {
        this.pos++;
        this.skipWs();
        if (out.length === 0 || s[this.pos] === "]" || s[this.pos] === ",") this.repaired = true;
        continue;
      }
      if (c === "}") {
        this.repaired = true; // a brace where a bracket belongs: treat as our end
        return out;
      }
      out.push(this.value(depth + 1));
      this.skipWs();
      const after = s[this.pos];
      if (after === ",") this.pos++;
      else if (after !== "]" && after !== undefined) this.repaired = true;
    }
  }

  private bareKey(): string {
    const s = this.s;
    const start = this.pos;
    while (this.pos < s.length && /[\w$\-.]/.test(s[this.pos]!)) this.pos++;
    this.repaired = true;
    return s.slice(start, this.pos);
  }

  /** In loose mode a quote closes the string only when what follows could follow a string. */
  private closesHere(q: string): boolean {
    if (!this.loose) return true;
    const s = this.s;
    let j = this.pos + 1;
    while (j < s.length && (s[j] === " " || s[j] === "\t" || s[j] === "\r" || s[j] === "\n")) j++;
    const n = s[j];
    if (n === undefined || n === "," || n === "}" || n === "]" || n === ":") return true;
    // `"a" "b"`-style missing comma is rarer than an inner quote, except for a quote that starts a new key
    if (n === q) {
      const rest = s.slice(j, j + 200);
      return q === '"' ? /^"[^"\n]*"\s*:/.test(rest) : /^'[^'\n]*'\s*:/.test(rest);
    }
    return false;
  }

  string(q: string): string {
    const s = this.s;
    this.pos++; // opening quote
    let out = "";
    for (;;) {
      if (this.pos >= s.length) {
        this.repaired = true; // unterminated at the end; in loose mode closers typed inside it were meant as closers
        return this.loose ? out.replace(/[\s}\]]+$/, "") : out;
      }
      const c = s[this.pos]!;
      if (c === q) {
        if (this.closesHere(q)) {
          this.pos++;
          return out;
        }
        this.repaired = true;
        out += c;
        this.pos++;
        continue;
      }
      if (c === "\\") {
        const n = s[this.pos + 1];
        if (n === undefined) {
          this.repaired = true;
          this.pos++;
          continue;
        }
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        const mapped = simple[n];
        if (mapped !== undefined) {
          out += mapped;
          this.pos += 2;
          continue;
        }
        if (n === "'" && this.loose) {
          out += "'";
          this.pos += 2;
          continue;
        }
        if (n === "u" && /^[0-9a-fA-F]{4}$/.test(s.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(s.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
          continue;
        }
        // invalid escape (Windows paths, regexes): keep the backslash literally
        this.repaired = true;
        out += "\\";
        this.pos++;
        continue;
      }
      if (c < " ") this.repaired = true; // raw control character: kept as written
      out += c;
      this.pos++;
    }
  }

  private number(): number {
    const m = /^-?(?:\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.pos, this.pos + 64));
    if (!m) throw new Fail("bad number");
    this.pos += m[0].length;
    return Number(m[0]);
  }

  private word(): unknown {
    const s = this.s;
    const m = /^[A-Za-z_$][\w$]*/.exec(s.slice(this.pos, this.pos + 64));
    const w = m?.[0];
    const literals: Record<string, unknown> = { true: true, false: false, null: null };
    if (w !== undefined && w in literals) {
      this.pos += w.length;
      return literals[w];
    }
    if (!this.loose) throw new Fail(`unexpected ${JSON.stringify(s[this.pos])}`);
    const py: Record<string, unknown> = { True: true, False: false, None: null, undefined: null };
    if (w !== undefined && w in py) {
      this.repaired = true;
      this.pos += w.length;
      return py[w];
    }
    // a bare word value: read to the next delimiter on the line
    const start = this.pos;
    while (this.pos < s.length && !",}]\n".includes(s[this.pos]!)) this.pos++;
    const text = s.slice(start, this.pos).trim();
    if (text === "") throw new Fail(`unexpected ${JSON.stringify(s[start])}`);
    this.repaired = true;
    return text;
  }
}

/**
 * End index (exclusive) of the balanced `{…}` / `[…]` starting at `start`, or -1 when it never closes.
 * Tracks double-quoted strings with escapes; a backslash outside strings escapes the next character, so
 * string-escaped JSON (`{\"a\":1}`) balances too.
 */
export function extractBalanced(text: string, start: number, limit = text.length): number {
  const open = text[start];
  if (open !== "{" && open !== "[") return -1;
  let depth = 0;
  let inStr = false;
  for (let i = start; i < limit; i++) {
    const c = text[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inStr) {
      if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** JSON.parse without exceptions. */
export function tryStrictJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
