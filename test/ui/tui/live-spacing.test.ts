// The live area keeps the blank line committed items are separated by, so nothing moves by a row when a
// streaming block or a running tool group commits (a jump a user scrolled up would see, and flicker at the bottom).
import { expect, test } from "bun:test";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("live-spacing-");
const rowOf = (frame: string, text: string) => frame.split("\n").findIndex((l) => l.includes(text));

test("a streaming block sits where it lands once committed", async () => {
  const session = new FakeSession();
  await tui.start({ session, gitBranch: "main", onExit: () => {} }, { width: 60, height: 20 });
  session.emit({ type: "turn.started", turnId: "t1", input: "hello" });
  streamAnswer(session, "m1", "First para.\n\nline a\nline b");
  const live = await tui.frame((x) => x.includes("line b"));
  session.emit({ type: "message.completed", messageId: "m1", message: { role: "assistant", content: "First para.\n\nline a\nline b" } });
  session.emit(turnCompleted("t1"));
  const done = await tui.frame((x) => !x.includes("esc to"));
  expect(rowOf(live, "First para.")).toBe(rowOf(done, "First para."));
  expect(rowOf(live, "line a")).toBe(rowOf(done, "line a"));
  expect(rowOf(done, "line a") - rowOf(done, "First para.")).toBe(2);
});

test("a running tool group sits where it lands once completed", async () => {
  const session = new FakeSession();
  await tui.start({ session, gitBranch: "main", onExit: () => {} }, { width: 60, height: 20 });
  session.emit({ type: "turn.started", turnId: "t1", input: "run it" });
  session.emit({ type: "tool.started", callId: "c1", name: "exec", args: {}, title: "exec ls -la", batchId: "b1" });
  const live = await tui.frame((x) => x.includes("Exec ls -la"));
  session.emit({ type: "tool.completed", callId: "c1", name: "exec", isError: false, result: "total 0", durationMs: 3, batchId: "b1" });
  session.emit(turnCompleted("t1"));
  const done = await tui.frame((x) => x.includes("total 0") && !x.includes("esc to"));
  expect(rowOf(live, "Exec ls -la")).toBe(rowOf(done, "Exec ls -la"));
  expect(rowOf(done, "Exec ls -la") - rowOf(done, "› run it")).toBe(2);
});
