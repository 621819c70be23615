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

test("runPlain: a line read behind a running turn is submitted after it, and answered before input end finishes the run", async () => {
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
  expect(session.opsOf("user_input").map((o) => o.text)).toEqual(["q1"]);
  streamAnswer(session, "m1", "A1\n");
  session.emit(turnCompleted("t1"));
  await Bun.sleep(5);
  expect(finished).toBe(false);
  expect(session.opsOf("user_input").map((o) => o.text)).toEqual(["q1", "q2"]);
  session.emit({ type: "turn.started", turnId: "t2", input: "q2" });
  streamAnswer(session, "m2", "A2\n");
  session.emit(turnCompleted("t2"));
  expect(await done).toBe(0);
  expect(out).toContain("A1");
  expect(out).toContain("A2");
});

test("runPlain: a piped script longer than the session's queue is submitted one line per turn, none dropped", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  const done = runPlain(session, input, { write: () => undefined });
  input.end(Array.from({ length: 15 }, (_, i) => `line ${i}`).join("\n") + "\n/exit\nnever sent\n");
  for (let i = 0; i < 15; i++) {
    await Bun.sleep(5);
    expect(session.opsOf("user_input").map((o) => o.text)).toEqual(Array.from({ length: i + 1 }, (_, k) => `line ${k}`));
    session.emit({ type: "turn.started", turnId: `t${i}`, input: `line ${i}` });
    session.emit(turnCompleted(`t${i}`));
  }
  expect(await done).toBe(0);
  expect(session.opsOf("user_input")).toHaveLength(15);
});

test("runPlain at a terminal: a `> ` marker whenever it waits for a prompt, an approval marker that says what to type", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(session, input, { write: (s: string) => (out += s) }, { interactive: true });
  expect(out).toBe("> ");
  input.write("\n"); // an empty line: asked again
  await Bun.sleep(5);
  expect(out).toBe("> > ");
  out = "";
  input.write("hello\n");
  await Bun.sleep(5);
  session.emit({ type: "turn.started", turnId: "t", input: "hello" });
  streamAnswer(session, "m", "Let me look.");
  session.emit({ type: "approval.requested", requestId: "r", tool: "exec", action: "ls", reason: "" });
  expect(out).toBe("Let me look.\n? exec: ls\n  type y (allow once), a (always), n (deny) or N (never), then Enter; anything else denies\nallow [y/a/n/N]> ");
  out = "";
  input.write("y\n");
  await Bun.sleep(5);
  expect(session.opsOf("approval")).toEqual([{ type: "approval", requestId: "r", decision: "once" }]);
  session.emit({ type: "tool_use_summary", batchId: "b", label: "Listed files", callIds: ["1"] });
  streamAnswer(session, "m2", "Done.");
  expect(out).toBe("● Listed files\nDone."); // the typed answer's Enter ended the marker line: no blank line
  session.emit(turnCompleted("t"));
  expect(out).toBe("● Listed files\nDone.\n> ");
  input.end();
  expect(await done).toBe(0);
  expect(out.endsWith("> \n")).toBe(true);
});

test("runPlain on piped input: no markers, the approval question still says what to type", async () => {
  const session = new FakeSession();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(session, input, { write: (s: string) => (out += s) }, { interactive: false });
  input.write("hello\n");
  await Bun.sleep(5);
  session.emit({ type: "turn.started", turnId: "t", input: "hello" });
  session.emit({ type: "approval.requested", requestId: "r", tool: "exec", action: "ls", reason: "" });
  input.write("n\n");
  await Bun.sleep(5);
  streamAnswer(session, "m", "ok\n");
  session.emit(turnCompleted("t"));
  input.end();
  expect(await done).toBe(0);
  expect(out).toBe("? exec: ls\n  type y (allow once), a (always), n (deny) or N (never), then Enter; anything else denies\nok\n");
});
