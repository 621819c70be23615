// Issue 20 in the TUI: `/agents` opens a picker over the children (running and finished); Enter on one offers its
// own transcript (shown in the transcript area) and, for a running one, cancelling it alone.
import { expect, test } from "bun:test";
import { subagentPickerFlow } from "../../../src/cli/subagent-picker.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { foldSubagent, type SubagentRow } from "../../../src/ui/shared/subagent-view.ts";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-subagents-picker-");

test("/agents: pick a finished child to read its transcript, pick a running one to cancel it alone", async () => {
  const session = new FakeSession();
  let rows: SubagentRow[] = [];
  const transcripts = new Map<string, Message[]>([
    [
      "agent_1",
      [
        { role: "user", content: "Which port does config.ini set?" },
        { role: "assistant", content: "", toolCalls: [{ id: "c9", name: "read", arguments: '{"path":"config.ini"}' }] },
        { role: "tool", toolCallId: "c9", name: "read", content: "port=8080" },
        { role: "assistant", content: "port 8080 (config.ini:1)" },
      ],
    ],
  ]);
  const cancelled: string[] = [];
  const flow = () =>
    subagentPickerFlow({
      rows: () => rows,
      transcript: (id) => transcripts.get(id),
      cancel: (id) => (cancelled.push(id), rows.some((r) => r.agentId === id && r.status === "running")),
    });
  const { setup } = await tui.start({ session, onPickerCommand: async (name, args) => (name === "agents" && !args ? flow() : undefined) }, { width: 120, height: 30 });
  for (const e of [
    { type: "subagent.started", agentId: "agent_1", parentId: "main", callId: "c1", agent: "explore", description: "find the port", depth: 1 },
    { type: "subagent.completed", agentId: "agent_1", parentId: "main", callId: "c1", agent: "explore", status: "completed", turns: 2, tokens: 500, durationMs: 1000, result: "port 8080" },
    { type: "subagent.started", agentId: "agent_2", parentId: "main", callId: "c2", agent: "general", description: "hangs forever", depth: 1 },
  ] as const) {
    rows = foldSubagent(rows, e, Date.now());
    session.emit(e);
  }

  await setup.mockInput.typeText("/agents");
  setup.mockInput.pressEnter();
  let f = await tui.frame((x) => x.includes("─ Subagents") && x.includes("hangs forever"));
  expect(f).toContain("explore (agent_1) · find the port");
  expect(f).toContain("general (agent_2) · hangs forever");
  setup.mockInput.pressEnter(); // the first child
  f = await tui.frame((x) => x.includes("Show its transcript"));
  expect(f).not.toContain("Cancel this subagent"); // it has finished
  setup.mockInput.pressEnter();
  f = await tui.frame((x) => x.includes("Transcript of explore (agent_1)"));
  expect(f).toContain("› Which port does config.ini set?");
  expect(f).toContain('→ read {"path":"config.ini"}');
  expect(f).toContain("⎿ read: port=8080");
  expect(f).toContain("port 8080 (config.ini:1)");
  expect(cancelled).toEqual([]);

  await setup.mockInput.typeText("/agents");
  setup.mockInput.pressEnter();
  f = await tui.frame((x) => x.includes("─ Subagents"));
  setup.mockInput.pressArrow("down");
  setup.mockInput.pressEnter(); // the running child
  f = await tui.frame((x) => x.includes("Cancel this subagent"));
  setup.mockInput.pressArrow("down");
  setup.mockInput.pressEnter();
  f = await tui.frame((x) => x.includes("Cancelled subagent agent_2."));
  expect(cancelled).toEqual(["agent_2"]);
}, 20000);

test("/agents with no children opens no picker", () => {
  expect(subagentPickerFlow({ rows: () => [], transcript: () => undefined, cancel: () => false })).toBeUndefined();
});
