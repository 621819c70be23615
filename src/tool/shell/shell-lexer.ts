/**
 * Tokenizer for parse-shell.ts. Words are decoded here (quotes, escapes, `$'…'`), and the scripts inside `$(…)`,
 * backticks and `<(…)` are parsed on the spot through the `nested` callback so that a `)` inside quotes or a
 * nested `case` never ends the substitution early. Every malformed input throws ShellSyntaxError: callers treat
 * it as "cannot tell what this runs".
 */
import { decodeAnsiC } from "./ansi-c-quote.ts";
import { ShellSyntaxError } from "./shell-syntax-error.ts";
import type { Redirection, RedirectOp, ShellScript } from "./shell-types.ts";
import { arithmeticEnd, isDigit, type OpToken, type ParseHooks, type Token } from "./shell-tokens.ts";

export { ShellSyntaxError };
export type { FreshParser, NestedParser, OpToken, ParseHooks, Token } from "./shell-tokens.ts";

const MAX_DEPTH = 16;
const WORD_BREAK = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

interface WordAcc {
  value: string;
  bare: string;
  quoted: boolean;
  expansion: boolean;
  substitutions: ShellScript[];
}

interface PendingHeredoc {
  redir: Redirection;
  strip: boolean;
}

export class ShellLexer {
  pos: number;
  private pending: PendingHeredoc[] = [];
  private heredocScripts: ShellScript[] = [];

  constructor(
    readonly src: string,
    start: number,
    readonly depth: number,
    private readonly hooks: ParseHooks,
  ) {
    if (depth > MAX_DEPTH) throw new ShellSyntaxError("nesting too deep");
    this.pos = start;
  }

  /** Scripts from `$(…)` / backticks in unquoted heredoc bodies read since the last call. */
  drainHeredocScripts(): ShellScript[] {
    const out = this.heredocScripts;
    this.heredocScripts = [];
    return out;
  }

  /** Call right after the delimiter word of `<<` / `<<-`: the body is read at the next newline. */
  registerHeredoc(redir: Redirection, strip: boolean): void {
    this.pending.push({ redir, strip });
  }

  next(): Token {
    this.skipBlanksAndComments();
    const s = this.src;
    const c = s[this.pos];
    if (c === undefined) {
      if (this.pending.length > 0) this.readHeredocBodies();
      return { kind: "eof" };
    }
    const n = s[this.pos + 1];
    if (c === "\n") {
      this.pos++;
      this.readHeredocBodies();
      return { kind: "op", op: "\n" };
    }
    if ((c === "<" || c === ">") && n === "(") return this.word();
    if (isDigit(c)) {
      let i = this.pos;
      while (isDigit(s[i])) i++;
      if (s[i] === "<" || s[i] === ">") {
        const fd = Number(s.slice(this.pos, i));
        this.pos = i;
        return { kind: "redir", op: this.redirOp(), fd };
      }
      return this.word();
    }
    if (c === "<" || c === ">") return { kind: "redir", op: this.redirOp() };
    if (c === "&") {
      if (n === ">") {
        const append = s[this.pos + 2] === ">";
        this.pos += append ? 3 : 2;
        return { kind: "redir", op: append ? "&>>" : "&>" };
      }
      return this.op(n === "&" ? "&&" : "&");
    }
    if (c === "|") return this.op(n === "|" ? "||" : n === "&" ? "|&" : "|");
    if (c === ";") {
      if (n === ";") return this.op(s[this.pos + 2] === "&" ? ";;&" : ";;");
      return this.op(n === "&" ? ";&" : ";");
    }
    if (c === "(" || c === ")") return this.op(c);
    return this.word();
  }

  private op(op: OpToken): Token {
    this.pos += op.length;
    return { kind: "op", op };
  }

  /** At `<` or `>`: consume the longest redirection operator. */
  private redirOp(): RedirectOp {
    const s = this.src;
    const three = s.slice(this.pos, this.pos + 3);
    const two = s.slice(this.pos, this.pos + 2);
    for (const op of ["<<-", "<<<", "&>>"] as const) {
      if (three === op) {
        this.pos += 3;
        return op;
      }
    }
    for (const op of [">>", ">|", "<>", "<<", "<&", ">&"] as const) {
      if (two === op) {
        this.pos += 2;
        return op;
      }
    }
    const one = s[this.pos] === "<" ? "<" : ">";
    this.pos += 1;
    return one;
  }

  private skipBlanksAndComments(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      // Only space and tab are blanks to bash: `\r` is a word character (so `\r#` is a word, not a comment).
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\\" && s[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#") {
        while (this.pos < s.length && s[this.pos] !== "\n") this.pos++;
      } else return;
    }
  }

  private word(): Token {
    const s = this.src;
    const start = this.pos;
    const acc: WordAcc = { value: "", bare: "", quoted: false, expansion: false, substitutions: [] };
    while (this.pos < s.length) {
      const c = s[this.pos] as string;
      if (WORD_BREAK.has(c)) {
        if ((c === "<" || c === ">") && s[this.pos + 1] === "(" && this.pos === start) {
          this.processSubstitution(acc);
          continue;
        }
        break;
      }
      if (c === "\\") {
        const n = s[this.pos + 1];
        if (n === "\n") this.pos += 2;
        else if (n === undefined) {
          acc.value += "\\";
          this.pos++;
        } else {
          acc.value += n;
          acc.quoted = true;
          this.pos += 2;
        }
      } else if (c === "'") {
        const end = s.indexOf("'", this.pos + 1);
        if (end < 0) throw new ShellSyntaxError("unterminated single quote");
        acc.value += s.slice(this.pos + 1, end);
        acc.quoted = true;
        this.pos = end + 1;
      } else if (c === '"') this.doubleQuoted(acc);
      else if (c === "`") this.backtick(acc);
      else if (c === "$") this.dollar(acc, false);
      else {
        acc.value += c;
        acc.bare += c;
        this.pos++;
      }
    }
    return { kind: "word", word: { raw: s.slice(start, this.pos), ...acc } };
  }

  private processSubstitution(acc: WordAcc): void {
    const start = this.pos;
    const { script, end } = this.hooks.nested(this.src, this.pos + 2, this.depth + 1);
    acc.substitutions.push(script);
    acc.value += this.src.slice(start, end);
    this.pos = end;
  }

  private doubleQuoted(acc: WordAcc): void {
    const s = this.src;
    acc.quoted = true;
    this.pos++;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) throw new ShellSyntaxError("unterminated double quote");
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === "\\") {
        const n = s[this.pos + 1];
        if (n === "\n") this.pos += 2;
        else if (n === "$" || n === "`" || n === '"' || n === "\\") {
          acc.value += n;
          this.pos += 2;
        } else {
          acc.value += "\\";
          this.pos++;
        }
      } else if (c === "`") this.backtick(acc);
      else if (c === "$") this.dollar(acc, true);
      else {
        acc.value += c;
        this.pos++;
      }
    }
  }

  private backtick(acc: WordAcc): void {
    const s = this.src;
    const start = this.pos;
    let inner = "";
    let i = this.pos + 1;
    for (;;) {
      const c = s[i];
      if (c === undefined) throw new ShellSyntaxError("unterminated backtick");
      if (c === "`") break;
      if (c === "\\" && (s[i + 1] === "`" || s[i + 1] === "$" || s[i + 1] === "\\")) {
        inner += s[i + 1];
        i += 2;
      } else {
        inner += c;
        i++;
      }
    }
    this.pos = i + 1;
    acc.substitutions.push(this.hooks.fresh(inner, this.depth + 1));
    acc.value += s.slice(start, this.pos);
  }

  private dollar(acc: WordAcc, inDouble: boolean): void {
    const s = this.src;
    const start = this.pos;
    const n = s[this.pos + 1];
    if (n === "(" && s[this.pos + 2] === "(") {
      const end = arithmeticEnd(s, this.pos + 3);
      if (end >= 0) {
        const inner = s.slice(this.pos + 3, end);
        // Arithmetic may itself hold command substitutions; refuse rather than guess.
        if (inner.includes("$(") || inner.includes("`")) throw new ShellSyntaxError("substitution inside $((…))");
        acc.expansion = true;
        this.pos = end + 2;
        acc.value += s.slice(start, this.pos);
        return;
      }
    }
    if (n === "(") {
      const { script, end } = this.hooks.nested(s, this.pos + 2, this.depth + 1);
      acc.substitutions.push(script);
      this.pos = end;
      acc.value += s.slice(start, end);
      return;
    }
    if (n === "{") {
      this.braceExpansion(acc);
      acc.value += s.slice(start, this.pos);
      return;
    }
    if (n === "'" && !inDouble) {
      this.pos += 2;
      acc.value += this.ansiC();
      acc.quoted = true;
      return;
    }
    if (n === '"' && !inDouble) {
      this.pos++;
      this.doubleQuoted(acc);
      return;
    }
    if (n !== undefined && /[A-Za-z_]/.test(n)) {
      let i = this.pos + 1;
      while (i < s.length && /[A-Za-z0-9_]/.test(s[i] as string)) i++;
      acc.expansion = true;
      acc.value += s.slice(start, i);
      this.pos = i;
      return;
    }
    if (n !== undefined && /[0-9@*#?$!-]/.test(n)) {
      acc.expansion = true;
      acc.value += s.slice(start, this.pos + 2);
      this.pos += 2;
      return;
    }
    acc.value += "$";
    this.pos++;
  }

  /** `${…}`: skip to the matching brace, parsing any `$(…)` / backticks inside. */
  private braceExpansion(acc: WordAcc): void {
    const s = this.src;
    acc.expansion = true;
    let depth = 1;
    let i = this.pos + 2;
    while (depth > 0) {
      const c = s[i];
      if (c === undefined) throw new ShellSyntaxError("unterminated ${");
      if (c === "\\") i += 2;
      else if (c === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) throw new ShellSyntaxError("unterminated single quote");
        i = end + 1;
      } else if (c === "$" && s[i + 1] === "{") {
        depth++;
        i += 2;
      } else if (c === "$" && s[i + 1] === "(") {
        const { script, end } = this.hooks.nested(s, i + 2, this.depth + 1);
        acc.substitutions.push(script);
        i = end;
      } else if (c === "`") {
        this.pos = i;
        const tmp: WordAcc = { value: "", bare: "", quoted: false, expansion: false, substitutions: [] };
        this.backtick(tmp);
        acc.substitutions.push(...tmp.substitutions);
        i = this.pos;
      } else if (c === "}") {
        depth--;
        i++;
      } else i++;
    }
    this.pos = i;
  }

  /** Body of `$'…'` (pos just after the quote). */
  private ansiC(): string {
    const { value, end } = decodeAnsiC(this.src, this.pos);
    this.pos = end;
    return value;
  }

  /** At a newline: consume the bodies of heredocs opened on the line just ended. */
  private readHeredocBodies(): void {
    const s = this.src;
    for (const h of this.pending) {
      const delim = h.redir.target.value;
      let body = "";
      for (;;) {
        if (this.pos >= s.length) break; // bash accepts a missing terminator (with a warning)
        const nl = s.indexOf("\n", this.pos);
        const lineEnd = nl < 0 ? s.length : nl;
        let line = s.slice(this.pos, lineEnd);
        this.pos = nl < 0 ? s.length : nl + 1;
        if (h.strip) line = line.replace(/^\t+/, "");
        if (line === delim) break;
        body += line + "\n";
      }
      h.redir.heredoc = body;
      if (!h.redir.target.quoted) this.heredocScripts.push(...this.heredocSubstitutions(body));
    }
    this.pending = [];
  }

  /** An unquoted heredoc body expands `$(…)` and backticks: parse those. */
  private heredocSubstitutions(body: string): ShellScript[] {
    const out: ShellScript[] = [];
    for (let i = 0; i < body.length; i++) {
      const c = body[i];
      if (c === "\\") i++;
      else if (c === "$" && body[i + 1] === "(") {
        const { script, end } = this.hooks.nested(body, i + 2, this.depth + 1);
        out.push(script);
        i = end - 1;
      } else if (c === "`") {
        const end = body.indexOf("`", i + 1);
        if (end < 0) throw new ShellSyntaxError("unterminated backtick in heredoc");
        out.push(this.hooks.fresh(body.slice(i + 1, end), this.depth + 1));
        i = end;
      }
    }
    return out;
  }
}
