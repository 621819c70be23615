// Issue 25 (part a) at the session level, with the real wiring (tools, policy, sandbox, pipeline, compaction):
// the todo list (event, reminder on every request, kept across /compact and cleared with /clear), the `!` shell
// op (context for the next turn, the permission rules that still hold), and the /init guard.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harness, type Harness } from "../support/agent-harness.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const TODOS: Array<{ content: string; status: "done" | "in_progress" | "pending" }> = [
  { content: "Map the modules", status: "done" },
  { content: "Patch the lexer", status: "in_progress" },
  { content: "Update the docs", status: "pending" },
];

describe("todo", () => {
  test("a todo call publishes todo.updated after its completion, without an approval; the open list rides on every request", async () => {
    h = harness({ replies: [{ toolCalls: [{ name: "todo", args: { todos: TODOS } }] }, { text: "on it" }, { text: "second turn" }] });
    await h.run("do the work");
    expect(h.of("approval.requested")).toHaveLength(0);
    expect(h.of("todo.updated").map((e) => e.items)).toEqual([TODOS]);
    const types = h.events.map((e) => e.type);
    expect(types.indexOf("todo.updated")).toBeGreaterThan(types.indexOf("tool.completed"));
    expect(h.wired.todos.items).toEqual(TODOS);
    await h.run("next");
    const anchor = h.provider.requests.at(-1)?.anchor ?? "";
    expect(anchor).toContain("Todo list (1/3 done):\n[x] Map the modules\n[~] Patch the lexer\n[ ] Update the docs");
  });

  test("other agents' shapes are accepted (items/text/completed); a bad list is an error the model reads", async () => {
    h = harness({
      replies: [
        { toolCalls: [{ name: "TodoWrite", args: { items: [{ text: "one", status: "completed" }, { title: "two", status: "in-progress" }, "three"] } }] },
        { toolCalls: [{ name: "todo", args: { todos: [{ content: "x", status: "maybe" }] } }] },
        { text: "done" },
      ],
    });
    await h.run("plan");
    expect(h.of("todo.updated")[0]?.items).toEqual([
      { content: "one", status: "done" },
      { content: "two", status: "in_progress" },
      { content: "three", status: "pending" },
    ]);
    const bad = h.of("tool.completed")[1]!;
    expect(bad.isError).toBe(true);
    expect(bad.errorCode).toBe("invalid_args");
    expect(h.of("todo.updated")).toHaveLength(1);
  });

  test("the list survives a compaction verbatim (the request after /compact still carries it); /clear empties it", async () => {
    const long = "x".repeat(400);
    h = harness({
      replies: [
        { toolCalls: [{ name: "todo", args: { todos: TODOS } }] },
        { text: `first ${long}` },
        ...[1, 2, 3, 4, 5].map((i) => ({ text: `reply ${i} ${long}` })),
        { text: "## Summary\nWorked on the lexer." },
        { text: "after compaction" },
      ],
    });
    await h.run("task one");
    for (const i of [1, 2, 3, 4, 5]) await h.run(`task ${i}`);
    h.wired.session.submit({ type: "compact" });
    await h.wired.session.idle();
    expect(h.of("compaction").length).toBeGreaterThan(0);
    await h.run("continue");
    // The todo call itself is gone from the history (summarized), the list is not.
    expect(h.wired.session.messages.some((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.name === "todo"))).toBe(false);
    const last = h.provider.requests.at(-1)!;
    expect(last.anchor).toContain("[~] Patch the lexer");
    expect(last.anchor).toContain("[ ] Update the docs");
    h.wired.session.submit({ type: "clear" });
    await Bun.sleep(5);
    expect(h.of("todo.updated").at(-1)?.items).toEqual([]);
    expect(h.wired.todos.reminder()).toBeUndefined();
  });
});

describe("`!` shell passthrough", () => {
  test("runs without a model call; command and output become context for the next request", async () => {
    h = harness({ replies: [{ text: "I see the file" }] });
    writeFileSync(join(h.project, "listing-marker.txt"), "x\n");
    h.wired.session.submit({ type: "shell", command: "ls" });
    await h.wired.session.idle();
    expect(h.provider.requests).toHaveLength(0);
    expect(h.of("turn.started")[0]?.input).toBe("!ls");
    expect(h.of("turn.completed")[0]?.stopReason).toBe("shell");
    expect(h.of("tool.completed")[0]?.result).toContain("listing-marker.txt");
    await h.run("what is there?");
    const sent = h.provider.requests[0]!.messages.map((m) => m.content).join("\n");
    expect(sent).toContain("$ ls");
    expect(sent).toContain("listing-marker.txt");
  });

  test("a command that is not read-only runs (the user typed it) where a model's call would ask", async () => {
    h = harness({ replies: [] });
    h.wired.session.submit({ type: "shell", command: "echo typed > typed.txt" });
    await h.wired.session.idle();
    expect(h.of("approval.requested")).toHaveLength(0);
    expect(readFileSync(join(h.project, "typed.txt"), "utf8")).toBe("typed\n");
  });

  test("still refused: dangerous commands; protected paths ask (nobody to ask here: not run); plan mode", async () => {
    h = harness({ replies: [] });
    h.wired.session.submit({ type: "shell", command: "rm -rf ~" });
    await h.wired.session.idle();
    expect(h.of("tool.completed")[0]?.errorCode).toBe("permission_denied");
    expect(h.of("turn.completed")[0]?.stopReason).toBe("shell_error");
    h.wired.session.submit({ type: "shell", command: "echo '[core]' >> .git/config" });
    await h.wired.session.idle();
    expect(h.denied.some((d) => d.includes(".git/config"))).toBe(true);
    expect(existsSync(join(h.project, ".git", "config"))).toBe(false);
    h.wired.session.submit({ type: "set_permission_mode", mode: "plan" });
    h.wired.session.submit({ type: "shell", command: "touch planned.txt" });
    await h.wired.session.idle();
    expect(existsSync(join(h.project, "planned.txt"))).toBe(false);
    // Nothing ran, so nothing was added to the conversation.
    expect(h.wired.session.messages).toHaveLength(0);
  });

  test("refused while a turn runs; an interrupt stops a running command", async () => {
    h = harness({ replies: [{ text: "slow", delayMs: 200, chunks: 3 }] });
    h.wired.session.submit({ type: "user_input", text: "go" });
    h.wired.session.submit({ type: "shell", command: "ls" });
    expect(h.of("notice").some((n) => n.text.includes("wait for it"))).toBe(true);
    await h.wired.session.idle();
    h.wired.session.submit({ type: "shell", command: "sleep 20" });
    await Bun.sleep(300);
    h.wired.session.submit({ type: "interrupt" });
    await h.wired.session.idle();
    expect(h.of("turn.completed").at(-1)?.stopReason).toBe("interrupted");
  });
});

describe("/init guard", () => {
  test("only AGENTS.md may be written (always asked, even in bypass); only read-only commands run; the guard ends with the turn", async () => {
    h = harness({
      mode: "bypass",
      replies: [
        { toolCalls: [{ name: "write", args: { path: "src.txt", content: "no" } }, { name: "exec", args: { command: "touch x.txt" } }, { name: "exec", args: { command: "ls" } }] },
        { toolCalls: [{ name: "write", args: { path: "AGENTS.md", content: "# Agents\n" } }] },
        { text: "done" },
        { toolCalls: [{ name: "write", args: { path: "later.txt", content: "ok" } }] },
        { text: "later" },
      ],
    });
    h.wired.initGuard.start();
    await h.run("init");
    const done = h.of("tool.completed");
    expect(done.map((d) => d.errorCode ?? "ok")).toEqual(["permission_denied", "permission_denied", "ok", "permission_denied"]);
    expect(h.denied).toEqual(["AGENTS.md"]);
    expect(existsSync(join(h.project, "x.txt"))).toBe(false);
    expect(h.wired.initGuard.active).toBe(false);
    await h.run("later");
    expect(existsSync(join(h.project, "later.txt"))).toBe(true);
  });
});

describe("/diff and /undo over the checkpoints", () => {
  test("files changed by exec and by `!` are in the session's changes; /undo rewinds code to before the last turn, then one further", async () => {
    const { createDailyCommands } = await import("../../src/cli/daily-commands.ts");
    h = harness({
      mode: "bypass",
      replies: [
        { toolCalls: [{ name: "exec", args: { command: "echo one > by-exec.txt" } }] },
        { text: "made it" },
        { toolCalls: [{ name: "exec", args: { command: "echo two >> by-exec.txt" } }] },
        { text: "appended" },
      ],
    });
    writeFileSync(join(h.project, "typed.txt"), "before\n");
    h.wired.session.submit({ type: "shell", command: "echo after > typed.txt" });
    await h.wired.session.idle();
    await h.run("make a file");
    await h.run("append to it");
    const daily = createDailyCommands({ session: h.wired.session, checkpoints: h.wired.checkpoints, todos: h.wired.todos, initGuard: h.wired.initGuard, projectRoot: h.project });
    const diff = (await daily.handle("diff", ""))!;
    expect(diff).toContain("2 files changed, +3 -1");
    expect(diff).toContain("+++ b/by-exec.txt");
    expect(diff).toContain("-before\n+after");
    await daily.handle("undo", "");
    await h.wired.session.idle();
    await Bun.sleep(20);
    expect(readFileSync(join(h.project, "by-exec.txt"), "utf8")).toBe("one\n");
    await daily.handle("undo", "");
    await h.wired.session.idle();
    await Bun.sleep(20);
    expect(existsSync(join(h.project, "by-exec.txt"))).toBe(false);
    // The conversation is untouched by /undo.
    expect(h.wired.session.messages.filter((m) => m.role === "user" && !m.meta?.kind).map((m) => m.content)).toEqual(["make a file", "append to it"]);
  });
});
