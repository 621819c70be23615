// The exit-code matrix of one hook, with real processes through a real shell: 0 (+ JSON decisions), 2 (block with
// stderr), 1 (failure, not blocking), 127 and "not executable" (could not start: a failure, never a silent deny),
// a timeout (the whole process group is killed), failClosed; HTTP hooks against a real server on 127.0.0.1.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HookDispatcher } from "../../src/ext/hooks/hook-dispatcher.ts";
import type { ConfiguredHook, HookSpec } from "../../src/ext/hooks/hook-config.ts";
import type { HookOutcome } from "../../src/ext/hooks/hook-outcome.ts";
import { HookScripts } from "../support/hook-scripts.ts";

let dir = "";
let scripts: HookScripts;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-hook-exit-"));
  scripts = new HookScripts(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function dispatcher(hooks: ConfiguredHook[], failures: HookOutcome[] = []): HookDispatcher {
  return new HookDispatcher({
    hooks: () => hooks,
    common: () => ({ session_id: "s1", transcript_path: "", cwd: dir, permission_mode: "default" }),
    projectRoot: dir,
    env: { PATH: process.env.PATH, HOME: dir },
    onFailure: (o) => failures.push(o),
  });
}
const pre = (spec: HookSpec, matcher?: string): ConfiguredHook => ({ event: "PreToolUse", ...(matcher ? { matcher } : {}), spec, source: "user" });
const cmd = (command: string, extra: Partial<{ timeout: number; failClosed: boolean }> = {}): HookSpec => ({ type: "command", command, ...extra });
const fire = (d: HookDispatcher) => d.fire("PreToolUse", { tool_name: "exec", tool_input: { command: "ls" }, tool_use_id: "c1" });

describe("command hooks: exit codes", () => {
  test("exit 0 with JSON: the decision, reason, updatedInput and additionalContext are read; the event JSON arrived on stdin", async () => {
    const c = scripts.command("ok", { stdout: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check", updatedInput: { command: "ls -la" }, additionalContext: "ctx" } } });
    const r = await fire(dispatcher([pre(cmd(c))]));
    expect(r.decision).toBe("ask");
    expect(r.reasons).toEqual(["check"]);
    expect(r.updatedInput).toEqual({ command: "ls -la" });
    expect(r.contexts).toEqual(["ctx"]);
    const input = scripts.inputs("ok")[0]!;
    expect(input).toMatchObject({ session_id: "s1", cwd: dir, hook_event_name: "PreToolUse", tool_name: "exec", tool_input: { command: "ls" }, tool_use_id: "c1" });
  });

  test("exit 0 with Claude Code's legacy top-level decision: block", async () => {
    const r = await fire(dispatcher([pre(cmd(scripts.command("legacy", { stdout: { decision: "block", reason: "nope" } })))]));
    expect(r.decision).toBe("deny");
    expect(r.reasons).toEqual(["nope"]);
  });

  test("exit 2 blocks with stderr as the reason", async () => {
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(scripts.command("two", { stderr: "rm is not allowed here", exit: 2 })))], failures));
    expect(r.decision).toBe("deny");
    expect(r.reasons).toEqual(["rm is not allowed here"]);
    expect(failures).toEqual([]);
  });

  test("exit 1 is a hook failure: reported, not blocking", async () => {
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(scripts.command("one", { stderr: "boom", exit: 1 })))], failures));
    expect(r.decision).toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(failures[0]!.failure).toContain("exit 1");
    expect(failures[0]!.failure).toContain("boom");
  });

  test("exit 1 with failClosed blocks", async () => {
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(scripts.command("fc", { exit: 1 }), { failClosed: true }))], failures));
    expect(r.decision).toBe("deny");
    expect(r.reasons[0]).toContain("failClosed");
    expect(failures).toHaveLength(1);
  });

  test("127 (a missing interpreter or command) is a failure that could not start, never a silent deny", async () => {
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd("/no/such/interpreter-xyz --flag"))], failures));
    expect(r.decision).toBeUndefined();
    expect(failures[0]!.failure).toContain("could not start");
    expect(failures[0]!.failure).toContain("127");
  });

  test("a script that is not executable is a failure that could not start (126)", async () => {
    const file = join(dir, "noexec.sh");
    writeFileSync(file, "#!/bin/sh\nexit 2\n");
    chmodSync(file, 0o644);
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(`'${file}'`))], failures));
    expect(r.decision).toBeUndefined();
    expect(failures[0]!.failure).toContain("could not start");
    expect(failures[0]!.failure).toContain("126");
  });

  test("a timeout kills the hook's whole process group (a background child too) and is a failure", async () => {
    const pidFile = join(dir, "child.pid");
    const command = `sleep 30 & echo $! > '${pidFile}'; wait`;
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(command, { timeout: 0.5 }))], failures));
    expect(r.decision).toBeUndefined();
    expect(failures[0]!.failure).toContain("timed out");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    // Gone, or a zombie waiting for its reaper: either way no longer running.
    const running = () => {
      try {
        return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && running(); i++) await Bun.sleep(20);
    expect(running()).toBe(false);
  });

  test("plain stdout is context on UserPromptSubmit, ignored on PreToolUse", async () => {
    const c = scripts.command("plain", { stdout: "remember the style guide" });
    const hooks: ConfiguredHook[] = [
      { event: "UserPromptSubmit", spec: cmd(c), source: "user" },
      pre(cmd(c)),
    ];
    const d = dispatcher(hooks);
    expect((await d.fire("UserPromptSubmit", { prompt: "hi" })).contexts).toEqual(["remember the style guide"]);
    expect((await fire(d)).contexts).toEqual([]);
  });
});

describe("combining and matching", () => {
  test("hooks of one event run concurrently and combine deny > ask > allow", async () => {
    // Each waits for the other's marker: only concurrent runs finish before the timeout.
    const a = join(dir, "a.mark");
    const b = join(dir, "b.mark");
    const wait = (f: string) => `i=0; while [ ! -e '${f}' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e '${f}' ] || exit 1`;
    const allow = scripts.command("allow", { extra: `touch '${a}'; ${wait(b)}; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'` });
    const deny = scripts.command("deny", { extra: `touch '${b}'; ${wait(a)}; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'` });
    const ask = scripts.command("ask", { stdout: { hookSpecificOutput: { permissionDecision: "ask" } } });
    const failures: HookOutcome[] = [];
    const r = await fire(dispatcher([pre(cmd(allow)), pre(cmd(ask)), pre(cmd(deny))], failures));
    expect(failures).toEqual([]);
    expect(r.decision).toBe("deny");
    expect(r.reasons).toEqual(["no"]);
    const r2 = await fire(dispatcher([pre(cmd(scripts.command("al", { stdout: { permissionDecision: "allow" } }))), pre(cmd(ask))]));
    expect(r2.decision).toBe("ask");
  });

  test("matchers: `|` alternatives, globs, mcp__server__*, regexes and Claude Code's tool names", async () => {
    const d = (matcher: string) => dispatcher([pre(cmd("true"), matcher)]);
    const m = (matcher: string, tool: string) => d(matcher).matching("PreToolUse", { tool_name: tool }).length === 1;
    expect(m("write|edit", "edit")).toBe(true);
    expect(m("write|edit", "exec")).toBe(false);
    expect(m("Bash", "exec")).toBe(true);
    expect(m("Edit|Write", "write")).toBe(true);
    expect(m("mcp__github__*", "mcp__github__create_issue")).toBe(true);
    expect(m("mcp__github__*", "mcp__gitlab__x")).toBe(false);
    expect(m("mcp__.*__read", "mcp__fs__read")).toBe(true);
    expect(m("", "anything")).toBe(true);
    expect(m("*", "anything")).toBe(true);
    expect(m("re*", "read")).toBe(true);
  });
});

describe("http hooks", () => {
  test("a 2xx answer carries the decision; the body POSTed is the event JSON; a 500 is a failure", async () => {
    const bodies: unknown[] = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (req) => {
        bodies.push(await req.json());
        const url = new URL(req.url);
        if (url.pathname === "/fail") return new Response("down", { status: 500 });
        return Response.json({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "http says no" } });
      },
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const r = await fire(dispatcher([pre({ type: "http", url: `${base}/ok` })]));
      expect(r.decision).toBe("deny");
      expect(r.reasons).toEqual(["http says no"]);
      expect(bodies[0]).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "exec" });
      const failures: HookOutcome[] = [];
      const r2 = await fire(dispatcher([pre({ type: "http", url: `${base}/fail` })], failures));
      expect(r2.decision).toBeUndefined();
      expect(failures[0]!.failure).toContain("500");
      const r3 = await fire(dispatcher([pre({ type: "http", url: `${base}/fail`, failClosed: true })]));
      expect(r3.decision).toBe("deny");
    } finally {
      server.stop(true);
    }
  });
});

test("the dispatcher never throws when no hook matches", async () => {
  const r = await dispatcher([]).fire("Stop", { stop_hook_active: false });
  expect(r.outcomes).toEqual([]);
  expect(existsSync(join(dir, "log"))).toBe(true);
});
