// Text-protocol tool calls are part of the model's answer; the transcript must show only the prose.
import { expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-textproto-");

test("tool-call markup streamed in an answer never shows; the prose and the tool group do", async () => {
  const session = new FakeSession();
  let setup: TestRendererSetup;
  let app: TuiApp;
  ({ setup, app } = await tui.start({ session }, { width: 90, height: 24 }));
  void setup;
  session.emit({ type: "turn.started", turnId: "t1", input: "check it" });
  const raw = `I'll read the file first.\n\n<tool_call name="read" args='{"path":"hello.txt"}' />`;
  streamAnswer(session, "m1", raw, 5);
  session.emit({ type: "message.completed", messageId: "m1", message: { role: "assistant", content: raw }, displayText: "I'll read the file first." });
  session.emit({ type: "tool.started", callId: "c1", name: "read", args: { path: "hello.txt" }, title: "read hello.txt", batchId: "b1" });
  session.emit({ type: "tool.completed", callId: "c1", name: "read", isError: false, result: "1\thello world", durationMs: 3, batchId: "b1" });
  streamAnswer(session, "m2", "The file says hello world.");
  session.emit({ type: "message.completed", messageId: "m2", message: { role: "assistant", content: "The file says hello world." } });
  session.emit(turnCompleted("t1"));
  const f = await tui.frame((x) => x.includes("The file says hello world."));
  expect(f).toContain("I'll read the file first.");
  expect(f).toContain("hello.txt");
  expect(f).not.toContain("tool_call");
  expect(f).not.toContain("args=");
  expect(app.state.items.some((i) => "text" in i && typeof i.text === "string" && i.text.includes("<tool_call"))).toBe(false);
});
