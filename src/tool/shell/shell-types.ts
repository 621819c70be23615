/**
 * The result of parsing a POSIX-sh / bash command line (parse-shell.ts). It is deliberately flat: every simple
 * command that the line would run, wherever it sits (pipelines, lists, subshells, `$(…)`, function bodies, loop
 * bodies), with the operator that joined it to the previous one. The permission policy only needs "what runs and
 * how it is wired", never a full AST.
 */

export interface ShellWord {
  /** Source text as written (quotes and escapes included). */
  raw: string;
  /** After quote removal and escape processing. Expansions (`$X`, `${…}`, `$(…)`) are kept as their source text. */
  value: string;
  /**
   * The characters written outside quotes, escapes and expansions, in order: where bash may glob (`*?[`),
   * brace-expand (`{a,b}`) or tilde-expand. `'*.ts'` has bare "" while `src/*.ts` has bare "src/*.ts".
   */
  bare: string;
  /** Some part was quoted or escaped: `'r''m'`, `\rm` and `"rm"` all give value `rm` with quoted = true. */
  quoted: boolean;
  /** Holds a parameter or arithmetic expansion, so the runtime value is unknown. */
  expansion: boolean;
  /** Scripts run to compute this word: `$(…)`, backticks, `<(…)`, `>(…)`. Heredoc substitutions go straight to the script. */
  substitutions: ShellScript[];
}

export type RedirectOp = "<" | ">" | ">>" | ">|" | "<>" | "<<" | "<<-" | "<<<" | "<&" | ">&" | "&>" | "&>>";

export interface Redirection {
  op: RedirectOp;
  /** Explicit file descriptor before the operator (`2>`), if any. */
  fd?: number;
  /** The file, fd number, or heredoc delimiter. */
  target: ShellWord;
  /** Body of a heredoc (`<<`, `<<-`). */
  heredoc?: string;
}

/** How a command is joined to the previous one. `""` for the first command of a script. */
export type Connector = "" | ";" | "\n" | "&" | "&&" | "||" | "|" | "|&";

/** Where a simple command sits. */
export type CommandContext = "top" | "substitution" | "subshell" | "group" | "compound" | "function";

export interface SimpleCommand {
  /** Word values after quote removal (assignments excluded). May be empty (`A=1`, `> file`). */
  argv: string[];
  words: ShellWord[];
  /** Leading `NAME=value` words. */
  assignments: ShellWord[];
  /** Its own redirections plus those of enclosing compound commands (`{ …; } > f`, `done < list`). */
  redirects: Redirection[];
  connector: Connector;
  /** Commands joined by `|` / `|&` share this id. */
  pipeline: number;
  context: CommandContext;
}

export type ShellFeature =
  | "sequence" // `;` or newline between two commands
  | "and"
  | "or"
  | "pipe"
  | "background"
  | "negation"
  | "substitution" // $(…) or backticks
  | "process-substitution"
  | "arithmetic"
  | "subshell"
  | "group"
  | "compound" // if / for / while / until / case
  | "function"
  | "redirection"
  | "heredoc";

export interface FunctionDef {
  name: string;
  /** Commands of the body (also present in ShellScript.commands). */
  body: SimpleCommand[];
}

export interface ShellScript {
  commands: SimpleCommand[];
  features: ReadonlySet<ShellFeature>;
  functions: FunctionDef[];
}

export type ShellParseResult =
  | { ok: true; script: ShellScript }
  /** `rough` is a best-effort split of the text into argv lists, for blocklist checks only. */
  | { ok: false; error: string; rough: string[][] };
