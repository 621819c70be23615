import { expect, test } from "bun:test";
import { initialViewState, reduce, type ViewInput, type ViewState } from "../../../src/ui/tui/view-model.ts";
import { splitFinishedBlocks } from "../../../src/ui/tui/markdown-blocks.ts";
import { zeroUsage } from "./fake-session.ts";
import { toolChunks } from "../../../src/ui/tui/item-chunks.ts";

const init = () => initialViewState({ provider: "ollama", model: "m", permissionMode: "default", displayMode: "full" });
const run = (events: ViewInput[], s: ViewState = init()) => events.reduce((acc, e) => reduce(acc, e, 1000), s);
const deltas = (id: string, text: string, size: number): ViewInput[] => {
  const out: ViewInput[] = [];
  for (let i = 0; i < text.length; i += size) out.push({ type: "message.delta", messageId: id, text: text.slice(i, i + size) });
  return out;
};

test("splitFinishedBlocks cuts at blank lines outside fences and loses nothing", () => {
  const md = "# H\n\npara\nmore\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\ntail";
  const { finished, rest } = splitFinishedBlocks(md);
  expect(finished).toEqual(["# H\n\n", "para\nmore\n\n", "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n"]);
  expect(rest).toBe("tail");
  expect(finished.join("") + rest).toBe(md);
  expect(splitFinishedBlocks("```\nopen fence\n\nstill open\n").finished).toEqual([]);
});

test("streaming commits finished blocks whatever the chunking, and the tail on completion", () => {
  const md = "Intro line.\n\n- a\n- b\n\n```js\nx()\n\ny()\n```\n\nLast words";
  for (const size of [1, 3, 50]) {
    let s = run([{ type: "turn.started", turnId: "t", input: "q" }, ...deltas("m", md, size)]);
    expect(s.items.map((i) => (i.kind === "markdown" ? i.text : i.kind))).toEqual(["user", "Intro line.", "- a\n- b", "```js\nx()\n\ny()\n```"]);
    expect(s.live.tail).toBe("Last words");
    s = reduce(s, { type: "message.completed", messageId: "m", message: { role: "assistant", content: md } });
    expect(s.items.at(-1)).toEqual({ kind: "markdown", text: "Last words" });
    expect(s.live.tail).toBe("");
  }
});

test("thinking is committed before the answer; tools group per batch; turn.completed updates status", () => {
  const s = run([
    { type: "turn.started", turnId: "t", input: "q" },
    { type: "message.delta", messageId: "m", thinking: "hmm" },
    { type: "message.delta", messageId: "m", text: "ok" },
    { type: "tool.started", callId: "1", name: "read", args: {}, title: "a", batchId: "b" },
    { type: "tool.updated", callId: "1", output: "par" },
    { type: "tool.updated", callId: "1", output: "tial" },
  ]);
  expect(s.items.map((i) => i.kind)).toEqual(["user", "thinking", "markdown"]);
  expect(s.live.tools?.calls[0]?.output).toBe("partial");
  expect(s.status.running).toBe(true);
  expect(s.status.turnStartedAt).toBe(1000);
  const t = run(
    [
      { type: "tool.completed", callId: "1", name: "read", isError: true, result: "nope", durationMs: 1, batchId: "b" },
      { type: "turn.completed", turnId: "t", stopReason: "stop", usage: zeroUsage, totalUsage: { ...zeroUsage, inputTokens: 5 }, contextTokens: 50, contextWindow: 100, costUsd: 0.5 },
    ],
    s,
  );
  const last = t.items.at(-1);
  expect(last?.kind === "tools" && last.calls[0]?.status).toBe("error");
  expect(t.status).toMatchObject({ running: false, contextTokens: 50, contextWindow: 100, costUsd: 0.5, totalInputTokens: 5 });
});

test("history.replaced, ui.clear and display mode changes bump the epoch", () => {
  const s = run([
    { type: "notice", level: "info", text: "x" },
    { type: "history.replaced", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello", toolCalls: [{ id: "c", name: "read", arguments: "{}" }] }, { role: "tool", toolCallId: "c", name: "read", content: "data" }] },
  ]);
  expect(s.epoch).toBe(1);
  expect(s.items.map((i) => i.kind)).toEqual(["user", "markdown", "tools"]);
  const u = run([{ type: "ui.set_display_mode", mode: "compact" }, { type: "ui.clear" }], s);
  expect(u.epoch).toBe(3);
  expect(u.items).toEqual([]);
  expect(u.displayMode).toBe("compact");
});

test("approval, queue, mode and model events land in state", () => {
  const s = run([
    { type: "approval.requested", requestId: "r", tool: "exec", action: "ls", reason: "ask" },
    { type: "queue.updated", items: ["a"] },
    { type: "permission_mode.changed", mode: "plan" },
    { type: "model.changed", provider: "google", model: "g" },
    { type: "retry", attempt: 2, delayMs: 1500, error: { kind: "rate_limit", message: "429", retryable: true, fallbackable: false } },
  ]);
  expect(s.approval?.requestId).toBe("r");
  expect(s.queue).toEqual(["a"]);
  expect(s.status.permissionMode).toBe("plan");
  expect(s.status.model).toBe("g");
  expect(s.items.at(-1)).toEqual({ kind: "notice", level: "warn", text: "Retry 2 in 1.5s: 429" });
  expect(run([{ type: "approval.resolved", requestId: "r", decision: "deny" }], s).approval).toBeNull();
});

test("live exec output keeps a bounded tail in the view state and the preview counts every line (issue 26 #6)", () => {
  let s = run([
    { type: "turn.started", turnId: "t", input: "q" },
    { type: "tool.started", callId: "1", name: "exec", args: {}, title: "exec yes", batchId: "b" },
  ]);
  const chunk = "y\n".repeat(32 * 1024); // 64 KB per chunk, as a pipe delivers it
  const chunks = 800; // 51 MB in all
  for (let i = 0; i < chunks; i++) s = reduce(s, { type: "tool.updated", callId: "1", output: chunk }, 1000);
  const call = s.live.tools!.calls[0]!;
  expect(call.output.length).toBeLessThanOrEqual(64 * 1024);
  expect(call.droppedChars! + call.output.length).toBe(chunk.length * chunks);
  const totalLines = 32 * 1024 * chunks;
  const chunks2 = toolChunks(s.live.tools!.calls, { mode: "full", showThinking: false, labels: {} });
  const shown = chunks2.map((c) => c.text).join("");
  expect(shown).toContain(`${totalLines - 6} more lines`);
  expect(shown.split("\n").filter((l) => l.trim() === "y")).toHaveLength(6);
  s = reduce(s, { type: "tool.completed", callId: "1", name: "exec", isError: false, result: "y\n".repeat(4_000_000) + "exit code 0", durationMs: 5, batchId: "b" }, 1000);
  const done = s.live.tools?.calls[0] ?? s.items.flatMap((i) => (i.kind === "tools" ? i.calls : []))[0]!;
  expect(done.output.length).toBeLessThanOrEqual(64 * 1024);
  expect(done.output.endsWith("exit code 0")).toBe(true);
  expect(done.droppedLines! + done.output.split("\n").length - 1).toBe(4_000_000);
});
