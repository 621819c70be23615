// Issue 15 item 10: a source scan for English text handed straight to a person. It reads every file under src/
// with the TypeScript parser and flags a string or template literal with prose in it (a word of three or more
// letters outside `${…}`) passed to a user-facing sink without going through the i18n table (`t(…)`, `render(…)`):
//   - the `text` of a `{ type: "notice" }` event, and the argument of a local `notice(…)` helper;
//   - console.* and stdout/stderr (`out`/`err`) `.write(…)` in src/cli/, src/main.ts and src/ui/headless/ (what a person reads);
//   - yargs: `.usage(…)`, the description of `.command(…)`, `describe:` of an option, `.version/.help` texts;
//   - `new UsageError(…)` / `new ConfigError(…)` messages (printed to the user as they are).
// Text meant for the model (tool results, prompts) is not a sink here and stays English by design.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const SRC = join(import.meta.dir, "../../src");

/**
 * The rare legitimate exceptions, as `file: literal text` (the text with `${}` for each substitution).
 * Each one is not prose for a person to read in their language.
 */
const ALLOWED = new Set<string>([
  // The command's name in front of an already translated line, like the bare "chatcli: …" prefix.
  "cli/commands/update.ts: chatcli update: ${}\n",
]);

const CONSOLE_DIRS = ["cli/", "main.ts", "ui/headless/"];
const ERROR_CLASSES = new Set(["UsageError", "ConfigError"]);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The literal's own text with `${}` for substitutions, or undefined when the node is not a literal. */
function literalText(n: ts.Node): string | undefined {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n)) return n.head.text + n.templateSpans.map((s) => "${}" + s.literal.text).join("");
  return undefined;
}

/** A word of three letters or more besides substitutions and the program's name ("chatcli: ${…}" prefixes). */
const hasProse = (text: string) => /[A-Za-z]{3,}/.test(text.replace(/\$\{\}/g, " ").replace(/\bchatcli\b/g, " "));

/** Literals reachable as the value of `n` without passing through a call (`a ? "x" : t(...)`, `"a" + b`). */
function valueLiterals(n: ts.Node): ts.Node[] {
  if (literalText(n) !== undefined) return [n];
  if (ts.isParenthesizedExpression(n) || ts.isAsExpression(n)) return valueLiterals(n.expression);
  if (ts.isConditionalExpression(n)) return [...valueLiterals(n.whenTrue), ...valueLiterals(n.whenFalse)];
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...valueLiterals(n.left), ...valueLiterals(n.right)];
  if (ts.isBinaryExpression(n) && (n.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || n.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
    return [...valueLiterals(n.left), ...valueLiterals(n.right)];
  }
  return [];
}

function propertyName(p: ts.ObjectLiteralElementLike): string | undefined {
  return p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
}

function sinkArgs(n: ts.Node, rel: string): ts.Node[] {
  if (ts.isObjectLiteralExpression(n)) {
    const props = n.properties;
    const isNotice = props.some((p) => propertyName(p) === "type" && ts.isPropertyAssignment(p) && literalText(p.initializer) === "notice");
    const out: ts.Node[] = [];
    for (const p of props) {
      if (!ts.isPropertyAssignment(p)) continue;
      const name = propertyName(p);
      if ((isNotice && name === "text") || (rel === "cli/args.ts" && name === "describe")) out.push(p.initializer);
    }
    return out;
  }
  if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && ERROR_CLASSES.has(n.expression.text)) return [...(n.arguments ?? [])].slice(0, 1);
  if (!ts.isCallExpression(n)) return [];
  const callee = n.expression;
  if (ts.isIdentifier(callee) && callee.text === "notice") return n.arguments.slice(0, 1);
  if (!ts.isPropertyAccessExpression(callee)) return [];
  const method = callee.name.text;
  const target = callee.expression.getText();
  const consoleFile = CONSOLE_DIRS.some((d) => rel === d || rel.startsWith(d));
  if (consoleFile && method === "write" && /(^|\.)(stdout|stderr|out|err)$/.test(target)) return n.arguments.slice(0, 1);
  if (consoleFile && target === "console") return [...n.arguments];
  if (rel === "cli/args.ts") {
    if (method === "usage") return n.arguments.slice(0, 1);
    if (method === "command") return n.arguments.slice(1, 2);
    if (method === "version") return n.arguments.slice(1, 2);
    if (method === "help") return n.arguments.slice(1, 2);
  }
  return [];
}

function scan(): string[] {
  const found: string[] = [];
  for (const file of tsFiles(SRC)) {
    const rel = relative(SRC, file).split("\\").join("/");
    if (rel.startsWith("i18n/")) continue;
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      for (const arg of sinkArgs(n, rel)) {
        for (const lit of valueLiterals(arg)) {
          const text = literalText(lit)!;
          const entry = `${rel}: ${text}`;
          if (hasProse(text) && !ALLOWED.has(entry)) found.push(`${entry}  (line ${source.getLineAndCharacterOfPosition(lit.getStart()).line + 1})`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return found;
}

describe("user-facing text goes through the i18n table", () => {
  // Parses every source file with the TypeScript compiler: seconds on a loaded 2-core machine.
  test("no English literal reaches a notice, the CLI's output, yargs or a usage/config error", () => {
    expect(scan()).toEqual([]);
  }, 30_000);

  test("every allowlisted exception still exists (a stale entry would hide a new one)", () => {
    const all = new Set<string>();
    for (const file of tsFiles(SRC)) {
      const rel = relative(SRC, file).split("\\").join("/");
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (n: ts.Node): void => {
        const text = literalText(n);
        if (text !== undefined) all.add(`${rel}: ${text}`);
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
    expect([...ALLOWED].filter((e) => !all.has(e))).toEqual([]);
  }, 30_000);
});
