/**
 * Where JSON text first goes wrong, as line and column (1-based). Bun's JSON.parse (JavaScriptCore) names no
 * position, so this small scanner walks the RFC 8259 grammar and stops at the first character it cannot accept.
 * Returns null for text JSON.parse accepts.
 */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  /** The offending character, or null at the end of the text. */
  found: string | null;
  /** What would have been accepted there: a kind of thing, or literal tokens (`token:"," or "}"`). */
  expected: JsonExpectation;
}

export type JsonExpectation = "value" | "key" | "hexDigit" | "escape" | "digit" | "end" | `token:${string}`;

class Stop {
  constructor(
    readonly offset: number,
    readonly expected: JsonExpectation,
  ) {}
}

export function findJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  let pos = 0;
  const fail = (expected: JsonExpectation): never => {
    throw new Stop(pos, expected);
  };
  const ws = () => {
    while (pos < text.length && " \t\n\r".includes(text[pos]!)) pos++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[pos] !== ch) fail(`token:"${word}"`);
      pos++;
    }
  };
  const string = () => {
    pos++; // the opening quote
    while (true) {
      const ch = text[pos];
      if (ch === undefined || ch === "\n" || ch < " ") fail(`token:'"'`);
      if (ch === '"') return void pos++;
      if (ch === "\\") {
        pos++;
        const esc = text[pos];
        if (esc === "u") {
          pos++;
          for (let i = 0; i < 4; i++) {
            if (!/[0-9a-fA-F]/.test(text[pos] ?? "")) fail("hexDigit");
            pos++;
          }
          continue;
        }
        if (esc === undefined || !'"\\/bfnrt'.includes(esc)) fail("escape");
      }
      pos++;
    }
  };
  const digits = () => {
    if (!/[0-9]/.test(text[pos] ?? "")) fail("digit");
    while (/[0-9]/.test(text[pos] ?? "")) pos++;
  };
  const number = () => {
    if (text[pos] === "-") pos++;
    if (text[pos] === "0") pos++;
    else digits();
    if (text[pos] === ".") {
      pos++;
      digits();
    }
    if (text[pos] === "e" || text[pos] === "E") {
      pos++;
      if (text[pos] === "+" || text[pos] === "-") pos++;
      digits();
    }
  };
  const value = (): void => {
    ws();
    const ch = text[pos];
    if (ch === "{") return object();
    if (ch === "[") return array();
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || /[0-9]/.test(ch ?? "")) return number();
    fail("value");
  };
  const object = () => {
    pos++;
    ws();
    if (text[pos] === "}") return void pos++;
    while (true) {
      ws();
      if (text[pos] !== '"') fail("key");
      string();
      ws();
      if (text[pos] !== ":") fail('token:":"');
      pos++;
      value();
      ws();
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === "}") return void pos++;
      fail('token:"," or "}"');
    }
  };
  const array = () => {
    pos++;
    ws();
    if (text[pos] === "]") return void pos++;
    while (true) {
      value();
      ws();
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === "]") return void pos++;
      fail('token:"," or "]"');
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) pos = 1;
    value();
    ws();
    if (pos < text.length) fail("end");
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.offset);
    const line = before.split("\n").length;
    const column = err.offset - (before.lastIndexOf("\n") + 1) + 1;
    return { line, column, found: text[err.offset] ?? null, expected: err.expected };
  }
}
