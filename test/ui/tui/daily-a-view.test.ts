// Issue 25 in the UI layer: the todo checklist (reducer + panel), the status line's budget and shell-mode segments,
// `!` and shell mode in the TUI's submit path and in plain mode.
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { initialViewState, reduce } from "../../../src/ui/tui/view-model.ts";
import { todoChunks, todoRows, todoVisible } from "../../../src/ui/tui/todo-panel.ts";
import { statusText } from "../../../src/ui/tui/status-line.ts";
import { submitShellLine } from "../../../src/ui/tui/shell-mode.ts";
import { runPlain } from "../../../src/ui/tui/plain-output.ts";
import type { Op } from "../../../src/protocol/events.ts";
import { FakeSession, turnCompleted } from "./fake-session.ts";

const base = () => initialViewState({ provider: "OPENAI", model: "gpt-4o", permissionMode: "default", displayMode: "full", budgetUsd: 2 });
const items = [
  { content: "one", status: "done" as const },
  { content: "two", status: "in_progress" as const },
  { content: "three", status: "pending" as const },
];
const text = (c: ReturnType<typeof todoChunks>) => c.map((x) => x.text).join("");

test("todo.updated sets the list; the panel shows it in full, `n/m done` in compact mode; a finished list hides when idle", () => {
  let s = reduce(base(), { type: "todo.updated", items });
  expect(todoVisible(s)).toBe(true);
  expect(text(todoChunks(s.todos!, false))).toBe("Todo 1/3 done\n  ✓ one\n  ▸ two\n  ○ three");
  expect(todoRows(s)).toBe(4);
  expect(text(todoChunks(s.todos!, true))).toBe("☐ 1/3 done");
  s = reduce(s, { type: "ui.set_display_mode", mode: "compact" });
  expect(todoRows(s)).toBe(1);
  s = reduce(s, { type: "todo.updated", items: items.map((i) => ({ ...i, status: "done" as const })) });
  expect(todoVisible(s)).toBe(false);
  s = reduce(s, { type: "turn.started", turnId: "t", input: "x" });
  expect(todoVisible(s)).toBe(true);
  // A long list keeps the item in progress in view.
  const long = Array.from({ length: 30 }, (_, i) => ({ content: `item ${i}`, status: i < 20 ? ("done" as const) : i === 20 ? ("in_progress" as const) : ("pending" as const) }));
  const shown = text(todoChunks(long, false));
  expect(shown).toContain("▸ item 20");
  expect(shown).toContain("Todo 20/30 done");
});

test("status line: spend against the budget; `! shell` while shell mode is on", () => {
  let s = base();
  expect(statusText(s, 0, 0)).toContain("$0.0000/$2.00");
  s = reduce(s, { type: "ui.set_shell_mode", on: true });
  expect(statusText(s, 0, 0)).toContain("! shell");
  expect(statusText(s, 0, 0, undefined, 30)).toContain("! shell");
});

test("TUI submit: `!cmd` is a shell op, `!` toggles shell mode, then every line is a command", () => {
  const ops: Op[] = [];
  let state = base();
  const app = { get state() { return state; }, submit: (op: Op) => ops.push(op), dispatch: (a: Parameters<typeof reduce>[1]) => void (state = reduce(state, a)) };
  expect(submitShellLine(app, "explain the code")).toBe(false);
  expect(submitShellLine(app, "!git status")).toBe(true);
  expect(ops).toEqual([{ type: "shell", command: "git status" }]);
  expect(submitShellLine(app, "!")).toBe(true);
  expect(state.shellMode).toBe(true);
  expect(submitShellLine(app, "ls -la")).toBe(true);
  expect(ops.at(-1)).toEqual({ type: "shell", command: "ls -la" });
  submitShellLine(app, " ! ");
  expect(state.shellMode).toBe(false);
});

test("plain mode: `!cmd` runs as a command and prints its output; `!` toggles shell mode (`!> ` marker)", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(session, input, { write: (s: string) => (out += s) }, { interactive: true });
  input.write("!echo hi\n");
  await Bun.sleep(5);
  expect(session.opsOf("shell")).toEqual([{ type: "shell", command: "echo hi" }]);
  session.emit({ type: "turn.started", turnId: "t", input: "!echo hi" });
  session.emit({ type: "tool.started", callId: "c", name: "exec", args: { command: "echo hi" }, title: "exec echo hi", batchId: "b" });
  session.emit({ type: "tool.updated", callId: "c", output: "hi\n" });
  session.emit(turnCompleted("t"));
  expect(out).toContain("hi\n");
  input.write("!\n");
  await Bun.sleep(5);
  expect(out).toContain("Shell mode on");
  expect(out.endsWith("!> ")).toBe(true);
  input.write("pwd\n");
  await Bun.sleep(5);
  expect(session.opsOf("shell").at(-1)).toEqual({ type: "shell", command: "pwd" });
  // The fake session starts no turn: the line was refused, the next may come.
  input.write("!\n");
  await Bun.sleep(5);
  expect(out).toContain("Shell mode off");
  input.end();
  expect(await done).toBe(0);
});

test("a `!` command's output is shown at length (not the 3-line preview), in compact mode too", async () => {
  const { itemChunks } = await import("../../../src/ui/tui/item-chunks.ts");
  const output = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
  let s = reduce(base(), { type: "turn.started", turnId: "t", input: "!seq 12" });
  s = reduce(s, { type: "tool.started", callId: "c", name: "exec", args: { command: "seq 12" }, title: "exec seq 12", batchId: "b" });
  s = reduce(s, { type: "tool.completed", callId: "c", name: "exec", isError: false, result: `${output}\nexit code 0`, details: { typedByUser: true }, durationMs: 5, batchId: "b" });
  s = reduce(s, { type: "turn.completed", turnId: "t", stopReason: "shell", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, totalUsage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, contextTokens: 0, contextWindow: 0 });
  const tools = s.items.find((i) => i.kind === "tools")!;
  for (const mode of ["full", "compact"] as const) {
    const shown = itemChunks(tools, { mode, showThinking: false, labels: {} }).map((c) => c.text).join("");
    expect(shown).toContain("line 1\n");
    expect(shown).toContain("line 12");
  }
});
