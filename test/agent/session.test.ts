// The agent core end to end below the UI: a real Session with real tools in a temp project, the model scripted.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { validateToolResultPairing } from "../../src/agent/results/pairing.ts";
import type { Message } from "../../src/protocol/message.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const toolMessages = (msgs: readonly Message[]) => msgs.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

describe("Session + agent loop", () => {
  test("an answer that ends in a newline, without tool-call markup, is not repeated as displayText", async () => {
    h = harness({ replies: [{ text: "Line one.\nLine two.\n\n", chunks: 2 }] });
    await h.run("hi");
    const done = h.of("message.completed")[0]!;
    expect(done.message.content).toBe("Line one.\nLine two.\n\n");
    expect(done.displayText).toBeUndefined();
  });

  test("a plain answer streams deltas and completes one turn", async () => {
    h = harness({ replies: [{ text: "Hello there", chunks: 3 }] });
    await h.run("hi");
    expect(h.of("message.delta").map((e) => e.text).join("")).toBe("Hello there");
    // Each delta carries its own piece only, never the answer so far (event schema 2).
    expect(h.of("message.delta").length).toBe(3);
    for (const d of h.of("message.delta")) expect(Object.keys(d).sort()).toEqual(["messageId", "text", "type"]);
    expect(h.of("turn.completed")).toHaveLength(1);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("stop");
    expect(h.of("message.completed")[0]!.displayText).toBeUndefined();
    expect(h.wired.session.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    // system prompt + an anchor reminder that the wire folds into the last user message, never persisted
    const req = h.provider.requests[0]!;
    expect(req.system[0]!.text).toContain("chatcli");
    expect(req.messages.map((m) => m.role)).toEqual(["user"]);
    expect(req.anchor).toContain("hi");
    expect(req.tools?.map((t) => t.name)).toContain("read");
  });

  test("native tool call: read runs in the project and its result feeds the next turn", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "read", args: { path: "notes.txt" } }] }, { text: "The file says hello." }] });
    writeFileSync(join(h.project, "notes.txt"), "hello from the file\n");
    await h.run("what is in notes.txt?");
    const second = h.provider.requests[1]!;
    const tool = toolMessages(second.messages)[0]!;
    expect(tool.name).toBe("read");
    expect(tool.content).toContain("hello from the file");
    expect(h.of("tool.started")[0]!.title).toContain("notes.txt");
    expect(h.of("tool.completed")[0]!.isError).toBe(false);
    expect(validateToolResultPairing(h.wired.session.messages as Message[])).toBe(true);
  });

  test("text protocol: <tool_call> markup is parsed, run, and fed back as a user message", async () => {
    h = harness({ nativeTools: false, replies: [{ text: `Let me look.\n<tool_call name="read" args='{"path":"a.txt"}' />` }, { text: "Done: it says abc." }] });
    writeFileSync(join(h.project, "a.txt"), "abc\n");
    await h.run("read a.txt");
    const first = h.provider.requests[0]!;
    expect(first.tools).toBeUndefined();
    expect(first.system.map((p) => p.text).join("\n")).toContain("<tool_call");
    const feedback = h.provider.requests[1]!.messages.filter((m) => m.role === "user").at(-1)!;
    expect(feedback.meta?.kind).toBe("tool_feedback");
    expect(feedback.content).toContain("abc");
    const done = h.of("message.completed")[0]!;
    expect(done.displayText).toBe("Let me look.");
  });

  test("the seed's @coder form works as an alias", async () => {
    h = harness({ nativeTools: false, replies: [{ text: `<tool_call name="@coder" args='{"cmd":"read","args":{"file":"main.go"}}' />` }, { text: "ok" }] });
    writeFileSync(join(h.project, "main.go"), "package main\n");
    await h.run("read main.go");
    expect(h.of("tool.completed")[0]).toMatchObject({ name: "read", isError: false });
    expect(h.of("tool.completed")[0]!.result).toContain("package main");
  });

  test("invalid arguments and unknown tools go back to the model as errors, the loop goes on", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "read", args: { path: 42 } }, { name: "teleport", args: {} }, { name: "read", args: "{not json" }] }, { text: "sorry" }] });
    await h.run("go");
    const results = toolMessages(h.provider.requests[1]!.messages);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ isError: true, errorCode: "invalid_args" });
    expect(results[0]!.content).toContain("path");
    expect(results[1]).toMatchObject({ isError: true, errorCode: "unknown_tool" });
    expect(results[2]!.isError).toBe(true);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("stop");
  });

  test("headless default mode: a write needs approval, is denied and reported, and the model is told not to retry", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "write", args: { path: "out.txt", content: "x" } }] }, { text: "could not write" }] });
    await h.run("write out.txt");
    expect(existsSync(join(h.project, "out.txt"))).toBe(false);
    expect(h.denied).toEqual(["out.txt"]);
    const r = toolMessages(h.provider.requests[1]!.messages)[0]!;
    expect(r).toMatchObject({ isError: true, errorCode: "permission_denied" });
    expect(r.content).toContain("Do not retry");
    // The ask and its automatic answer are events too (stream-json consumers see them).
    const asked = h.of("approval.requested");
    expect(asked.map((e) => [e.tool, e.action])).toEqual([["write", "out.txt"]]);
    expect(h.of("approval.resolved")).toEqual([{ type: "approval.resolved", requestId: asked[0]!.requestId, decision: "deny" }]);
  });

  test("accept-edits lets write/edit through; read-only exec is allowed, a write-ish exec still asks (sandbox off)", async () => {
    h = harness({
      mode: "accept-edits",
      env: { CHATCLI_SANDBOX: "off" },
      replies: [
        { toolCalls: [{ name: "write", args: { path: "src/a.txt", content: "one\ntwo\n" } }] },
        { toolCalls: [{ name: "edit", args: { path: "src/a.txt", old_string: "two", new_string: "three" } }] },
        { toolCalls: [{ name: "exec", args: { command: "cat src/a.txt" } }, { name: "exec", args: { command: "echo hi > b.txt" } }] },
        { text: "all done" },
      ],
    });
    await h.run("do it");
    expect(readFileSync(join(h.project, "src/a.txt"), "utf8")).toBe("one\nthree\n");
    const execResults = toolMessages(h.provider.requests[3]!.messages).slice(-2);
    expect(execResults[0]!.content).toContain("three");
    expect(execResults[1]).toMatchObject({ errorCode: "permission_denied" });
    expect(existsSync(join(h.project, "b.txt"))).toBe(false);
  });

  test("interactive approval round trip: approval.requested answered by an approval op", async () => {
    h = harness({ interactive: true, replies: [{ toolCalls: [{ name: "write", args: { path: "n.txt", content: "new" } }] }, { text: "written" }] });
    const off = h.wired.session.subscribe((e) => {
      if (e.type === "approval.requested") h!.wired.session.submit({ type: "approval", requestId: e.requestId, decision: "once" });
    });
    await h.run("write n.txt");
    off();
    const req = h.of("approval.requested")[0]!;
    expect(req.action).toContain("n.txt");
    expect(req.diff).toContain("+new");
    expect(readFileSync(join(h.project, "n.txt"), "utf8")).toBe("new");
  });

  test("an interrupt while an approval is pending denies it and announces approval.resolved", async () => {
    h = harness({ interactive: true, replies: [{ toolCalls: [{ name: "write", args: { path: "n.txt", content: "new" } }] }, { text: "unused" }] });
    const off = h.wired.session.subscribe((e) => {
      if (e.type === "approval.requested") h!.wired.session.submit({ type: "interrupt" });
    });
    await h.run("write n.txt");
    off();
    const req = h.of("approval.requested")[0]!;
    expect(h.of("approval.resolved")).toEqual([{ type: "approval.resolved", requestId: req.requestId, decision: "deny" }]);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("interrupted");
    expect(existsSync(join(h.project, "n.txt"))).toBe(false);
  });

  test("an empty answer (no text, no calls) is reported with a notice instead of showing nothing", async () => {
    h = harness({ replies: [{ text: "" }, { text: "   " }] });
    await h.run("say nothing");
    expect(h.of("notice").map((e) => e.text).filter((x) => x.includes("empty"))).toEqual(["The model returned an empty answer."]);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("stop");
  });

  test("dangerous commands are blocked even in bypass mode", async () => {
    h = harness({ mode: "bypass", replies: [{ toolCalls: [{ name: "exec", args: { command: "rm -rf /" } }] }, { text: "ok" }] });
    await h.run("clean up");
    expect(toolMessages(h.provider.requests[1]!.messages)[0]).toMatchObject({ isError: true, errorCode: "permission_denied" });
  });

  test("paths outside the project are refused", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "read", args: { path: "/etc/passwd" } }, { name: "read", args: { path: "../../x" } }] }, { text: "no" }] });
    await h.run("read system files");
    const [a, b] = toolMessages(h.provider.requests[1]!.messages);
    expect(a!.isError).toBe(true);
    expect(b!.isError).toBe(true);
  });

  test("a sensitive system path is refused by the path policy without an approval prompt first", async () => {
    h = harness({ interactive: true, replies: [{ toolCalls: [{ name: "read", args: { path: "/etc/shadow" } }] }, { text: "no" }] });
    await h.run("read it");
    expect(h.of("approval.requested")).toHaveLength(0);
    const [r] = toolMessages(h.provider.requests[1]!.messages);
    expect(r!.isError).toBe(true);
    expect(r!.errorCode).toBe("system_path");
  });

  test("the turn limit stops a model that never finishes", async () => {
    const loop = Array.from({ length: 10 }, (_, i) => ({ toolCalls: [{ name: "read", args: { path: `f${i}.txt` } }] }));
    h = harness({ maxTurns: 3, replies: loop });
    await h.run("loop forever");
    expect(h.provider.requests).toHaveLength(3);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("max_turns");
    expect(h.of("notice").some((n) => n.text.includes("Stopped after 3 steps"))).toBe(true);
    expect(validateToolResultPairing(h.wired.session.messages as Message[])).toBe(true);
  });

  test("stagnation: the same batch three turns in a row stops the loop", async () => {
    const same = { toolCalls: [{ name: "read", args: { path: "same.txt" } }] };
    h = harness({ replies: [same, same, same, same, same] });
    writeFileSync(join(h.project, "same.txt"), "x");
    await h.run("stuck");
    expect(h.provider.requests).toHaveLength(3);
    expect(h.of("turn.completed")[0]!.stopReason).toBe("stagnation");
  });

  test("interrupt during a running exec kills it and leaves every call with a result", async () => {
    h = harness({ mode: "bypass", replies: [{ toolCalls: [{ name: "exec", args: { command: "sleep 30" } }, { name: "read", args: { path: "x" } }] }] });
    const started = Date.now();
    h.wired.session.submit({ type: "user_input", text: "wait" });
    const off = h.wired.session.subscribe((e) => {
      if (e.type === "tool.started") setTimeout(() => h!.wired.session.submit({ type: "interrupt" }), 100);
    });
    await h.wired.session.idle();
    off();
    expect(Date.now() - started).toBeLessThan(5000);
    const msgs = h.wired.session.messages as Message[];
    expect(validateToolResultPairing(msgs)).toBe(true);
    const results = toolMessages(msgs);
    expect(results).toHaveLength(2);
    expect(results[1]!.errorCode).toBe("not_executed");
    expect(h.of("turn.completed")[0]!.stopReason).toBe("interrupted");
  });

  test("type-ahead: input while a turn runs is queued and delivered at the next turn boundary", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "read", args: { path: "q.txt" } }], delayMs: 60 }, { text: "first answer" }, { text: "second answer" }] });
    writeFileSync(join(h.project, "q.txt"), "q");
    h.wired.session.submit({ type: "user_input", text: "first" });
    h.wired.session.submit({ type: "user_input", text: "also this" });
    expect(h.of("queue.updated").at(-1)!.items).toEqual(["also this"]);
    await h.wired.session.idle();
    const second = h.provider.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(second).toContain("also this");
    expect(h.of("queue.updated").at(-1)!.items).toEqual([]);
  });

  test("type-ahead with the text protocol: delivered at the next turn boundary, after the tool feedback, in FIFO order", async () => {
    h = harness({
      nativeTools: false,
      replies: [{ text: `<tool_call name="read" args='{"path":"q.txt"}' />`, delayMs: 60 }, { text: "first answer" }, { text: "(spare)" }],
    });
    writeFileSync(join(h.project, "q.txt"), "q");
    h.wired.session.submit({ type: "user_input", text: "first" });
    h.wired.session.submit({ type: "user_input", text: "one" });
    h.wired.session.submit({ type: "user_input", text: "two" });
    await h.wired.session.idle();
    // The second model call of the same run carries the queued lines, oldest first, after the tool feedback.
    expect(h.of("turn.started")).toHaveLength(1);
    const users = h.provider.requests[1]!.messages.filter((m) => m.role === "user");
    expect(users.at(-2)!.meta?.kind).toBe("tool_feedback");
    expect(users.at(-1)!.content).toBe("one\ntwo");
  });

  test("system prompt: coder base by default, agent flavour by env; workspace files project first; catalog only for the text protocol; anchor never persisted", async () => {
    const text = (parts: Array<{ text: string }>) => parts.map((p) => p.text).join("\n\n");
    h = harness({ nativeTools: false, replies: [{ text: "a" }, { text: "b" }] });
    writeFileSync(join(h.project, "RULES.md"), "project rule: tabs");
    mkdirSync(join(h.home, ".chatcli"), { recursive: true });
    writeFileSync(join(h.home, ".chatcli", "RULES.md"), "user rule: spaces");
    await h.run("do the thing");
    const sys = text(h.provider.requests[0]!.system ?? []);
    expect(sys).toContain("AI coding agent");
    expect(sys.indexOf("project rule: tabs")).toBeGreaterThan(0);
    expect(sys.indexOf("project rule: tabs")).toBeLessThan(sys.indexOf("user rule: spaces"));
    expect(sys).toContain("<tool_call"); // text protocol: the catalog is in the system prompt
    expect(h.provider.requests[0]!.messages.some((m) => m.role === "system")).toBe(false);
    expect(h.provider.requests[0]!.anchor).toContain("Reminder: the user's current request is: \"do the thing\"");
    expect(h.wired.session.messages.some((m) => m.role === "system")).toBe(false);
    h.cleanup();

    h = harness({ env: { CHATCLI_AGENT_FLAVOUR: "agent" }, replies: [{ text: "a" }] });
    await h.run("check disk usage");
    const agentSys = text(h.provider.requests[0]!.system ?? []);
    expect(agentSys).toContain("carries out tasks in the user's terminal");
    expect(agentSys).not.toContain("AI coding agent");
    expect(agentSys).not.toContain("<tool_call"); // native tools: no text catalog
    expect(h.provider.requests[0]!.tools?.length).toBeGreaterThan(0);
  });

  test("the queue holds at most 10 and queued items can be removed", async () => {
    h = harness({ replies: [{ text: "slow", chunks: 5, delayMs: 30 }] });
    h.wired.session.submit({ type: "user_input", text: "go" });
    for (let i = 0; i < 12; i++) h.wired.session.submit({ type: "user_input", text: `q${i}` });
    expect(h.of("queue.updated").at(-1)!.items).toHaveLength(10);
    expect(h.of("notice").some((n) => n.text.includes("Queue full"))).toBe(true);
    h.wired.session.submit({ type: "remove_queued", index: 0 });
    expect(h.of("queue.updated").at(-1)!.items[0]).toBe("q1");
    h.wired.session.submit({ type: "interrupt" });
    await h.wired.session.idle();
  });

  test("a provider error ends the turn with an error event; the history stays valid", async () => {
    h = harness({ replies: [{ text: "partial", error: { kind: "server_error", message: "boom" } }] });
    await h.run("x");
    expect(h.of("error")[0]!.message).toBe("boom");
    expect(h.of("turn.completed")[0]!.stopReason).toBe("error");
    expect(h.wired.session.messages.at(-1)).toMatchObject({ role: "assistant", content: "partial" });
  });

  test("the recorded session's directory holds budgeted results (not the temp workspace, deleted at exit)", async () => {
    const big = "line of output\n".repeat(3000);
    h = harness({ mode: "bypass", replies: [{ toolCalls: [{ name: "exec", args: { command: `yes 'line of output' | head -n 3000` } }] }, { text: "ok" }], env: { CHATCLI_TOOL_RESULT_MAX_CHARS: "5000" } });
    await h.run("print a lot");
    const result = toolMessages(h.provider.requests[1]!.messages)[0]!;
    expect(result.content.length).toBeLessThan(big.length);
    const saved = /saved to (\S+?\.txt)/.exec(result.content)?.[1];
    expect(saved).toBeDefined();
    expect(saved!.startsWith(`${h.wired.store.toolResultsDirFor(h.wired.recorder!.id)}/`)).toBe(true);
    expect(readFileSync(saved!, "utf8")).toContain("line of output");
  });

  test("a turn that fails before any answer leaves no user message behind, so a retry is not sent twice", async () => {
    h = harness({ replies: [{ error: { kind: "network", message: "connection refused" } }, { text: "now it works" }] });
    await h.run("hello?");
    expect(h.of("turn.completed")[0]!.stopReason).toBe("error");
    expect(h.wired.session.messages.filter((m) => m.role === "user")).toHaveLength(0);
    await h.run("hello?");
    const users = h.provider.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["hello?"]);
    expect(h.wired.session.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
