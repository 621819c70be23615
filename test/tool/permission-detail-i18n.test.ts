// Issue 15 item 10: the per-program findings behind a permission reason (flag allowlists, non-literal words, the
// vetted git subcommands, safety-immune commands and paths, lines the dangerous check cannot clear) are table
// messages. The model's English reason is what it always was; the person's pt-BR reasonText has no English left.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render, setLang } from "../../src/i18n/i18n.ts";
import { createPermissionPolicy, type PermissionRequest } from "../../src/tool/permission.ts";

let dir: string;
let project: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-detail-i18n-"));
  project = join(dir, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(() => {
  setLang("en");
  rmSync(dir, { recursive: true, force: true });
});

type Mode = "default" | "bypass";
const policy = (mode: Mode) => createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: project, userHome: "/home/tester", mode });
const exec = (command: string): PermissionRequest => ({ tool: "exec", args: { command } });

/**
 * [what the case reaches, request, action, a fragment of today's English reason (it must not change), mode]. The
 * dangerous-maybe cases run in bypass mode: there the check turns what would be allowed into a question.
 */
const CASES: ReadonlyArray<[string, PermissionRequest, "ask" | "deny", string, Mode?]> = [
  ["unknown long flag (flag-spec)", exec("ls --frobnicate"), "ask", "ls --frobnicate is not known to be read-only (unknown option --frobnicate)"],
  ["forbidden option (flag-spec)", exec("sort -o out.txt in.txt"), "ask", "(option -o)"],
  ["option value refused (flag-spec)", exec("git log --format=%GS"), "ask", "(value of --format)"],
  ["$ expansion (nonLiteral)", exec("cat $HOME/notes"), "ask", "not a read-only command: $HOME/notes holds a $ expansion"],
  ["glob (nonLiteral)", exec("cat *.txt"), "ask", "*.txt is a glob pattern"],
  ["/dev (nonLiteral)", exec("cat /dev/sda"), "ask", "/dev/sda reaches into /proc or /dev (another process's environment or memory)"],
  ["another process's environment (safety-immune)", exec("cat /proc/1/environ"), "ask", "touches another process's environment always needs approval"],
  ["unknown program (read-only.ts)", exec("frobnicate x"), "ask", "frobnicate is not a known read-only program"],
  ["git subcommand outside the vetted set", exec("git bisect start"), "ask", "git bisect is not a vetted read-only git command"],
  ["git remote update", exec("git remote update"), "ask", "git remote beyond listing (show and update talk to the remote)"],
  ["git config write", exec("git config user.name x"), "ask", "git config without --get/--list writes"],
  ["sed script (read-only-commands)", exec("sed -n w/tmp/x f"), "ask", "the sed script may write files or run commands"],
  ["printenv (read-only-commands)", exec("printenv"), "ask", "printenv without names prints every secret in the environment"],
  ["recursive search outside (read-only-commands)", exec("grep -r foo /"), "ask", "a recursive search outside the project"],
  ["find test (read-only-commands)", exec("find . -delete"), "ask", "find -delete is not a read-only test"],
  ["SQL delete (safety-immune)", exec("psql -c 'delete from users'"), "ask", "SQL delete without a real WHERE always needs approval"],
  ["SQL drop (safety-immune)", exec("psql -c 'drop table users'"), "ask", "SQL 'drop table' always needs approval"],
  ["rm of an absolute path (safety-immune)", exec("rm /tmp/x"), "ask", "rm of an absolute path always needs approval"],
  ["system path (safety-immune)", { tool: "read", args: { path: "/etc/shadow" } }, "ask", "read on a system path /etc/shadow always needs approval"],
  ["a line that cannot be cleared (dangerous-maybe)", exec("chmod $MODE notes.txt"), "ask", "chmod is given a computed argument ($MODE)", "bypass"],
  ["xargs (dangerous-maybe)", exec("ls | xargs chmod 600"), "ask", "xargs gives chmod arguments known only at run time", "bypass"],
  ["unparsed line (dangerous-maybe)", exec("chmod 600 'unterminated"), "ask", "the line could not be parsed and runs chmod", "bypass"],
];

/** Words Portuguese borrows as they are, or a subcommand named in prose (`show and update`). */
const SAME = new Set(["glob", "script", "show", "update"]);

/** Words of prose: code (quoted, flags, paths, $vars, the request's own words) and names (SQL, WHERE) left out. */
function proseWords(s: string, code: string): Set<string> {
  const codeWords = new Set(code.toLowerCase().split(/[^a-z]+/));
  const text = s
    .replace(/`[^`]*`|"[^"]*"|'[^']*'/g, " ")
    .replace(/(^|\s)--?[\w-]+/g, " ")
    .replace(/[\w.~$*?-]*\/[\w./<>|?*-]*/g, " ")
    .replace(/\$\w+/g, " ");
  return new Set(text.split(/[^A-Za-z']+/).filter((w) => w.length >= 3 && w !== w.toUpperCase() && !codeWords.has(w.toLowerCase()) && !SAME.has(w.toLowerCase())).map((w) => w.toLowerCase()));
}

describe("pt-BR permission reasons carry no English from the per-program checks", () => {
  for (const [name, req, action, english, mode = "default"] of CASES) {
    test(name, () => {
      setLang("pt-BR");
      const d = policy(mode).decide(req);
      expect(d.action).toBe(action);
      expect(d.reason).toContain(english);
      const code = JSON.stringify(req);
      const pt = render(d.reasonText!);
      const ptWords = proseWords(pt, code);
      const leaked = [...proseWords(d.reason, code)].filter((w) => ptWords.has(w));
      expect({ pt, leaked }).toEqual({ pt, leaked: [] });
      // The same message rendered in English is, word for word, the reason the model gets.
      expect(render(d.reasonText!, "en")).toBe(d.reason);
    });
  }

  test("the check sees an English finding left in a Portuguese frame", () => {
    const en = "not a read-only command: cat is given a computed argument";
    expect([...proseWords(en, "")].filter((w) => proseWords("não é um comando só de leitura: cat is given a computed argument", "").has(w))).toContain("computed");
  });
});
