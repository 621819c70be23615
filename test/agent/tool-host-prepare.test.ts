import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { toolResultForPeople } from "../../src/ui/shared/tool-error-line.ts";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolHost } from "../../src/agent/tool-host-impl.ts";
import type { ToolRunContext } from "../../src/agent/tool-host.ts";
import { createPermissionPolicy, type PermissionRequest } from "../../src/tool/permission.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import { editTool } from "../../src/tool/builtin/edit.ts";
import { createConfigGuard } from "../../src/tool/permission/config-guard.ts";

let dir: string;
let project: string;
let home: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-prepare-"));
  project = join(dir, "project");
  home = join(dir, "home");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function host(opts: { rules?: unknown; seen?: PermissionRequest[]; snapshots?: string[] } = {}) {
  if (opts.rules) {
    mkdirSync(join(project, ".chatcli"), { recursive: true });
    writeFileSync(join(project, ".chatcli", "coder_policy.json"), JSON.stringify(opts.rules));
  }
  const policy = createPermissionPolicy({ homeDir: home, projectRoot: project, userHome: join(dir, "userhome") });
  // The real policy, recording what it is asked.
  const spied = new Proxy(policy, {
    get: (target, key) => (key === "decide" ? (req: PermissionRequest) => (opts.seen?.push(req), target.decide(req)) : Reflect.get(target, key)),
  });
  return createToolHost({
    projectRoot: project,
    cwd: project,
    paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }),
    policy: spied,
    env: {},
    beforeFileChange: (p) => opts.snapshots?.push(p),
  });
}

function ctx(approvals: Array<{ tool: string; action: string; diff?: string }>): ToolRunContext {
  return { signal: new AbortController().signal, onUpdate: () => {}, requestApproval: async (r) => (approvals.push(r), "once") };
}

describe("one preparation step", () => {
  test("argument aliases are normalised before the policy: read {filename: .env} hits `deny read .env`", async () => {
    writeFileSync(join(project, ".env"), "SECRET=hunter22\n");
    const seen: PermissionRequest[] = [];
    const h = host({ rules: { rules: [{ pattern: "read .env", action: "deny" }] }, seen });
    for (const key of ["filename", "file_path", "file", "path"]) {
      const r = await h.run({ id: "1", name: "read", args: { [key]: ".env" } }, ctx([]));
      expect(r.isError).toBe(true);
      expect(r.errorCode).toBe("permission_denied");
      expect(r.text).not.toContain("hunter22");
    }
    expect(seen.every((s) => s.args.path === ".env" && s.path === ".env")).toBe(true);
  });

  test("exec `cmd` alias reaches the policy as the command", async () => {
    const h = host({ rules: { rules: [{ pattern: "exec echo", action: "deny" }] } });
    const r = await h.run({ id: "1", name: "exec", args: { cmd: "echo hi" } }, ctx([]));
    expect(r.errorCode).toBe("permission_denied");
  });

  test("write via `file_path`: the snapshot and the write see the same resolved path", async () => {
    const snapshots: string[] = [];
    const approvals: Array<{ tool: string; action: string; diff?: string }> = [];
    const h = host({ snapshots });
    const r = await h.run({ id: "1", name: "write", args: { file_path: "a.txt", contents: "new\n" } }, ctx(approvals));
    expect(r.isError).toBe(false);
    expect(snapshots).toEqual([join(project, "a.txt")]);
    expect(readFileSync(join(project, "a.txt"), "utf8")).toBe("new\n");
    expect(approvals[0]?.diff).toContain("+new");
  });

  test("invalid arguments are refused before anyone is asked", async () => {
    const approvals: Array<{ tool: string; action: string }> = [];
    const r = await host().run({ id: "1", name: "write", args: { path: "a.txt" } }, ctx(approvals));
    expect(r.errorCode).toBe("invalid_args");
    expect(approvals).toHaveLength(0);
  });
});

describe("protected paths through the host", () => {
  test("bypass: a write through a symlink into <project>/.chatcli asks, and 'deny' leaves the file alone", async () => {
    const cfgDir = join(project, ".chatcli");
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, "settings.json"), "{}\n");
    symlinkSync(cfgDir, join(project, "cfg"));
    const policy = createPermissionPolicy({ homeDir: home, projectRoot: project, userHome: join(dir, "userhome"), mode: "bypass" });
    const h = createToolHost({ projectRoot: project, cwd: project, paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }), policy, env: {} });
    const asked: string[] = [];
    const r = await h.run(
      { id: "1", name: "write", args: { filename: "cfg/settings.json", content: '{"permissionMode":"bypass"}' } },
      { signal: new AbortController().signal, onUpdate: () => {}, requestApproval: async (q) => (asked.push(q.reason), "deny") },
    );
    expect(r.errorCode).toBe("permission_denied");
    expect(asked[0]).toContain("chatcli");
    expect(readFileSync(join(cfgDir, "settings.json"), "utf8")).toBe("{}\n");
  });
});

describe("the approval diff is what edit writes", () => {
  test("`$&`, `$$` and CRLF: the diff's + lines are exactly the written lines", async () => {
    const file = join(project, "p.txt");
    writeFileSync(file, "price 9\r\ncost 5\r\nkeep\r\n");
    const approvals: Array<{ tool: string; action: string; diff?: string }> = [];
    const args = { path: "p.txt", edits: [{ old_string: "price 9\ncost 5", new_string: "price $$9\ncost $&5" }, { old_string: "keep", new_string: "$'k$`" }] };
    const r = await host().run({ id: "1", name: "edit", args }, ctx(approvals));
    expect(r.isError).toBe(false);
    const written = readFileSync(file, "utf8");
    expect(written).toBe("price $$9\r\ncost $&5\r\n$'k$`\r\n");
    const diff = approvals[0]?.diff ?? "";
    const added = diff.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).map((l) => l.slice(1));
    expect(added.map((l) => l.replace(/\r$/, ""))).toEqual(["price $$9", "cost $&5", "$'k$`"]);
  });

  test("edit's preview text is byte for byte the text its write produces (CRLF kept)", async () => {
    const file = join(project, "q.txt");
    writeFileSync(file, "a $1\r\nb\r\n");
    const paths = createPathPolicy({ projectRoot: project, extraReadPaths: [] });
    const args = editTool.prepare({ file_path: "q.txt", old_str: "a $1\nb", new_str: "$&\n$$\n$'" });
    if (!args.ok) throw new Error(args.message);
    const preview = await editTool.preview(args.args, { projectRoot: project, paths });
    const out = await editTool.run(args.args, { projectRoot: project, cwd: project, paths, signal: new AbortController().signal, callId: "1", env: {} });
    expect(out.isError).toBeFalsy();
    expect(preview?.after).toBe(readFileSync(file, "utf8"));
    expect(preview?.after).toBe("$&\r\n$$\r\n$'\r\n");
  });

  test("replace_all with `$&` in the replacement", async () => {
    const file = join(project, "r.txt");
    writeFileSync(file, "a x a\n");
    const approvals: Array<{ tool: string; action: string; diff?: string }> = [];
    await host().run({ id: "1", name: "edit", args: { path: "r.txt", old_string: "a", new_string: "$&$&", replace_all: true } }, ctx(approvals));
    expect(readFileSync(file, "utf8")).toBe("$&$& x $&$&\n");
    expect(approvals[0]?.diff).toContain("+$&$& x $&$&");
  });
});

describe("the protected-file guard around exec nobody approved", () => {
  const guardHost = (mode: "bypass" | "default") => {
    const policy = createPermissionPolicy({ homeDir: home, projectRoot: project, userHome: join(dir, "userhome"), mode });
    return createToolHost({
      projectRoot: project,
      cwd: project,
      paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }),
      policy,
      env: { PATH: process.env.PATH },
      configGuard: createConfigGuard({ chatcliHome: home, projectRoot: project, userHome: join(dir, "userhome") }),
    });
  };
  const setup = () => {
    mkdirSync(join(project, ".git", "hooks"), { recursive: true });
    mkdirSync(join(project, ".chatcli"), { recursive: true });
    writeFileSync(join(project, ".git", "config"), "[core]\n");
    writeFileSync(join(project, ".git", "hooks", "pre-push"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    writeFileSync(join(project, ".chatcli", "settings.json"), "{}\n");
    // A link made earlier: the command's words name nothing protected.
    symlinkSync(join(project, ".git"), join(project, "g"));
    symlinkSync(join(project, ".chatcli"), join(project, "c"));
  };

  test("bypass: changes made through an innocent-looking path are put back and reported", async () => {
    setup();
    const r = await guardHost("bypass").run(
      { id: "1", name: "exec", args: { command: "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > g/config; printf x > g/hooks/post-checkout; printf '{\"permissionMode\":\"bypass\"}' > c/settings.json; rm g/hooks/pre-push" } },
      ctx([]),
    );
    expect(readFileSync(join(project, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(readFileSync(join(project, ".chatcli", "settings.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(project, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(readFileSync(join(project, ".git", "hooks", "pre-push"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(statSync(join(project, ".git", "hooks", "pre-push")).mode & 0o777).toBe(0o755);
    expect(r.text).toContain("put back protected files");
    expect(r.details?.restoredProtected).toHaveLength(4);
    // A person sees the command's output and a line of their own, not the note addressed to the model.
    const shown = toolResultForPeople({ name: "exec", isError: r.isError, result: r.text, ...(r.details ? { details: r.details } : {}) });
    expect(shown).not.toContain("needs the user's approval: name the file");
    expect(shown).toContain("chatcli put back protected files this command changed:");
  });

  test("an exec the user approved keeps its changes (git remote add, git push -u write .git/config)", async () => {
    setup();
    const r = await guardHost("default").run({ id: "1", name: "exec", args: { command: "printf '[core]\\n[remote]\\n' > g/config" } }, ctx([]));
    expect(r.text).not.toContain("put back");
    expect(readFileSync(join(project, ".git", "config"), "utf8")).toBe("[core]\n[remote]\n");
  });
});
