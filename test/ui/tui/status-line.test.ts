// Status line figures: cost only once a priced call happened, the first request's size before any turn, one
// token format shared with /stats, the provider actually serving during a fallback; notices in event order.
import { describe, expect, test } from "bun:test";
import { initialViewState, reduce, type ViewInput, type ViewState } from "../../../src/ui/tui/view-model.ts";
import { formatTokens, statusText } from "../../../src/ui/tui/status-line.ts";
import { statsText } from "../../../src/cli/interactive-commands.ts";
import { UsageTracker } from "../../../src/llm/usage.ts";
import { zeroUsage } from "./fake-session.ts";

const init = (o: { contextTokens?: number; contextWindow?: number } = {}) =>
  initialViewState({ provider: "OPENAI", model: "gpt-4o", permissionMode: "default", displayMode: "full", ...o });
const run = (events: ViewInput[], s: ViewState = init()) => events.reduce((acc, e) => reduce(acc, e, 1000), s);
const done = (extra: { costUsd?: number } = {}): ViewInput => ({ type: "turn.completed", turnId: "t", stopReason: "stop", usage: zeroUsage, totalUsage: zeroUsage, contextTokens: 2000, contextWindow: 32_768, ...extra });
const line = (s: ViewState) => statusText(s, 1000, 0);

test("no priced call: no cost segment (not $0.0000); a priced call shows its cost as /stats does", () => {
  expect(line(init())).not.toContain("$");
  const unpriced = run([{ type: "turn.started", turnId: "t", input: "q" }, done()]);
  expect(line(unpriced)).not.toContain("$");
  expect(line(run([done({ costUsd: 0.5 })], unpriced))).toContain(" · $0.50 · ");
  expect(line(run([done({ costUsd: 0.0042 })]))).toContain(" · $0.0042 · ");
});

test("before the first turn the status line shows the first request's estimated size", () => {
  const s = init({ contextTokens: 1600, contextWindow: 32_768 });
  expect(line(s)).toContain("1.6k/32.8k (5%)");
});

test("one token format: 32,768 reads 32.8k in the status line and in /stats", () => {
  expect(formatTokens(32_768)).toBe("32.8k");
  expect(formatTokens(32_000)).toBe("32k");
  expect(formatTokens(1_234)).toBe("1.2k");
  expect(formatTokens(131_072)).toBe("131k");
  expect(formatTokens(950)).toBe("950");
  expect(formatTokens(1_500_000)).toBe("1.5M");
  expect(line(run([done()]))).toContain("2k/32.8k (6%)");
  expect(statsText(new UsageTracker(), 1600, 32_768)).toContain("Context: 1.6k / 32.8k tokens (5%)");
});

test("provider.switched: the status line names the fallback serving, and the primary again when it serves", () => {
  const s = run([{ type: "provider.switched", from: "OPENAI:gpt-4o", to: "OLLAMA:qwen3:8b", reason: "overloaded: busy" }]);
  expect(line(s).startsWith("OLLAMA:qwen3:8b (fallback) · ")).toBe(true);
  expect(line(s)).not.toContain("gpt-4o");
  const back = run([{ type: "provider.switched", from: "OLLAMA:qwen3:8b", to: "OPENAI:gpt-4o", reason: "primary available again" }], s);
  expect(line(back).startsWith("OPENAI · gpt-4o · ")).toBe(true);
  const picked = run([{ type: "model.changed", provider: "CLAUDEAI", model: "claude-x" }], s);
  expect(line(picked).startsWith("CLAUDEAI · claude-x · ")).toBe(true);
});

test("notices come after the block that preceded them: a finished tool group, the partial answer", () => {
  const toolsThenNotice = run([
    { type: "turn.started", turnId: "t", input: "q" },
    { type: "tool.started", callId: "1", name: "read", args: {}, title: "read a", batchId: "b" },
    { type: "tool.completed", callId: "1", name: "read", isError: false, result: "x", durationMs: 1, batchId: "b" },
    { type: "pipeline", stage: "microcompact", summary: "microcompact: 1 old result shortened" },
  ]);
  expect(toolsThenNotice.items.map((i) => i.kind)).toEqual(["user", "tools", "notice"]);
  expect(toolsThenNotice.live.tools).toBeNull();

  const interrupted = run([
    { type: "turn.started", turnId: "t", input: "q" },
    { type: "tool.started", callId: "1", name: "exec", args: {}, title: "exec sleep", batchId: "b" },
    { type: "tool.completed", callId: "1", name: "exec", isError: true, result: "[interrupted]", durationMs: 1, batchId: "b" },
    { type: "notice", level: "info", text: "Interrupted." },
    { ...done(), stopReason: "interrupted" } as ViewInput,
  ]);
  expect(interrupted.items.map((i) => i.kind)).toEqual(["user", "tools", "notice"]);

  const midAnswer = run([
    { type: "turn.started", turnId: "t", input: "q" },
    { type: "message.delta", messageId: "m", text: "partial answer" },
    { type: "error", message: "stream dropped" },
    { type: "message.completed", messageId: "m", message: { role: "assistant", content: "partial answer" } },
  ]);
  expect(midAnswer.items.map((i) => (i.kind === "markdown" ? i.text : i.kind))).toEqual(["user", "partial answer", "notice"]);

  // A call still running keeps its group live (its output must still reach it).
  const running = run([
    { type: "tool.started", callId: "1", name: "exec", args: {}, title: "exec", batchId: "b" },
    { type: "notice", level: "info", text: "note" },
    { type: "tool.updated", callId: "1", output: "more" },
  ]);
  expect(running.live.tools?.calls[0]?.output).toBe("more");
});

test("the sandbox shows in the status line only when commands are not contained", () => {
  expect(line(init())).not.toContain("sandbox");
  const off = initialViewState({ provider: "OPENAI", model: "gpt-4o", permissionMode: "default", displayMode: "full", sandbox: "sandbox off" });
  expect(line(off)).toContain(" · default · sandbox off");
});

test("the probe's late answer sets (or clears) the sandbox segment", () => {
  const unavailable = run([{ type: "ui.set_sandbox", label: "no sandbox" }]);
  expect(line(unavailable)).toContain(" · default · no sandbox");
  expect(line(run([{ type: "ui.set_sandbox", label: undefined }], unavailable))).not.toContain("sandbox");
});

describe("narrow windows: the spinner and the permission mode stay, the git branch goes first", () => {
  const busy = (): ViewState => {
    const s = initialViewState({ provider: "OLLAMA", model: "qwen3-coder:30b", permissionMode: "accept-edits", displayMode: "full", gitBranch: "feature/very-long-branch-name", sandbox: "sandbox off", contextTokens: 1700, contextWindow: 32_768 });
    return run([{ type: "turn.started", turnId: "t", input: "q" }], s);
  };
  const at = (width: number, hint?: string) => statusText(busy(), 4000, 3, hint, width);

  test("unlimited: every part, branch last", () => {
    expect(at(Infinity)).toBe("OLLAMA · qwen3-coder:30b · 1.7k/32.8k (5%) · ⠸ 3s · esc to interrupt · accept-edits · sandbox off · ⎇ feature/very-long-branch-name");
  });

  for (const width of [40, 60, 80]) {
    test(`${width} columns: fits, keeps the spinner and the mode`, () => {
      const l = at(width);
      expect(Bun.stringWidth(l)).toBeLessThanOrEqual(width);
      expect(l).toContain("⠸ 3s");
      expect(l).toContain("accept-edits");
    });
  }

  test("what goes, in order: the branch, the provider, the interrupt hint, the context figures (short first), the sandbox, the model", () => {
    expect(at(100)).toBe("OLLAMA · qwen3-coder:30b · 1.7k/32.8k (5%) · ⠸ 3s · esc to interrupt · accept-edits · sandbox off");
    expect(at(80)).toBe("qwen3-coder:30b · 1.7k/32.8k (5%) · ⠸ 3s · accept-edits · sandbox off");
    expect(at(60)).toBe("qwen3-coder:30b · 5% · ⠸ 3s · accept-edits · sandbox off");
    expect(at(40)).toBe("qwen3-coder:30b · ⠸ 3s · accept-edits");
    expect(at(20)).toBe("⠸ 3s · accept-edits");
  });

  test("a hint is shortened before the spinner or the mode go", () => {
    const l = at(40, "Ctrl+C again to exit (or type /exit)");
    expect(Bun.stringWidth(l)).toBeLessThanOrEqual(40);
    expect(l.startsWith("Ctrl+C")).toBe(true);
    expect(l.endsWith("⠸ 3s · accept-edits")).toBe(true);
  });

  test("idle at 40 columns: the mode stays and the queue count too", () => {
    const idle = run([{ type: "queue.updated", items: ["next"] }], initialViewState({ provider: "OLLAMA", model: "qwen3:8b", permissionMode: "plan", displayMode: "full", gitBranch: "main" }));
    const l = statusText(idle, 0, 0, undefined, 40);
    expect(Bun.stringWidth(l)).toBeLessThanOrEqual(40);
    expect(l).toContain("plan");
    expect(l).not.toContain("⎇");
  });
});

test("chatcli connect: the connection label is in the status line and outlives the provider and cost at narrow widths", () => {
  const s = run([{ type: "ui.set_connection", label: "connected to 127.0.0.1:7433" }]);
  expect(line(s)).toContain(" · connected to 127.0.0.1:7433");
  const narrow = statusText(s, 1000, 0, undefined, 50);
  expect(narrow).toContain("connected to 127.0.0.1:7433");
  expect(narrow).not.toContain("OPENAI");
  expect(line(run([{ type: "ui.set_connection", label: "reconnecting…" }], s))).toContain("reconnecting…");
  expect(line(init())).not.toContain("connected");
});
