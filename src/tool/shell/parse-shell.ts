/**
 * A hand-written parser for the POSIX sh / bash command language, enough to know every simple command a line runs:
 * lists (`;` `&` newline), `&&` `||`, pipelines (`|` `|&`, `!`), subshells, `{ …; }` groups, if/for/while/until/
 * case, function definitions, redirections and heredocs, `$(…)`, backticks, `<(…)`, `${…}`, `$'…'`, comments,
 * `NAME=value` prefixes. It never throws: anything it cannot parse comes back as `{ ok: false }` with a rough
 * word split, and callers must then treat the command as not read-only.
 * Not supported (reported as unparseable): `((…))` and `for ((…))` arithmetic commands, `[[ … ]]` containing
 * `&&`/`||`/`<`/`>` is tokenized as ordinary operators.
 */
import { ShellLexer, ShellSyntaxError, type ParseHooks } from "./shell-lexer.ts";
import type {
  CommandContext,
  Connector,
  FunctionDef,
  Redirection,
  ShellFeature,
  ShellParseResult,
  ShellScript,
  ShellWord,
  SimpleCommand,
} from "./shell-types.ts";
import { roughSplit } from "./rough-split.ts";
import { TokenCursor, describe } from "./token-cursor.ts";

export function parseShell(text: string): ShellParseResult {
  try {
    return { ok: true, script: parseOrThrow(text) };
  } catch (e) {
    if (e instanceof ShellSyntaxError || e instanceof RangeError) {
      return { ok: false, error: e.message, rough: roughSplit(text) };
    }
    throw e;
  }
}

interface SharedState {
  pipelines: number;
}

function parseOrThrow(text: string): ShellScript {
  const shared: SharedState = { pipelines: 0 };
  const hooks: ParseHooks = {
    nested: (src, pos, depth) => {
      const lx = new ShellLexer(src, pos, depth, hooks);
      const p = new Parser(lx, shared, "substitution");
      p.list(END_PAREN);
      p.expectOp(")", "unterminated $(");
      return { script: p.result(), end: lx.pos };
    },
    fresh: (src, depth) => {
      const p = new Parser(new ShellLexer(src, 0, depth, hooks), shared, "substitution");
      p.list(END_EOF);
      p.expectEof();
      return p.result();
    },
  };
  const p = new Parser(new ShellLexer(text, 0, 0, hooks), shared, "top");
  p.list(END_EOF);
  p.expectEof();
  return p.result();
}

const END_EOF = new Set(["<eof>"]);
const END_PAREN = new Set([")"]);
const RESERVED = new Set([
  "if", "then", "elif", "else", "fi", "for", "select", "while", "until", "do", "done", "case", "esac", "{", "}", "function",
]);

class Parser extends TokenCursor {
  private commands: SimpleCommand[] = [];
  private features = new Set<ShellFeature>();
  private functions: FunctionDef[] = [];
  private connector: Connector = "";
  private context: CommandContext[];

  constructor(
    lx: ShellLexer,
    private readonly shared: SharedState,
    context: CommandContext,
  ) {
    super(lx);
    this.context = [context];
  }

  protected override onHeredocScript(sub: ShellScript): void {
    this.absorb(sub, "substitution");
  }

  result(): ShellScript {
    return { commands: this.commands, features: this.features, functions: this.functions };
  }

  /** A command list ending (without consuming) at one of `ends`: ops, reserved words, or "<eof>". */
  list(ends: ReadonlySet<string>): void {
    let separator: Connector | undefined;
    for (;;) {
      this.skipNewlines();
      if (this.atEnd(ends)) return;
      if (separator !== undefined) {
        this.features.add("sequence");
        this.connector = separator;
      }
      this.andOr();
      const t = this.peek();
      if (t.kind === "op" && (t.op === ";" || t.op === "\n" || t.op === "&")) {
        this.take();
        if (t.op === "&") this.features.add("background");
        separator = t.op;
        continue;
      }
      if (this.atEnd(ends)) return;
      throw new ShellSyntaxError(`unexpected ${describe(t)}`);
    }
  }

  private andOr(): void {
    this.pipeline();
    for (;;) {
      const t = this.peek();
      if (t.kind !== "op" || (t.op !== "&&" && t.op !== "||")) return;
      this.take();
      this.features.add(t.op === "&&" ? "and" : "or");
      this.connector = t.op;
      this.skipNewlines();
      this.pipeline();
    }
  }

  private pipeline(): void {
    if (this.isWord(this.peek(), "!")) {
      this.take();
      this.features.add("negation");
    }
    const id = ++this.shared.pipelines;
    this.command(id);
    for (;;) {
      const t = this.peek();
      if (t.kind !== "op" || (t.op !== "|" && t.op !== "|&")) return;
      this.take();
      this.features.add("pipe");
      this.connector = t.op;
      this.skipNewlines();
      this.command(id);
    }
  }

  private command(pipeline: number): void {
    const t = this.peek();
    const first = this.commands.length;
    if (t.kind === "op" && t.op === "(") {
      this.take();
      this.features.add("subshell");
      this.nest("subshell", () => this.list(END_PAREN));
      this.expectOp(")", "unterminated (");
      this.trailingRedirects(first);
      return;
    }
    if (t.kind === "word" && !t.word.quoted && RESERVED.has(t.word.value)) {
      this.compound(t.word.value, pipeline);
      this.trailingRedirects(first);
      return;
    }
    this.simple(pipeline);
  }

  private compound(keyword: string, pipeline: number): void {
    this.take();
    switch (keyword) {
      case "{":
        this.features.add("group");
        this.nest("group", () => this.list(new Set(["}"])));
        this.expectWord("}");
        return;
      case "if":
        this.features.add("compound");
        this.nest("compound", () => {
          this.list(new Set(["then"]));
          this.expectWord("then");
          this.list(new Set(["elif", "else", "fi"]));
          for (;;) {
            if (this.isWord(this.peek(), "elif")) {
              this.take();
              this.list(new Set(["then"]));
              this.expectWord("then");
              this.list(new Set(["elif", "else", "fi"]));
            } else if (this.isWord(this.peek(), "else")) {
              this.take();
              this.list(new Set(["fi"]));
            } else break;
          }
        });
        this.expectWord("fi");
        return;
      case "while":
      case "until":
        this.features.add("compound");
        this.nest("compound", () => {
          this.list(new Set(["do"]));
          this.doGroup();
        });
        return;
      case "for":
      case "select":
        this.features.add("compound");
        this.forHead();
        this.nest("compound", () => this.doGroup());
        return;
      case "case":
        this.features.add("compound");
        this.nest("compound", () => this.caseBody());
        return;
      case "function": {
        const name = this.take();
        if (name.kind !== "word") throw new ShellSyntaxError("function name expected");
        const p = this.peek();
        if (p.kind === "op" && p.op === "(") {
          this.take();
          this.expectOp(")", "( expected");
        }
        this.functionBody(name.word.value, pipeline);
        return;
      }
      default:
        throw new ShellSyntaxError(`unexpected '${keyword}'`);
    }
  }

  private forHead(): void {
    const name = this.take();
    if (name.kind !== "word") throw new ShellSyntaxError("unsupported for loop");
    this.skipNewlines();
    if (this.isWord(this.peek(), "in")) {
      this.take();
      const words: ShellWord[] = [];
      for (let t = this.peek(); t.kind === "word"; t = this.peek()) words.push(this.takeWord());
      this.flattenSubstitutions(words);
    }
    const t = this.peek();
    if (t.kind === "op" && (t.op === ";" || t.op === "\n")) this.take();
    this.skipNewlines();
  }

  private doGroup(): void {
    this.expectWord("do");
    this.list(new Set(["done"]));
    this.expectWord("done");
  }

  private caseBody(): void {
    const subject = this.take();
    if (subject.kind !== "word") throw new ShellSyntaxError("case word expected");
    this.flattenSubstitutions([subject.word]);
    this.skipNewlines();
    this.expectWord("in");
    for (;;) {
      this.skipNewlines();
      if (this.isWord(this.peek(), "esac")) {
        this.take();
        return;
      }
      const open = this.peek();
      if (open.kind === "op" && open.op === "(") this.take();
      const patterns: ShellWord[] = [this.takeWord()];
      for (let t = this.peek(); t.kind === "op" && t.op === "|"; t = this.peek()) {
        this.take();
        patterns.push(this.takeWord());
      }
      this.flattenSubstitutions(patterns);
      this.expectOp(")", "unterminated case pattern");
      this.list(new Set([";;", ";&", ";;&", "esac"]));
      const end = this.peek();
      if (end.kind === "op" && (end.op === ";;" || end.op === ";&" || end.op === ";;&")) this.take();
    }
  }

  private functionBody(name: string, pipeline: number): void {
    this.features.add("function");
    this.skipNewlines();
    const first = this.commands.length;
    this.nest("function", () => this.command(pipeline));
    this.functions.push({ name, body: this.commands.slice(first) });
  }

  private simple(pipeline: number): void {
    const words: ShellWord[] = [];
    const assignments: ShellWord[] = [];
    const redirects: Redirection[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === "redir") {
        this.take();
        redirects.push(this.redirect(t.op, t.fd));
      } else if (t.kind === "word") {
        this.take();
        if (words.length === 0 && isAssignment(t.word)) assignments.push(t.word);
        else words.push(t.word);
      } else if (t.kind === "op" && t.op === "(" && words.length === 1 && assignments.length === 0 && redirects.length === 0) {
        this.take();
        this.expectOp(")", "( expected");
        this.functionBody((words[0] as ShellWord).value, pipeline);
        return;
      } else break;
    }
    if (words.length === 0 && assignments.length === 0 && redirects.length === 0) {
      throw new ShellSyntaxError(`unexpected ${describe(this.peek())}`);
    }
    this.flattenSubstitutions([...assignments, ...words, ...redirects.map((r) => r.target)]);
    this.commands.push({
      argv: words.map((w) => w.value),
      words,
      assignments,
      redirects,
      connector: this.connector,
      pipeline,
      context: this.context[this.context.length - 1] ?? "top",
    });
    this.connector = "";
  }

  private redirect(op: Redirection["op"], fd: number | undefined): Redirection {
    this.features.add("redirection");
    const target = this.takeWord();
    const r: Redirection = fd === undefined ? { op, target } : { op, fd, target };
    if (op === "<<" || op === "<<-") {
      this.features.add("heredoc");
      this.lx.registerHeredoc(r, op === "<<-");
    }
    return r;
  }

  /** Redirections after `)`, `}`, `fi`, `done`, `esac` apply to every command inside. */
  private trailingRedirects(first: number): void {
    const extra: Redirection[] = [];
    for (let t = this.peek(); t.kind === "redir"; t = this.peek()) {
      this.take();
      extra.push(this.redirect(t.op, t.fd));
    }
    if (extra.length === 0) return;
    this.flattenSubstitutions(extra.map((r) => r.target));
    for (const c of this.commands.slice(first)) c.redirects.push(...extra);
  }

  /** Substitutions run before the command that holds them: append their commands to this script. */
  private flattenSubstitutions(words: ShellWord[]): void {
    for (const w of words) {
      for (const sub of w.substitutions) {
        this.absorb(sub, w.raw.startsWith("<(") || w.raw.startsWith(">(") ? "process-substitution" : "substitution");
      }
      if (w.expansion && w.raw.includes("$((")) this.features.add("arithmetic");
    }
  }

  private absorb(sub: ShellScript, feature: ShellFeature): void {
    this.features.add(feature);
    for (const f of sub.features) this.features.add(f);
    this.commands.push(...sub.commands.map((c) => (c.context === "top" ? { ...c, context: "substitution" as const } : c)));
    this.functions.push(...sub.functions);
  }

  private nest(context: CommandContext, body: () => void): void {
    this.context.push(context);
    try {
      body();
    } finally {
      this.context.pop();
    }
  }
}

function isAssignment(w: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w.raw);
}
