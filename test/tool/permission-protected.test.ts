import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionMode } from "../../src/protocol/events.ts";
import { createPermissionPolicy, type PermissionRequest } from "../../src/tool/permission.ts";

let dir: string;
let home: string;
let project: string;
const userHome = "/home/tester";
const MODES: PermissionMode[] = ["default", "accept-edits", "bypass", "plan"];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-protected-"));
  home = join(dir, "custom-home");
  project = join(dir, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const policy = (mode: PermissionMode) => createPermissionPolicy({ homeDir: home, projectRoot: project, userHome, mode });
const exec = (command: string): PermissionRequest => ({ tool: "exec", args: { command } });

describe("exec naming a protected path asks in every mode", () => {
  const attacks = (h: string) => [
    "cat f | sort --outp=$HOME/.chatcli/settings.json",
    "sort -o ~/.chatcli/coder_policy.json f",
    "echo '{\"permissionMode\":\"bypass\"}' > .chatcli/settings.json",
    "cp evil .chat''cli/settings.json",
    "cp evil .ch*/settings.json",
    "cp evil .c$X/settings.json",
    "cp evil {.chatcli,x}/coder_policy.json",
    "cp evil .g?t/config",
    "sudo tee .git/config < f",
    "env A=1 bash -c 'echo touch X > .git/hooks/pre-commit'",
    "find . -name x -exec cp {} .git/hooks/post-checkout \\;",
    "ls | xargs -I{} cp {} .git/hooks/",
    "echo 'alias ls=rm' >> ~/.bashrc",
    "cp key ~/.ss?/authorized_keys",
    "cp x $CHATCLI_HOME/settings.json",
    `cp x ${h}/settings.json`,
    `cp x ${h}/../custom-home/coder_policy.json`,
    "D=.chatcli; cp x $D/settings.json",
    "python3 -c \"open('.git/config','w').write('x')\"",
    "git config --file=.git/config core.fsmonitor 'touch X'",
  ];

  test("the attack words ask (source protected); plan mode never allows them", () => {
    for (const mode of MODES) {
      const p = policy(mode);
      for (const c of attacks(home)) {
        const d = p.decide(exec(c));
        // plan: deny when the read-only check sees a write, else still ask; never allow.
        if (mode === "plan") expect({ c, allowed: d.action === "allow" }).toEqual({ c, allowed: false });
        else expect({ c, mode, action: d.action, source: d.source }).toEqual({ c, mode, action: "ask", source: "protected" });
      }
    }
  });

  test("everyday commands that merely skip .git or use variables are not protected", () => {
    const p = policy("default");
    const quiet = [
      "git status",
      "git diff HEAD~1 -- src",
      "grep -rn foo . --exclude-dir=.git",
      "find . -name '*.ts' -not -path './.git/*'",
      "rg foo -g '!.git'",
      "cat .gitignore",
      "cat .git/HEAD",
      "ls .git/refs/heads",
      "ls $DIR",
      "ls -la",
      "cat package.json | head",
    ];
    for (const c of quiet) expect({ c, source: p.decide(exec(c)).source }).not.toEqual({ c, source: "protected" });
    expect(p.decide(exec("git status")).action).toBe("allow");
    expect(p.decide(exec("grep -rn foo . --exclude-dir=.git")).action).toBe("allow");
  });

  test("read-only looks at saved tool output under chatcli's home do not ask; writes there and config reads do", () => {
    const saved = join(home, "sessions", "20260101-1-abc", "tool-results", "call_1.txt");
    const p = policy("default");
    expect(p.decide(exec(`head -50 ${saved}`))).toMatchObject({ action: "allow" });
    expect(p.decide(exec(`grep -n error ${saved}`))).toMatchObject({ action: "allow" });
    expect(p.decide(exec(`cat ${join(home, "settings.json")}`))).toMatchObject({ action: "ask", source: "protected" });
    expect(p.decide(exec(`cp x ${saved}`))).toMatchObject({ action: "ask", source: "protected" });
    expect(p.decide(exec(`head ${join(home, "sessions", "..", "settings.json")}`))).toMatchObject({ action: "ask", source: "protected" });
    expect(p.decide(exec(`head ${join(home, "sessions")}/*`))).toMatchObject({ action: "ask", source: "protected" });
  });

  test("exec's cwd inside a protected directory asks too", () => {
    for (const mode of ["default", "bypass", "accept-edits"] as const) {
      for (const cwd of [".git/hooks", ".chatcli", join(project, ".git"), home]) {
        expect(policy(mode).decide({ tool: "exec", args: { command: "printf x > pre-commit", cwd } })).toMatchObject({ action: "ask", source: "protected" });
      }
      expect(policy(mode).decide({ tool: "exec", args: { command: "ls", cwd: "src" } }).source).not.toBe("protected");
    }
  });

  test("a deny rule still wins over protected", () => {
    mkdirSync(join(project, ".chatcli"), { recursive: true });
    writeFileSync(join(project, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "exec sort", action: "deny" }] }));
    expect(policy("bypass").decide(exec("sort -o .chatcli/settings.json f"))).toMatchObject({ action: "deny", source: "rule" });
  });
});

describe("write/edit of a protected path asks in every mode", () => {
  const targets = () => [
    join(project, ".chatcli", "settings.json"),
    join(project, ".chatcli", "coder_policy.json"),
    join(project, ".git", "config"),
    join(project, ".git", "hooks", "pre-commit"),
    join(project, "vendor", "lib", ".git", "config"),
    join(home, "settings.json"),
    join(home, "coder_policy.json"),
    `${userHome}/.zshrc`,
    `${userHome}/.profile`,
    `${userHome}/.ssh/authorized_keys`,
    `${userHome}/.gitconfig`,
    "/etc/hosts",
  ];
  test("write and edit in default, accept-edits and bypass ask; plan denies", () => {
    for (const mode of MODES) {
      const p = policy(mode);
      for (const path of targets()) {
        for (const tool of ["write", "edit"]) {
          const d = p.decide({ tool, args: {}, path });
          if (mode === "plan") expect({ path, action: d.action }).toEqual({ path, action: "deny" });
          else expect({ path, mode, tool, action: d.action, source: d.source }).toEqual({ path, mode, tool, action: "ask", source: "protected" });
        }
      }
    }
  });
  test("ordinary project files keep their mode defaults", () => {
    expect(policy("bypass").decide({ tool: "write", args: {}, path: join(project, "src/a.ts") }).action).toBe("allow");
    expect(policy("accept-edits").decide({ tool: "edit", args: {}, path: join(project, ".gitignore") }).action).toBe("allow");
    expect(policy("default").decide({ tool: "read", args: {}, path: join(project, ".git", "config") }).action).toBe("allow");
  });
  test("an allow rule does not open a protected path", () => {
    mkdirSync(join(project, ".chatcli"), { recursive: true });
    writeFileSync(join(project, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "write", action: "allow" }, { pattern: "exec", action: "allow" }] }));
    const p = policy("default");
    expect(p.decide({ tool: "write", args: {}, path: join(project, ".chatcli", "settings.json") })).toMatchObject({ action: "ask", source: "protected" });
    expect(p.decide(exec("cp x .git/config"))).toMatchObject({ action: "ask", source: "protected" });
  });
});

describe("remember never persists an 'always' for a protected call", () => {
  test("the answer counts for that call only; nothing is written", async () => {
    const p = policy("accept-edits");
    const policyFile = join(project, ".chatcli", "coder_policy.json");
    const reqs: PermissionRequest[] = [
      { tool: "write", args: {}, path: join(project, ".chatcli", "settings.json") },
      { tool: "edit", args: {}, path: join(home, "coder_policy.json") },
      exec("sort -o .git/config f"),
    ];
    for (const req of reqs) {
      expect(await p.remember("always", req)).toEqual([]);
      expect(p.decide(req)).toMatchObject({ action: "ask", source: "protected" });
    }
    expect(existsSync(policyFile)).toBe(false);
    // A deny_always is still kept: it only narrows what may run.
    expect(await p.remember("deny_always", reqs[2] as PermissionRequest)).toEqual(["exec sort -o .git/config f"]);
    expect(readFileSync(policyFile, "utf8")).toContain("deny");
    // And an ordinary "always" still works.
    expect(await p.remember("always", exec("npm test"))).toEqual(["exec npm test"]);
  });
});

describe("sensitive reads see through globs", () => {
  test("cat ~/.ss?/id_rsa, /proc/*/environ and friends ask in default mode", () => {
    const p = policy("default");
    for (const c of ["cat ~/.ss?/id_rsa", "cat ~/.ssh/id_rsa", "cat /proc/$PPID/environ", "cat /proc/*/environ", "cat /proc/self/environ", "cat ~/.a[w]s/credentials", "head ~/.k*/config"]) {
      expect({ c, action: p.decide(exec(c)).action }).toEqual({ c, action: "ask" });
    }
    expect(p.decide(exec("cat /proc/cpuinfo")).action).toBe("allow");
  });
});
