/** The token model the shell lexer produces and the parser consumes, plus the lexer's small character helpers. */
import type { RedirectOp, ShellScript, ShellWord } from "./shell-types.ts";

export type OpToken = ";" | "\n" | "&" | "&&" | "||" | "|" | "|&" | "(" | ")" | ";;" | ";&" | ";;&";

export type Token =
  | { kind: "word"; word: ShellWord }
  | { kind: "op"; op: OpToken }
  | { kind: "redir"; op: RedirectOp; fd?: number }
  | { kind: "eof" };

/** Parses a command list from `pos` up to an unmatched `)`; `end` is the index just after it. */
export type NestedParser = (src: string, pos: number, depth: number) => { script: ShellScript; end: number };
/** Parses a whole string (backtick contents). */
export type FreshParser = (src: string, depth: number) => ShellScript;

export interface ParseHooks {
  nested: NestedParser;
  fresh: FreshParser;
}

export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Index of the `))` closing an arithmetic expansion whose body starts at `i`, or -1. */
export function arithmeticEnd(s: string, i: number): number {
  let depth = 0;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) return s[i + 1] === ")" ? i : -1;
      depth--;
    }
  }
  return -1;
}
