/**
 * Issue 15 items 4, 5 and 11 on screen: the transcript a compaction leaves (tools with their real titles, the
 * summary as a titled note, one plain line), the context meter right after it, over 100 %, and after --resume.
 */
import { expect, test } from "bun:test";
import { compactHistory } from "../../../src/agent/compaction/compactor.ts";
import { computeBudget } from "../../../src/agent/compaction/budget.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { transcriptEvents, withReplay } from "../../../src/store/session-replay.ts";
import type { LoadedSession } from "../../../src/store/session-file.ts";
import { FakeSession, turnCompleted } from "./fake-session.ts";
import { itemsFromHistory } from "../../../src/ui/tui/view-model.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-compaction-");
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(" ");

function agentWork(turns: number): Message[] {
  const h: Message[] = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `task ${i}` });
    h.push({ role: "assistant", content: "", toolCalls: [{ id: `r${i}`, name: "read_file", arguments: JSON.stringify({ path: `src/app${i}.ts` }) }] });
    h.push({ role: "tool", toolCallId: `r${i}`, name: "read_file", content: words(1_500 - i * 400) });
    h.push({ role: "assistant", content: "", toolCalls: [{ id: `e${i}`, name: "exec", arguments: JSON.stringify({ command: `bun test app${i}` }) }] });
    h.push({ role: "tool", toolCallId: `e${i}`, name: "exec", content: "3 pass\n0 fail" });
    h.push({ role: "assistant", content: `Task ${i} done.` });
  }
  return h;
}

/** A real compaction of `history` on a small window: the events the session sends for it. */
async function compactionEvents(history: Message[]): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const summarize = async () => "## Files Read\n- src/app0.ts (40 lines) - the entry point\n\n## Current Task State\n- Done: tasks 0-3";
  const budget = computeBudget({ contextWindow: 8_192, agent: true, overheadTokens: 1_000 });
  const r = await compactHistory({ history, budget, overheadTokens: 1_000, signal: new AbortController().signal, emit: (e) => events.push(e) }, { summarize });
  return [{ type: "history.replaced", messages: r.messages }, ...events];
}

test("after a compaction: real tool titles, the summary as a note, one plain line, the meter updated at once", async () => {
  const session = new FakeSession();
  await tui.start({ session, contextWindow: 8_192, contextTokens: 0 }, { width: 100, height: 40 });
  session.emit(turnCompleted("t0", { contextTokens: 12_400, contextWindow: 8_192 }));
  expect(await tui.frame((f) => f.includes("12.4k/8.2k (151%)"))).toContain("12.4k/8.2k (151%)");

  const events = await compactionEvents(agentWork(4));
  session.emit(...events);
  const report = events.find((e): e is Extract<AgentEvent, { type: "compaction" }> => e.type === "compaction")!;
  const frame = await tui.frame((f) => f.includes("Context compacted"));
  // One line, plain words, the status line's token format.
  expect(frame.match(/Context compacted/g)?.length).toBe(1);
  expect(frame).not.toMatch(/level \d|Emergency|Summariz(ing|ation)|\d\.\dK\b/);
  expect(frame).toContain("older messages summarized");
  // The tools of the kept messages under their real titles, never `Read read`.
  expect(frame).toContain("● Read src/app3.ts");
  expect(frame).toContain("Exec bun test app3");
  expect(frame).not.toMatch(/Read read|Read_file|Exec exec/);
  // The summary reads as a note with its notes, not as a message the user typed.
  expect(frame).toContain("Earlier conversation, summarized");
  expect(frame).toContain("the entry point");
  expect(frame).not.toContain("STRUCTURED SUMMARY");
  expect(frame).not.toContain("quoted exactly");
  // The meter shows what the next request carries, right away (no turn needed).
  const pct = Math.round((report.tokensAfter / 8_192) * 100);
  expect(frame).toContain(`(${pct}%)`);
  expect(pct).toBeLessThan(100);
  expect(frame).not.toContain("/compact");
});

test("over 100 % the meter says what to do; back under, the hint goes", async () => {
  const session = new FakeSession();
  await tui.start({ session, contextWindow: 4_096 }, { width: 120 });
  session.emit(turnCompleted("t0", { contextTokens: 10_445, contextWindow: 4_096 }));
  const over = await tui.frame((f) => f.includes("(255%)"));
  expect(over).toContain("10.4k/4.1k (255%) · too full: /compact");
  session.emit({ type: "compaction", level: 2, messagesBefore: 6, messagesAfter: 3, tokensBefore: 10_445, tokensAfter: 1_900, summary: "summary of 3 messages", trigger: "manual", summarized: 3 });
  const after = await tui.frame((f) => f.includes("1.9k/4.1k"));
  expect(after).toContain("1.9k/4.1k (46%)");
  expect(after).toContain("Context compacted (10.4k → 1.9k tokens): 3 older messages summarized.");
  expect(after).not.toContain("too full");
});

test("after --resume the meter shows the window of the model now in use, not the recorded one", async () => {
  const history: Message[] = [{ role: "user", content: "hello" }, { role: "assistant", content: "hi there" }];
  const recorded: AgentEvent[] = [
    { type: "turn.started", turnId: "t0", input: "hello" },
    { type: "message.completed", messageId: "m0", message: { role: "assistant", content: "hi there" } },
    turnCompleted("t0", { contextTokens: 44_100, contextWindow: 4_000_000 }),
  ];
  const loaded = { history, viewEvents: recorded, warnings: [] } as unknown as LoadedSession;
  const session = new FakeSession();
  const replayed = withReplay(session, transcriptEvents(loaded, { contextWindow: 32_768 }));
  await tui.start({ session: replayed, contextWindow: 32_768, contextTokens: 2_300 }, { width: 120 });
  const frame = await tui.frame((f) => f.includes("hi there") && f.includes("/32.8k"));
  expect(frame).toContain("2.3k/32.8k (7%)");
  expect(frame).not.toContain("/4M");
  expect(frame).not.toContain("44.1k");
});

test("a summary that compaction itself had to shorten still shows only its notes", () => {
  const content = `[STRUCTURED SUMMARY — covering 5 earlier messages]\n\n## Current Task State\n- Done: reviewed\n\n... [9949 chars omitted to fit the context window] ...\n\n token1498 token1499"\n(end of quoted user messages)`;
  const items = itemsFromHistory([{ role: "user", content, meta: { kind: "summary" } }, { role: "user", content: "[tool results]", meta: { kind: "tool_feedback" } }]);
  expect(items).toEqual([
    { kind: "notice", level: "info", text: "Earlier conversation, summarized (5 messages):" },
    { kind: "markdown", text: "## Current Task State\n- Done: reviewed" },
  ]);
});
