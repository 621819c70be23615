// A contract test per hook event: each fires at its moment with Claude Code's input fields, in the session the TUI
// drives (interactive: a person answers approvals) and in the headless one (`-p`), and each decision is honoured.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hookedSession, type HookedSession } from "../support/hooked-session.ts";
import { hooksBlock } from "../support/hook-scripts.ts";

let h: HookedSession | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const MODES = [
  { name: "headless", interactive: false },
  { name: "TUI session", interactive: true },
] as const;

const toolMessages = (hs: HookedSession, n: number) => (hs.provider.requests[n]?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

for (const mode of MODES) {
  describe(`hook events (${mode.name})`, () => {
    test("SessionStart fires when the session starts, with source/model; its context reaches the model with the first prompt", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "SessionStart", matcher: "startup", command: s.command("start", { stdout: { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "CTX-FROM-START" } } }) }]),
        replies: [{ text: "hi" }],
      });
      await h.start();
      const input = h.scripts.inputs("start");
      expect(input).toHaveLength(1);
      expect(input[0]).toMatchObject({ hook_event_name: "SessionStart", source: "startup", model: "scripted-model", cwd: h.project, permission_mode: "default" });
      expect(typeof input[0]!.session_id).toBe("string");
      await h.run("hello");
      expect(h.requestText(0)).toContain("CTX-FROM-START");
    });

    test("UserPromptSubmit gets the prompt; its context is added; exit 2 blocks the prompt (no model call) and tells the user", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) =>
          hooksBlock([
            { event: "UserPromptSubmit", command: `${s.command("ups", {})}; input=$(tail -n 1 '${join(s.dir, "log", "ups.jsonl")}'); case "$input" in *SECRET*) echo 'prompt holds a secret' >&2; exit 2;; esac; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-PROMPT"}}'` },
          ]),
        replies: [{ text: "ok" }],
      });
      await h.start();
      await h.run("please help");
      expect(h.scripts.inputs("ups")[0]).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "please help" });
      expect(h.requestText(0)).toContain("CTX-PROMPT");
      await h.run("my SECRET is 42");
      expect(h.provider.requests).toHaveLength(1);
      expect(h.of("notice").some((n) => n.text.includes("prompt holds a secret"))).toBe(true);
      expect(h.of("turn.completed").at(-1)?.stopReason).toBe("blocked");
      expect(h.wired.session.messages.some((m) => m.content.includes("SECRET"))).toBe(false);
    });

    test("PreToolUse deny (exit 2): the call does not run and the reason is fed to the model", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        mode: "bypass",
        hooks: (s) => hooksBlock([{ event: "PreToolUse", matcher: "write|edit", command: s.command("pre", { stderr: "writes are frozen today", exit: 2 }) }]),
        replies: [{ toolCalls: [{ name: "write", args: { path: "a.txt", content: "x" } }] }, { text: "done" }],
      });
      await h.start();
      await h.run("write a.txt");
      expect(existsSync(join(h.project, "a.txt"))).toBe(false);
      const input = h.scripts.inputs("pre")[0]!;
      expect(input).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "write", tool_input: { path: "a.txt", content: "x", file_path: join(h.project, "a.txt") } });
      expect(typeof input.tool_use_id).toBe("string");
      expect(toolMessages(h, 1)[0]).toContain("writes are frozen today");
      expect(h.of("tool.completed")[0]?.isError).toBe(true);
    });

    test("PreToolUse allow answers the mode's question (no prompt) but never a policy deny or a protected path", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "PreToolUse", command: s.command("allow", { stdout: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } } }) }]),
        replies: [
          { toolCalls: [{ name: "write", args: { path: "a.txt", content: "x" } }] },
          { toolCalls: [{ name: "exec", args: { command: "rm -rf /" } }] },
          { toolCalls: [{ name: "write", args: { path: ".git/config", content: "[core]\n" } }] },
          { text: "done" },
        ],
      });
      await h.start();
      await h.run("go");
      expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("x");
      const approvals = h.of("approval.requested");
      expect(approvals.some((a) => a.action.includes("a.txt"))).toBe(false);
      const completed = h.of("tool.completed");
      expect(completed[1]?.isError).toBe(true);
      expect(completed[1]?.details?.deniedBy).toBe("policy");
      // The protected path still asks: headless denies it, the person approves it.
      expect(approvals.some((a) => a.action.includes(".git/config"))).toBe(true);
      expect(h.scripts.inputs("allow")).toHaveLength(3);
    });

    test("PreToolUse ask turns a policy allow into a question", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "PreToolUse", matcher: "read", command: s.command("ask", { stdout: { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "reading is audited" } } }) }]),
        replies: [{ toolCalls: [{ name: "read", args: { path: "README.md" } }] }, { text: "done" }],
        before: (root) => Bun.write(join(root, "project", "README.md"), "hello readme"),
      });
      await h.start();
      await h.run("read it");
      const ask = h.of("approval.requested")[0];
      expect(ask?.reason).toContain("reading is audited");
      expect(h.of("tool.completed")[0]?.isError).toBe(!mode.interactive);
    });

    test("PreToolUse updatedInput replaces the arguments (the policy decides on the new ones); additionalContext reaches the model", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        mode: "accept-edits",
        hooks: (s) =>
          hooksBlock([{ event: "PreToolUse", matcher: "Write", command: s.command("upd", { stdout: { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { file_path: "b.txt", content: "rewritten" }, additionalContext: "CTX-TOOL" } } }) }]),
        replies: [{ toolCalls: [{ name: "write", args: { path: "a.txt", content: "x" } }] }, { text: "done" }],
      });
      await h.start();
      await h.run("write");
      expect(existsSync(join(h.project, "a.txt"))).toBe(false);
      expect(readFileSync(join(h.project, "b.txt"), "utf8")).toBe("rewritten");
      expect(toolMessages(h, 1)[0]).toContain("CTX-TOOL");
    });

    test("PermissionRequest fires just before a person would be asked: allow approves, deny refuses with its message", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) =>
          hooksBlock([
            { event: "PermissionRequest", matcher: "write", command: `${s.command("perm", {})}; input=$(tail -n 1 '${join(s.dir, "log", "perm.jsonl")}'); case "$input" in *deny.txt*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not that file"}}}';; *) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}';; esac` },
          ]),
        replies: [{ toolCalls: [{ name: "write", args: { path: "ok.txt", content: "x" } }, { name: "write", args: { path: "deny.txt", content: "y" } }, { name: "read", args: { path: "ok.txt" } }] }, { text: "done" }],
      });
      await h.start();
      await h.run("write two");
      expect(existsSync(join(h.project, "ok.txt"))).toBe(true);
      expect(existsSync(join(h.project, "deny.txt"))).toBe(false);
      expect(h.of("approval.requested")).toHaveLength(0);
      const inputs = h.scripts.inputs("perm");
      expect(inputs).toHaveLength(2); // not for the read: the policy allowed it
      expect(inputs[0]).toMatchObject({ hook_event_name: "PermissionRequest", tool_name: "write" });
      expect(toolMessages(h, 1).join("\n")).toContain("not that file");
    });

    test("PostToolUse gets the tool's response; decision block feeds the reason to the model; PostToolUseFailure fires for an error instead", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) =>
          hooksBlock([
            { event: "PostToolUse", command: s.command("post", { stdout: { decision: "block", reason: "lint failed: fix it" } }) },
            { event: "PostToolUseFailure", command: s.command("fail", { stdout: { hookSpecificOutput: { additionalContext: "CTX-FAILURE" } } }) },
          ]),
        replies: [{ toolCalls: [{ name: "exec", args: { command: "echo hello-post" } }, { name: "read", args: { path: "missing.txt" } }] }, { text: "done" }],
      });
      await h.start();
      await h.run("go");
      const post = h.scripts.inputs("post");
      expect(post).toHaveLength(1);
      expect(post[0]).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "exec", tool_input: { command: "echo hello-post" } });
      expect(JSON.stringify(post[0]!.tool_response)).toContain("hello-post");
      const fail = h.scripts.inputs("fail");
      expect(fail).toHaveLength(1);
      expect(fail[0]).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "read", is_interrupt: false });
      expect(typeof fail[0]!.error).toBe("string");
      const results = toolMessages(h, 1);
      expect(results[0]).toContain("lint failed: fix it");
      expect(results[1]).toContain("CTX-FAILURE");
    });

    test("Stop: decision block sends the agent back to work with the reason; stop_hook_active is true the second time", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) =>
          hooksBlock([
            { event: "Stop", command: `${s.command("stop", {})}; input=$(tail -n 1 '${join(s.dir, "log", "stop.jsonl")}'); case "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"run the tests first"}';; esac` },
          ]),
        replies: [{ text: "all done" }, { text: "tests ran" }],
      });
      await h.start();
      await h.run("do it");
      const inputs = h.scripts.inputs("stop");
      expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, true]);
      expect(inputs[0]).toMatchObject({ hook_event_name: "Stop" });
      expect(h.provider.requests).toHaveLength(2);
      expect(h.requestText(1)).toContain("run the tests first");
      expect(h.of("turn.completed")).toHaveLength(1);
    });

    test("Notification fires with permission_prompt when an approval is asked", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "Notification", matcher: "permission_prompt", command: s.command("note", {}) }]),
        replies: [{ toolCalls: [{ name: "write", args: { path: "n.txt", content: "x" } }] }, { text: "done" }],
      });
      await h.start();
      await h.run("write");
      for (let i = 0; i < 100 && h.scripts.inputs("note").length === 0; i++) await Bun.sleep(20);
      expect(h.scripts.inputs("note")[0]).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt" });
      expect(String(h.scripts.inputs("note")[0]!.message)).toContain("write");
    });

    test("PreCompact fires before /compact with trigger manual and the instruction", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "PreCompact", matcher: "manual", command: s.command("pc", {}) }, { event: "SessionStart", command: s.command("ss", {}) }]),
        replies: [{ text: "one ".repeat(50) }, { text: "two ".repeat(50) }, { text: "three ".repeat(50) }, { text: "Summary of the conversation." }],
      });
      await h.start();
      await h.run("first question ".repeat(20));
      await h.run("second question ".repeat(20));
      await h.run("third question ".repeat(20));
      h.wired.session.submit({ type: "compact", instruction: "keep the questions" });
      await h.wired.session.idle();
      expect(h.scripts.inputs("pc")[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the questions" });
      // The compaction ran (a summary replaced the history), so SessionStart fired again with source compact.
      expect(h.of("compaction").length).toBeGreaterThan(0);
      expect(h.scripts.inputs("ss").map((i) => i.source)).toEqual(["startup", "compact"]);
    });

    test("SessionEnd fires at the end with the reason; /clear ends and starts again (reason/source clear)", async () => {
      h = hookedSession({
        interactive: mode.interactive,
        hooks: (s) => hooksBlock([{ event: "SessionEnd", command: s.command("end", {}) }, { event: "SessionStart", command: s.command("start", {}) }]),
        replies: [{ text: "hi" }],
      });
      await h.start();
      await h.run("hello");
      h.wired.session.submit({ type: "clear" });
      for (let i = 0; i < 100 && h.scripts.inputs("start").length < 2; i++) await Bun.sleep(20);
      await h.end();
      expect(h.scripts.inputs("end").map((i) => i.reason)).toEqual(["clear", "other"]);
      expect(h.scripts.inputs("start").map((i) => i.source)).toEqual(["startup", "clear"]);
    });
  });
}

test("SubagentStart / SubagentStop: defined in the dispatcher API for the subagents to call", async () => {
  h = hookedSession({
    hooks: (s) =>
      hooksBlock([
        { event: "SubagentStart", matcher: "reviewer", command: s.command("sastart", { stdout: { hookSpecificOutput: { additionalContext: "CTX-SUB" } } }) },
        { event: "SubagentStop", command: s.command("sastop", { stdout: { decision: "block", reason: "not finished" } }) },
      ]),
    replies: [],
  });
  await h.start();
  const rt = h.wired.ext!.runtime;
  expect(await rt.subagentStart("a1", "reviewer")).toEqual(["CTX-SUB"]);
  expect(await rt.subagentStart("a2", "other")).toEqual([]);
  expect(await rt.subagentStop("a1", "reviewer", false)).toBe("not finished");
  expect(h.scripts.inputs("sastart")[0]).toMatchObject({ hook_event_name: "SubagentStart", agent_id: "a1", agent_type: "reviewer" });
  expect(h.scripts.inputs("sastop")[0]).toMatchObject({ hook_event_name: "SubagentStop", agent_id: "a1", stop_hook_active: false });
});

test("a failing hook (exit 1) is shown to the user and the call still runs", async () => {
  h = hookedSession({
    mode: "bypass",
    hooks: (s) => hooksBlock([{ event: "PreToolUse", command: s.command("broken", { stderr: "oops", exit: 1 }) }]),
    replies: [{ toolCalls: [{ name: "write", args: { path: "w.txt", content: "x" } }] }, { text: "done" }],
  });
  await h.start();
  await h.run("write");
  expect(existsSync(join(h.project, "w.txt"))).toBe(true);
  expect(h.of("notice").some((n) => n.text.includes("Hook failure") && n.text.includes("oops"))).toBe(true);
});

test("PreCompact fires with trigger auto before the automatic compaction of a model call", async () => {
  h = hookedSession({
    env: { CHATCLI_CONTEXT_WINDOW: "6000" },
    hooks: (s) => hooksBlock([{ event: "PreCompact", command: s.command("auto", {}) }]),
    replies: [{ text: "first answer" }, { text: "Summary." }, { text: "second answer" }, { text: "more" }],
  });
  await h.start();
  await h.run(`read this: ${"lorem ipsum dolor sit amet ".repeat(700)}`);
  await h.run("and now?");
  const inputs = h.scripts.inputs("auto");
  expect(inputs.length).toBeGreaterThan(0);
  expect(inputs[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" });
  expect(h.of("compaction").length).toBeGreaterThan(0);
});

test("PermissionRequest allow with updatedInput: the new arguments are decided again and run", async () => {
  h = hookedSession({
    hooks: (s) => hooksBlock([{ event: "PermissionRequest", command: s.command("pr", { stdout: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { path: "safe.txt", content: "redirected" } } } } }) }]),
    replies: [{ toolCalls: [{ name: "write", args: { path: "orig.txt", content: "x" } }] }, { text: "done" }],
  });
  await h.start();
  await h.run("write");
  expect(existsSync(join(h.project, "orig.txt"))).toBe(false);
  expect(readFileSync(join(h.project, "safe.txt"), "utf8")).toBe("redirected");
  expect(h.of("approval.requested")).toHaveLength(0);
});

test("continue: false from a UserPromptSubmit hook stops the prompt and says why", async () => {
  h = hookedSession({
    hooks: (s) => hooksBlock([{ event: "UserPromptSubmit", command: s.command("cont", { stdout: { continue: false, stopReason: "maintenance window" } }) }]),
    replies: [{ text: "never" }],
  });
  await h.start();
  await h.run("hello");
  expect(h.provider.requests).toHaveLength(0);
  expect(h.of("notice").some((n) => n.text.includes("maintenance window"))).toBe(true);
});

test("type-ahead delivered between model calls goes through UserPromptSubmit too (a blocked one is dropped)", async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  h = hookedSession({
    hooks: (s) =>
      hooksBlock([
        { event: "UserPromptSubmit", command: `${s.command("ta", {})}; input=$(tail -n 1 '${join(s.dir, "log", "ta.jsonl")}'); case "$input" in *SECRET*) echo 'no secrets' >&2; exit 2;; esac` },
      ]),
    replies: [{ toolCalls: [{ name: "exec", args: { command: "echo hi" } }], gate }, { text: "done" }],
  });
  await h.start();
  h.wired.session.submit({ type: "user_input", text: "start" });
  await h.provider.requested(1);
  h.wired.session.submit({ type: "user_input", text: "my SECRET token" });
  release();
  await h.wired.session.idle();
  expect(h.scripts.inputs("ta").map((i) => i.prompt)).toEqual(["start", "my SECRET token"]);
  expect(h.provider.requests).toHaveLength(2);
  expect(h.requestText(1)).not.toContain("SECRET");
});

test("disableAllHooks: the user's switch turns every hook off; a project's cannot switch off the user's hooks", async () => {
  const { writeProjectSettings, writeUserSettings } = await import("../support/hook-scripts.ts");
  h = hookedSession({
    hooks: (s) => hooksBlock([{ event: "UserPromptSubmit", command: s.command("u", {}) }]),
    before: (root) => writeProjectSettings(root, { disableAllHooks: true }),
    replies: [{ text: "a" }],
  });
  await h.start();
  await h.run("one");
  expect(h.scripts.inputs("u")).toHaveLength(1);
  h.cleanup();
  h = hookedSession({
    hooks: (s) => hooksBlock([{ event: "UserPromptSubmit", command: s.command("u", {}) }]),
    // The same user settings (the "u" hook) with the switch on.
    before: (root) => writeUserSettings(root, { ...JSON.parse(readFileSync(join(root, "home", ".chatcli", "settings.json"), "utf8")), disableAllHooks: true }),
    replies: [{ text: "a" }],
  });
  await h.start();
  await h.run("two");
  expect(h.scripts.inputs("u")).toHaveLength(0);
});

test("a hook's allow does not answer a safety-immune command or a line the parser could not read", async () => {
  h = hookedSession({
    env: { CHATCLI_SANDBOX: "off" },
    hooks: (s) => hooksBlock([{ event: "PreToolUse", command: s.command("allow-all", { stdout: { hookSpecificOutput: { permissionDecision: "allow" } } }) }]),
    replies: [
      { toolCalls: [{ name: "exec", args: { command: "git push --force origin main" } }, { name: "exec", args: { command: 'echo "unterminated' } }, { name: "exec", args: { command: "touch made-by-exec.txt" } }] },
      { text: "done" },
    ],
  });
  await h.start();
  await h.run("go");
  const asked = h.of("approval.requested").map((a) => a.action);
  expect(asked).toEqual(["git push --force origin main", 'echo "unterminated']);
  // The ordinary "not read-only" question is the hook's to answer.
  expect(existsSync(join(h.project, "made-by-exec.txt"))).toBe(true);
});
