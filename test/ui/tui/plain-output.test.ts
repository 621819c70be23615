import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { runPlain } from "../../../src/ui/tui/plain-output.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";

test("runPlain streams text without escape codes and answers approvals from input", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(session, input, { write: (s: string) => (out += s) });
  input.write("hello\n");
  await Bun.sleep(5);
  expect(session.opsOf("user_input")).toEqual([{ type: "user_input", text: "hello" }]);
  session.emit({ type: "turn.started", turnId: "t", input: "hello" });
  streamAnswer(session, "m", "Hi **there**\n");
  session.emit({ type: "approval.requested", requestId: "r", tool: "exec", action: "ls", reason: "" });
  input.write("a\n");
  await Bun.sleep(5);
  expect(session.opsOf("approval")).toEqual([{ type: "approval", requestId: "r", decision: "always" }]);
  session.emit(turnCompleted("t"));
  input.end();
  expect(await done).toBe(0);
  expect(out).toContain("Hi **there**");
  expect(out).toContain("? exec: ls");
  expect(out).not.toContain("\x1b");
});

test("runPlain: a line queued behind a running turn is answered before input end finishes the run", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  let out = "";
  let finished = false;
  const done = runPlain(session, input, { write: (s: string) => (out += s) }).then((c) => ((finished = true), c));
  input.write("q1\n");
  await Bun.sleep(5);
  session.emit({ type: "turn.started", turnId: "t1", input: "q1" });
  input.write("q2\n");
  input.end();
  await Bun.sleep(5);
  // The session queued q2 behind the running turn.
  session.emit({ type: "queue.updated", items: ["q2"] });
  streamAnswer(session, "m1", "A1\n");
  session.emit(turnCompleted("t1"));
  await Bun.sleep(5);
  expect(finished).toBe(false);
  session.emit({ type: "queue.updated", items: [] });
  session.emit({ type: "turn.started", turnId: "t2", input: "q2" });
  streamAnswer(session, "m2", "A2\n");
  session.emit(turnCompleted("t2"));
  expect(await done).toBe(0);
  expect(out).toContain("A1");
  expect(out).toContain("A2");
});
