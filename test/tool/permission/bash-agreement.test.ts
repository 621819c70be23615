/**
 * The table is not theater: each attack class is run by real bash in a temp dir, and a canary shows it really
 * does what the policy refuses to auto-allow (a file appears, or a file is deleted). The same line must not be
 * allowed in default or plan mode, and where a lexer disagreement was the cause (`\r`), our parse must see the
 * command bash runs. And for every everyday row the table allows, bash (every program replaced by a function that
 * logs its arguments) runs exactly the argv lists our parse sees.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy } from "../../../src/tool/permission.ts";
import { parseShell } from "../../../src/tool/shell/parse-shell.ts";
import { EVERYDAY } from "./exec-attack-cases.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-bash-agree-"));
  writeFileSync(join(dir, "f"), "line one\nfoo two\n");
  mkdirSync(join(dir, "victim"));
  writeFileSync(join(dir, "victim", "keep"), "x");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const git = (args: string[]) => spawnSync("git", args, { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" } });
function initRepo(): void {
  git(["init", "-q"]);
  git(["add", "f"]);
  git(["-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "x"]);
}

function runBash(command: string): void {
  const r = spawnSync("bash", ["-c", command], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" }, timeout: 10_000 });
  expect(r.error).toBeUndefined();
}

function decisions(command: string): Record<string, string> {
  const policy = createPermissionPolicy({ homeDir: join(dir, ".home"), projectRoot: dir, userHome: "/home/tester" });
  const out: Record<string, string> = {};
  for (const mode of ["default", "plan"] as const) {
    policy.setMode(mode);
    out[mode] = policy.decide({ tool: "exec", args: { command } }).action;
  }
  return out;
}

interface Case {
  name: string;
  command: string;
  /** The canary: a file bash creates, or (`gone`) the victim bash deletes. */
  canary: "X" | "gone";
  repo?: boolean;
}

const CASES: Case[] = [
  { name: "\\r is a word character, so `#` after it is not a comment", command: "echo hi \r# ; touch X", canary: "X" },
  { name: "brace expansion assembles find -exec", command: "find . {-exec,touch,X,\\;}", canary: "X" },
  { name: "an empty expansion assembles -exec", command: "find . -ex${U}ec touch X \\;", canary: "X" },
  { name: "an empty expansion assembles -delete", command: "find victim -de${U}lete", canary: "gone" },
  { name: "brace expansion assembles rm -r -f", command: "rm -{r,f} victim", canary: "gone" },
  { name: "$IFS splits an attached value", command: "sort -o${IFS}X f", canary: "X" },
  { name: "brace expansion adds a sed -e that runs a command", command: "sed -n 1p f {-e,'e touch X'}", canary: "X" },
  { name: "test -v evaluates a quoted array subscript", command: "test -v 'a[$(touch X)]'", canary: "X" },
  { name: "[ -v evaluates a quoted array subscript", command: "[ -v 'a[$(touch X)]' ]", canary: "X" },
  { name: "printf -v evaluates a quoted array subscript", command: "printf -v 'a[$(touch X)]' x", canary: "X" },
  { name: "sort takes an abbreviated --output", command: "sort --outp=X f", canary: "X" },
  { name: "sort reads -o inside a flag cluster", command: "sort -uoX f", canary: "X" },
  { name: "an ANSI-C quoted flag is still a flag", command: "sort $'--outp=X' f", canary: "X" },
  { name: "uniq writes its second operand", command: "uniq f X", canary: "X" },
  { name: "git grep -O runs a command", command: "git grep -O'touch X' foo", canary: "X", repo: true },
  { name: "git log --output writes a file", command: "git log --output=X", canary: "X", repo: true },
  { name: "git diff -U takes no separate value, so --output after it is read as an option", command: "git diff -U --output=X", canary: "X", repo: true },
  { name: "git -c through brace expansion runs core.fsmonitor", command: "git {-c,core.fsmonitor=touch\\ X} status", canary: "X", repo: true },
];

describe("bash really runs each attack class; the policy does not auto-allow it", () => {
  for (const c of CASES) {
    test(c.name, () => {
      if (c.repo) initRepo();
      const target = c.canary === "X" ? join(dir, "X") : join(dir, "victim");
      expect(existsSync(target)).toBe(c.canary === "gone");
      runBash(c.command);
      expect(existsSync(target)).toBe(c.canary === "X");
      const d = decisions(c.command);
      expect(d.default).not.toBe("allow");
      expect(d.plan).toBe("deny");
    });
  }

  test("our parse sees the command that \\r hid from the old lexer", () => {
    const r = parseShell("echo hi \r# ; touch X");
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.script.commands.map((c) => c.argv[0])).toEqual(["echo", "touch"]);
  });

  test("the dangerous \\r variant is denied even in bypass", () => {
    const policy = createPermissionPolicy({ homeDir: join(dir, ".home"), projectRoot: dir, userHome: "/home/tester", mode: "bypass" });
    expect(policy.decide({ tool: "exec", args: { command: "echo \r# ; rm -rf /" } })).toMatchObject({ action: "deny", source: "dangerous" });
    expect(policy.decide({ tool: "exec", args: { command: "find / -de${U}lete" } })).toMatchObject({ action: "deny", source: "dangerous" });
    expect(policy.decide({ tool: "exec", args: { command: "sort --outp=/etc/passwd /dev/null" } })).toMatchObject({ action: "deny", source: "dangerous" });
  });

  test("the everyday commands the table allows run cleanly in bash and create nothing", () => {
    initRepo();
    for (const command of ["ls -la", "git status", "git diff HEAD -- .", "grep -rn foo .", "cat f | head", "find . -name 'f'", "wc -l f", "git log --oneline -5"]) {
      expect(decisions(command)).toEqual({ default: "allow", plan: "allow" });
      runBash(command);
      expect(existsSync(join(dir, "X"))).toBe(false);
    }
  });

  test("for every everyday row the table allows, bash runs exactly the argv lists our parse sees", () => {
    const logs = join(dir, "argv");
    for (const command of EVERYDAY) {
      const parse = parseShell(command);
      if (!parse.ok) throw new Error(`${command}: ${parse.error}`);
      const ours = parse.script.commands.map((c) => c.argv.map((w) => w.replace(/^~(?=\/|$)/, dir)));
      // Every program becomes a function that logs its argv to a file of its own process (pipeline stages run
      // concurrently); the line's own redirections do not touch that file.
      const names = [...new Set(ours.map((a) => a[0] as string))];
      const prelude = names
        .map((n) => `${n}() { builtin printf '%s\\x1f' ${JSON.stringify(n)} "$@" >> "${logs}/$BASHPID"; builtin printf '\\x1e' >> "${logs}/$BASHPID"; }`)
        .join("\n");
      rmSync(logs, { recursive: true, force: true });
      mkdirSync(logs);
      spawnSync("bash", ["-c", `${prelude}\n${command}`], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, timeout: 10_000 });
      const theirs = readdirSync(logs)
        .flatMap((f) => readFileSync(join(logs, f), "utf8").split("\x1e"))
        .filter(Boolean)
        .map((r) => r.split("\x1f").slice(0, -1));
      const key = (a: string[][]) => a.map((x) => JSON.stringify(x)).sort();
      expect({ command, argv: key(theirs) }).toEqual({ command, argv: key(ours) });
    }
  });

});
