/**
 * A TOML reader for the part of the language config files like Codex's `config.toml` use: tables (`[a."b.c"]`),
 * arrays of tables (`[[x]]`), dotted and quoted keys, basic/literal/multi-line strings, integers, floats, booleans,
 * arrays (multi-line, trailing commas) and inline tables. Dates are kept as strings. Throws TomlError with the line
 * number on anything else; the importer then skips that file and says why. Not a validator: redefinitions win.
 */

export class TomlError extends Error {
  override name = "TomlError";
}

type Table = Record<string, unknown>;

export function parseToml(text: string): Table {
  const root: Table = {};
  let current = root;
  const p = new Cursor(text);
  while (p.skipBlankAndComments(), !p.done()) {
    if (p.peek() === "[") {
      const arrayTable = p.text.startsWith("[[", p.i);
      p.i += arrayTable ? 2 : 1;
      const path = p.keyPath();
      p.expect(arrayTable ? "]]" : "]");
      p.endOfLine();
      current = arrayTable ? appendTable(root, path, p) : tableAt(root, path, p);
      continue;
    }
    const path = p.keyPath();
    p.ws();
    p.expect("=");
    p.ws();
    const value = p.value();
    p.endOfLine();
    const parent = tableAt(current, path.slice(0, -1), p);
    parent[path[path.length - 1]!] = value;
  }
  return root;
}

function tableAt(root: Table, path: string[], p: Cursor): Table {
  let t = root;
  for (const k of path) {
    const next = t[k];
    if (next === undefined) t = t[k] = {} as Table;
    else if (Array.isArray(next) && next.length && isTable(next[next.length - 1])) t = next[next.length - 1] as Table;
    else if (isTable(next)) t = next;
    else throw p.error(`key ${k} is not a table`);
  }
  return t;
}

function appendTable(root: Table, path: string[], p: Cursor): Table {
  const parent = tableAt(root, path.slice(0, -1), p);
  const k = path[path.length - 1]!;
  const list = parent[k] ?? (parent[k] = []);
  if (!Array.isArray(list)) throw p.error(`key ${k} is not an array of tables`);
  const t: Table = {};
  list.push(t);
  return t;
}

const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

class Cursor {
  i = 0;
  constructor(readonly text: string) {}

  done = () => this.i >= this.text.length;
  peek = () => this.text[this.i];

  error(msg: string): TomlError {
    const line = this.text.slice(0, this.i).split("\n").length;
    return new TomlError(`line ${line}: ${msg}`);
  }

  ws(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }

  skipBlankAndComments(): void {
    for (;;) {
      this.ws();
      const c = this.peek();
      if (c === "#") while (!this.done() && this.peek() !== "\n") this.i++;
      else if (c === "\n" || c === "\r") this.i++;
      else return;
    }
  }

  /** Whitespace, newlines and comments inside arrays. */
  skipAll(): void {
    this.skipBlankAndComments();
  }

  endOfLine(): void {
    this.ws();
    if (this.peek() === "#") while (!this.done() && this.peek() !== "\n") this.i++;
    if (this.done()) return;
    if (this.peek() === "\r") this.i++;
    if (this.peek() !== "\n") throw this.error(`unexpected ${JSON.stringify(this.peek())}`);
    this.i++;
  }

  expect(s: string): void {
    if (!this.text.startsWith(s, this.i)) throw this.error(`expected ${s}`);
    this.i += s.length;
  }

  keyPath(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.ws();
      const c = this.peek();
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const m = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.i));
        if (!m) throw this.error("expected a key");
        parts.push(m[0]);
        this.i += m[0].length;
      }
      this.ws();
      if (this.peek() !== ".") return parts;
      this.i++;
    }
  }

  value(): unknown {
    const c = this.peek();
    if (c === '"') return this.text.startsWith('"""', this.i) ? this.multiline('"""') : this.basicString();
    if (c === "'") return this.text.startsWith("'''", this.i) ? this.multiline("'''") : this.literalString();
    if (c === "[") return this.array();
    if (c === "{") return this.inlineTable();
    const m = /^[^\s,\]}#]+/.exec(this.text.slice(this.i));
    if (!m) throw this.error("expected a value");
    this.i += m[0].length;
    const raw = m[0];
    if (raw === "true") return true;
    if (raw === "false") return false;
    if (/^[+-]?(0|[1-9](_?\d)*)$/.test(raw)) return Number(raw.replace(/_/g, ""));
    if (/^0x[0-9a-fA-F_]+$|^0o[0-7_]+$|^0b[01_]+$/.test(raw)) return Number(raw.replace(/_/g, ""));
    if (/^[+-]?(\d(_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d+)?$/.test(raw) || /^[+-]?(inf|nan)$/.test(raw)) return Number(raw.replace(/_/g, "").replace("inf", "Infinity"));
    // Dates and times: kept as their text.
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(raw)) return raw;
    throw this.error(`cannot read value ${raw}`);
  }

  private array(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.skipAll();
      if (this.peek() === "]") {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.skipAll();
      if (this.peek() === ",") this.i++;
      else if (this.peek() !== "]") throw this.error("expected , or ] in an array");
    }
  }

  private inlineTable(): Table {
    this.i++;
    const out: Table = {};
    this.ws();
    if (this.peek() === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      const path = this.keyPath();
      this.ws();
      this.expect("=");
      this.ws();
      const v = this.value();
      tableAt(out, path.slice(0, -1), this)[path[path.length - 1]!] = v;
      this.ws();
      if (this.peek() === ",") {
        this.i++;
        this.ws();
        continue;
      }
      this.expect("}");
      return out;
    }
  }

  private basicString(): string {
    this.i++;
    let out = "";
    for (;;) {
      if (this.done() || this.peek() === "\n") throw this.error("unterminated string");
      const c = this.text[this.i++]!;
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      out += this.escape();
    }
  }

  private escape(): string {
    const e = this.text[this.i++];
    const simple: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\", e: "\u001b" };
    if (e !== undefined && e in simple) return simple[e]!;
    if (e === "u" || e === "U") {
      const len = e === "u" ? 4 : 8;
      const hex = this.text.slice(this.i, this.i + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw this.error("bad unicode escape");
      this.i += len;
      return String.fromCodePoint(parseInt(hex, 16));
    }
    throw this.error(`bad escape \\${e ?? ""}`);
  }

  private literalString(): string {
    const end = this.text.indexOf("'", this.i + 1);
    const nl = this.text.indexOf("\n", this.i + 1);
    if (end < 0 || (nl >= 0 && nl < end)) throw this.error("unterminated string");
    const s = this.text.slice(this.i + 1, end);
    this.i = end + 1;
    return s;
  }

  private multiline(quote: string): string {
    this.i += 3;
    if (this.peek() === "\r") this.i++;
    if (this.peek() === "\n") this.i++;
    let out = "";
    for (;;) {
      if (this.done()) throw this.error("unterminated multi-line string");
      if (this.text.startsWith(quote, this.i)) {
        // Up to two quotes right before the closing three belong to the string.
        let extra = 0;
        while (extra < 2 && this.text[this.i + 3 + extra] === quote[0]) extra++;
        out += quote[0]!.repeat(extra);
        this.i += 3 + extra;
        return out;
      }
      const c = this.text[this.i++]!;
      if (quote === '"""' && c === "\\") {
        if (/^[ \t]*\r?\n/.test(this.text.slice(this.i))) {
          while (/[\s]/.test(this.peek() ?? "")) this.i++;
          continue;
        }
        out += this.escape();
        continue;
      }
      out += c;
    }
  }
}
