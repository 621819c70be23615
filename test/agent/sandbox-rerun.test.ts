// The tool host with the real sandbox: an exec inside the project runs without approval; when the sandbox makes it
// fail, the user is asked whether to run it again outside (never answered by bypass or rules, "always" remembers
// nothing); headless without a terminal the question is declined and reported.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToolHost } from "../../src/agent/tool-host-impl.ts";
import type { ToolRunContext } from "../../src/agent/tool-host.ts";
import { createPermissionPolicy } from "../../src/tool/permission.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import type { PermissionMode } from "../../src/protocol/events.ts";
import { bwrapUnavailable, sandboxFixture, type SandboxFixture } from "../sandbox/support.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

const why = await bwrapUnavailable();
if (why) console.warn(`sandbox re-run tests skipped: ${why}`);

let f: SandboxFixture | undefined;
let h: Harness | undefined;
afterEach(() => {
  f?.cleanup();
  h?.cleanup();
  f = undefined;
  h = undefined;
});

type Answer = Awaited<ReturnType<ToolRunContext["requestApproval"]>>;

function host(fx: SandboxFixture, mode: PermissionMode) {
  const policy = createPermissionPolicy({
    homeDir: fx.chatcliHome,
    projectRoot: fx.project,
    userHome: fx.home,
    mode,
    sandbox: { mode: fx.runtime.mode, get active() { return fx.runtime.status().state === "active"; }, network: fx.runtime.network },
  });
  return createToolHost({
    projectRoot: fx.project,
    cwd: fx.project,
    paths: createPathPolicy({ projectRoot: fx.project, extraReadPaths: [] }),
    policy,
    env: { PATH: process.env.PATH, HOME: fx.home },
    sandbox: fx.runtime,
  });
}

async function run(fx: SandboxFixture, mode: PermissionMode, command: string, answer: Answer) {
  const asked: Array<{ tool: string; action: string; reason: string }> = [];
  const ctx: ToolRunContext = {
    signal: new AbortController().signal,
    onUpdate: () => undefined,
    requestApproval: async (req) => {
      asked.push(req);
      return answer;
    },
  };
  const r = await host(fx, mode).run({ id: "c1", name: "exec", args: { command } }, ctx);
  return { r, asked };
}

describe.skipIf(why !== undefined)("re-run outside the sandbox (real bwrap)", () => {
  test("inside the project: no approval at all", async () => {
    f = await sandboxFixture();
    const { r, asked } = await run(f, "default", "echo ok > made.txt", "deny");
    expect(asked).toEqual([]);
    expect(r.isError).toBe(false);
    expect(readFileSync(join(f.project, "made.txt"), "utf8")).toBe("ok\n");
  });

  test("blocked by the sandbox → asked; approved → it runs again outside", async () => {
    f = await sandboxFixture();
    const target = join(f.home, "outside");
    mkdirSync(target);
    const { r, asked } = await run(f, "default", `echo ran > ${target}/x.txt`, "once");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.tool).toBe("exec-unsandboxed");
    expect(asked[0]!.reason).toContain("OUTSIDE the sandbox");
    expect(asked[0]!.reason).toContain("Read-only file system");
    expect(readFileSync(join(target, "x.txt"), "utf8")).toBe("ran\n");
    expect(r.text).toContain("approved running this command again outside the sandbox");
    expect(r.details).toMatchObject({ rerunOutsideSandbox: true });
  });

  test("declined → nothing ran outside; the model is told the sandbox blocked it and the user declined", async () => {
    f = await sandboxFixture();
    const target = join(f.home, "outside");
    mkdirSync(target);
    const { r } = await run(f, "default", `echo ran > ${target}/x.txt`, "deny");
    expect(existsSync(join(target, "x.txt"))).toBe(false);
    expect(r.isError).toBe(true);
    expect(r.text).toContain("[sandbox]");
    expect(r.text).toContain("declined");
  });

  test("bypass does not answer it, and 'always' remembers nothing", async () => {
    f = await sandboxFixture();
    const target = join(f.home, "outside");
    mkdirSync(target);
    const { asked } = await run(f, "bypass", `echo x > ${target}/x.txt`, "always");
    expect(asked.map((a) => a.tool)).toEqual(["exec-unsandboxed"]);
    expect(readFileSync(join(target, "x.txt"), "utf8")).toBe("x\n");
    expect(existsSync(join(f.project, ".chatcli", "coder_policy.json"))).toBe(false);
  });

  test("a command approved because it may change a protected path runs outside the sandbox: one question, not two", async () => {
    f = await sandboxFixture();
    const { r, asked } = await run(f, "default", "echo '[user]' >> .git/config && echo '  name = tester' >> .git/config", "once");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.tool).toBe("exec");
    expect(asked[0]!.reason).toContain("runs outside the sandbox");
    expect(r.isError).toBe(false);
    expect(readFileSync(join(f.project, ".git", "config"), "utf8")).toContain("tester");
  });

  test("headless with no terminal: the re-run is declined and reported", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "exec", args: { command: "echo pwned >> .git/config" } }] }, { text: "done" }] });
    writeFileSync(join(h.project, ".git", "config"), "[core]\n");
    await h.run("go");
    expect(readFileSync(join(h.project, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(h.denied).toEqual(["echo pwned >> .git/config"]);
    const result = h.of("tool.completed")[0]!;
    expect(result.result).toContain("declined");
  });
});
