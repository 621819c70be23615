// Issue 20 in the TUI: running children as a live group above the prompt (agent, task, turns, tokens, elapsed,
// current tool), gone when they finish; the rows are folded from `subagent.*` events (a replay rebuilds them).
import { expect, test } from "bun:test";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-subagents-");

test("running children show as a live group with their progress; finished ones leave it", async () => {
  const session = new FakeSession();
  const { app } = await tui.start({ session }, { width: 120, height: 30 });
  session.emit({ type: "turn.started", turnId: "t1", input: "fan out" });
  session.emit({ type: "subagent.started", agentId: "agent_1", parentId: "main", callId: "c1", agent: "explore", description: "find the loader", depth: 1 });
  session.emit({ type: "subagent.started", agentId: "agent_2", parentId: "main", callId: "c2", agent: "general", description: "fix the test", depth: 1 });
  session.emit({ type: "subagent.progress", agentId: "agent_1", parentId: "main", turns: 2, tokens: 1234, currentTool: "search loadConfig", elapsedMs: 3000 });
  let f = await tui.frame((x) => x.includes("search loadConfig"));
  expect(f).toContain("Subagents (2 running, 2 in all)");
  expect(f).toMatch(/explore \(agent_1\) · find the loader · 2 turns · 1234 tok · \d+\.\ds · search loadConfig/);
  expect(f).toContain("general (agent_2) · fix the test");
  session.emit({ type: "subagent.completed", agentId: "agent_1", parentId: "main", callId: "c1", agent: "explore", status: "completed", turns: 3, tokens: 2000, durationMs: 4000, result: "found" });
  f = await tui.frame((x) => x.includes("1 running"));
  expect(f).toContain("Subagents (1 running, 2 in all)");
  expect(f).not.toContain("find the loader");
  session.emit({ type: "subagent.completed", agentId: "agent_2", parentId: "main", callId: "c2", agent: "general", status: "timeout", turns: 1, tokens: 10, durationMs: 9000, result: "partial" });
  f = await tui.frame((x) => !x.includes("Subagents ("));
  expect(f).not.toContain("Subagents (");
  expect(app.state.subagents?.map((r) => r.status)).toEqual(["completed", "timeout"]);
});
