/**
 * The parser's cursor over the lexer's token stream: one token of lookahead, the small expect/take helpers and
 * syntax errors that name the offending token. Heredoc bodies the lexer parsed on the way are handed to
 * `onHeredocScript` as soon as the token after them is peeked.
 */
import { ShellSyntaxError, type OpToken, type ShellLexer, type Token } from "./shell-lexer.ts";
import type { ShellScript, ShellWord } from "./shell-types.ts";

export abstract class TokenCursor {
  private peeked: Token | undefined;

  constructor(protected readonly lx: ShellLexer) {}

  protected abstract onHeredocScript(sub: ShellScript): void;

  expectEof(): void {
    const t = this.take();
    if (t.kind !== "eof") throw new ShellSyntaxError(`unexpected ${describe(t)}`);
  }

  expectOp(op: OpToken, message: string): void {
    const t = this.take();
    if (t.kind !== "op" || t.op !== op) throw new ShellSyntaxError(t.kind === "eof" ? message : `unexpected ${describe(t)}`);
  }

  protected atEnd(ends: ReadonlySet<string>): boolean {
    const t = this.peek();
    if (t.kind === "eof") return ends.has("<eof>") || fail("unexpected end of input");
    if (t.kind === "op") return ends.has(t.op);
    return t.kind === "word" && !t.word.quoted && ends.has(t.word.value);
  }

  protected skipNewlines(): void {
    for (let t = this.peek(); t.kind === "op" && t.op === "\n"; t = this.peek()) this.take();
  }

  protected expectWord(value: string): void {
    const t = this.take();
    if (!this.isWord(t, value)) throw new ShellSyntaxError(t.kind === "eof" ? `'${value}' expected` : `unexpected ${describe(t)}`);
  }

  protected takeWord(): ShellWord {
    const t = this.take();
    if (t.kind !== "word") throw new ShellSyntaxError(`word expected, got ${describe(t)}`);
    return t.word;
  }

  protected isWord(t: Token, value: string): boolean {
    return t.kind === "word" && !t.word.quoted && t.word.value === value;
  }

  protected peek(): Token {
    if (this.peeked === undefined) {
      this.peeked = this.lx.next();
      for (const sub of this.lx.drainHeredocScripts()) this.onHeredocScript(sub);
    }
    return this.peeked;
  }

  protected take(): Token {
    const t = this.peek();
    this.peeked = undefined;
    return t;
  }
}

export function describe(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "end of input";
    case "op":
      return t.op === "\n" ? "newline" : `'${t.op}'`;
    case "redir":
      return `'${t.op}'`;
    case "word":
      return `'${t.word.raw}'`;
  }
}

export function fail(message: string): never {
  throw new ShellSyntaxError(message);
}
