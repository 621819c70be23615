// The policy with an OS sandbox (PermissionPolicyOptions.sandbox): in workspace-write with a working sandbox, an
// exec inside the project is allowed; everything stronger (dangerous list, deny rules, always-ask, ask rules,
// plan mode) still wins; network requests ask; without a sandbox (absent, off, unavailable, read-only) nothing changes.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy, type PolicySandbox } from "../../src/tool/permission.ts";
import type { PermissionMode } from "../../src/protocol/events.ts";

let dir: string;
let project: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-perm-sbx-"));
  project = join(dir, "project");
  home = join(dir, "home");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const active: PolicySandbox = { mode: "workspace-write", active: true, network: false };
const policy = (sandbox?: PolicySandbox, mode: PermissionMode = "default") => createPermissionPolicy({ homeDir: home, projectRoot: project, userHome: "/home/tester", mode, ...(sandbox ? { sandbox } : {}) });
const exec = (command: string, extra: Record<string, unknown> = {}) => ({ tool: "exec", args: { command, ...extra } });

describe("exec with an active workspace-write sandbox", () => {
  test.each(["npm test", "touch made.txt", "echo hi > out.txt", "make build && ./run-tests.sh", "git add -A && git commit -m wip", "python3 script.py"])("%s → allow (runs in the sandbox)", (cmd) => {
    expect(policy().decide(exec(cmd)).action).toBe("ask");
    const d = policy(active).decide(exec(cmd));
    expect(d).toMatchObject({ action: "allow", reason: "runs in the sandbox", source: "sandbox" });
  });

  test("a working directory outside the project still asks", () => {
    expect(policy(active).decide(exec("touch x", { cwd: "/etc" })).action).toBe("ask");
    expect(policy(active).decide(exec("touch x", { cwd: "../.." })).action).toBe("ask");
    expect(policy(active).decide(exec("touch x", { cwd: "sub/dir" })).action).toBe("allow");
  });

  test("dangerous commands, deny rules, always-ask commands, ask rules and plan mode still win", () => {
    expect(policy(active).decide(exec("rm -rf /")).action).toBe("deny");
    expect(policy(active).decide(exec("sudo make install")).action).toBe("ask");
    expect(policy(active, "plan").decide(exec("touch x")).action).toBe("deny");
    mkdirSync(join(project, ".chatcli"), { recursive: true });
    writeFileSync(join(project, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "exec make *", action: "deny" }, { pattern: "exec npm publish*", action: "ask" }] }));
    expect(policy(active).decide(exec("make all")).action).toBe("deny");
    expect(policy(active).decide(exec("npm publish")).action).toBe("ask");
  });

  test("network: true asks (even for a read-only command) unless settings open the network", () => {
    expect(policy(active).decide(exec("curl https://example.com", { network: true }))).toMatchObject({ action: "ask", source: "sandbox" });
    expect(policy(active).decide(exec("ls", { network: true })).action).toBe("ask");
    expect(policy({ ...active, network: true }).decide(exec("npm install", { network: true })).action).toBe("allow");
    expect(policy(active, "bypass").decide(exec("npm install", { network: true })).action).toBe("allow");
  });

  test("read-only commands stay allowed, as without a sandbox", () => {
    expect(policy(active).decide(exec("ls -la")).action).toBe("allow");
    expect(policy(active).decide(exec("git status")).action).toBe("allow");
  });
});

describe("no sandbox: decisions as before", () => {
  test.each<[string, PolicySandbox | undefined]>([
    ["absent", undefined],
    ["off", { mode: "off", active: false, network: true }],
    ["unavailable", { mode: "workspace-write", active: false, network: false }],
    ["read-only mode", { mode: "read-only", active: true, network: false }],
  ])("%s: a write-ish exec asks", (_name, sandbox) => {
    expect(policy(sandbox).decide(exec("touch made.txt")).action).toBe("ask");
    expect(policy(sandbox).decide(exec("ls")).action).toBe("allow");
  });

  test("the sandbox's state is read live (the probe answers after the policy is created)", () => {
    let on = false;
    const live: PolicySandbox = { mode: "workspace-write", get active() { return on; }, network: false };
    const p = policy(live);
    expect(p.decide(exec("touch x")).action).toBe("ask");
    on = true;
    expect(p.decide(exec("touch x")).action).toBe("allow");
  });
});
