import { expect, test } from "bun:test";
import { ManualClock, type TestRendererSetup } from "@opentui/core/testing";
import type { TuiApp, TuiAppOptions } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-app-");
const frame = tui.frame;
let setup: TestRendererSetup;
let session: FakeSession;
let app: TuiApp;
let exits: number[];

async function start(extra: Partial<TuiAppOptions> = {}, size: { width: number; height: number; clock?: ManualClock } = { width: 80, height: 24 }) {
  session = new FakeSession();
  exits = [];
  ({ setup, app } = await tui.start({ session, gitBranch: "main", onExit: (c) => exits.push(c), ...extra }, size));
}

/** The renderer on OpenTUI's manual clock: guards and the stdin parser's ESC flush move only when the test says. */
async function startOnManualClock(): Promise<ManualClock> {
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  await start({}, { width: 80, height: 24, clock });
  return clock;
}

test("idle frame shows the prompt and the status line", async () => {
  await start();
  const f = await frame();
  expect(f).toContain("ollama · qwen3:8b");
  expect(f).toContain("default");
  expect(f).toContain("⎇ main");
  expect(f).toMatchSnapshot();
});

test("typing and Enter submits user_input, the turn streams markdown and commits", async () => {
  await start();
  await setup.mockInput.typeText("hello there");
  setup.mockInput.pressEnter();
  expect(session.opsOf("user_input")).toEqual([{ type: "user_input", text: "hello there" }]);
  session.emit({ type: "turn.started", turnId: "t1", input: "hello there" });
  streamAnswer(session, "m1", "# Title\n\nFirst paragraph.\n\nStreaming tail");
  const f = await frame((x) => x.includes("First paragraph"));
  expect(f).toContain("› hello there");
  expect(f).toContain("Title");
  expect(f).not.toContain("# Title");
  expect(f).toContain("Streaming tail");
  expect(app.state.items.map((i) => i.kind)).toEqual(["user", "markdown", "markdown"]);
  expect(app.state.live.tail).toBe("Streaming tail");
  session.emit(turnCompleted("t1"));
  const g = await frame();
  expect(g).toContain("1.2k/32k (4%)");
  expect(g).toMatchSnapshot();
});

test("approval box: keys before it and within 250 ms are ignored, then y answers once", async () => {
  const clock = await startOnManualClock();
  session.emit({ type: "turn.started", turnId: "t1", input: "go" });
  session.emit({ type: "approval.requested", requestId: "r1", tool: "exec", action: "rm -rf build", reason: "not allow-listed" });
  const f = await frame((x) => x.includes("Permission required"));
  expect(f).toContain("exec: rm -rf build");
  expect(f).toContain("[y] once");
  expect(f).toMatchSnapshot();
  setup.mockInput.pressKey("y");
  expect(session.opsOf("approval")).toEqual([]);
  expect(app.prompt.plainText).toBe("");
  clock.advance(249); // still inside the guard
  setup.mockInput.pressKey("y");
  expect(session.opsOf("approval")).toEqual([]);
  clock.advance(2);
  setup.mockInput.pressKey("y");
  expect(session.opsOf("approval")).toEqual([{ type: "approval", requestId: "r1", decision: "once" }]);
  expect((await frame()).includes("Permission required")).toBe(false);
});

test("queue is shown and ctrl+x removes the last queued item", async () => {
  await start();
  session.emit({ type: "turn.started", turnId: "t1", input: "first" });
  await setup.mockInput.typeText("second");
  setup.mockInput.pressEnter();
  expect(session.opsOf("user_input").at(-1)).toEqual({ type: "user_input", text: "second" });
  session.emit({ type: "queue.updated", items: ["second", "third"] });
  const f = await frame((x) => x.includes("queued"));
  expect(f).toContain("▼ 2 queued");
  expect(f).toContain("2. third");
  setup.mockInput.pressKey("x", { ctrl: true });
  expect(session.opsOf("remove_queued")).toEqual([{ type: "remove_queued", index: 1 }]);
});

test("commands that arrive after the first frame (custom commands, skills) join an open completion list at once", async () => {
  let deliver: (x: { commands: { name: string; description: string }[]; events: [] }) => void = () => undefined;
  await start({ lateExtras: new Promise((r) => (deliver = r)) });
  await setup.mockInput.typeText("/revi");
  expect(await frame()).not.toContain("/review-file");
  deliver({ commands: [{ name: "review-file", description: "Review one file (project)" }], events: [] });
  const f = await frame((x) => x.includes("/review-file"));
  expect(f).toContain("/review-file");
  expect(f).toContain("(project)");
});

test("slash completion filters as you type and Tab completes", async () => {
  await start();
  await setup.mockInput.typeText("/co");
  let f = await frame((x) => x.includes("/compact"));
  expect(f).toContain("▶ /compact");
  expect(f).not.toContain("/help");
  setup.mockInput.pressTab();
  expect(app.prompt.plainText).toBe("/compact ");
  await setup.mockInput.typeText("keep the API notes");
  setup.mockInput.pressEnter();
  expect(session.opsOf("compact")).toEqual([{ type: "compact", instruction: "keep the API notes" }]);
  f = await frame();
  expect(f).not.toContain("▶");
});

test("unknown slash commands go to onSlashCommand and its text becomes a notice", async () => {
  const calls: string[] = [];
  await start({ onSlashCommand: async (c, a) => (calls.push(`${c}|${a}`), `did ${c}`) });
  await setup.mockInput.typeText("/frobnicate now");
  setup.mockInput.pressEnter();
  await Bun.sleep(10);
  expect(calls).toEqual(["frobnicate|now"]);
  expect(await frame((x) => x.includes("did frobnicate"))).toContain("did frobnicate");
});

test("Esc interrupts a running turn", async () => {
  const clock = await startOnManualClock();
  session.emit({ type: "turn.started", turnId: "t1", input: "go" });
  setup.mockInput.pressEscape();
  expect(session.opsOf("interrupt")).toHaveLength(0); // a lone ESC waits for the parser's flush
  clock.advance(25);
  expect(session.opsOf("interrupt")).toHaveLength(1);
});

test("Esc Esc on an empty idle prompt requests rewind; on text it clears the prompt", async () => {
  let rewinds = 0;
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  await start({ onRewindRequest: () => rewinds++ }, { width: 80, height: 24, clock });
  setup.mockInput.pressEscape();
  clock.advance(25);
  setup.mockInput.pressEscape();
  clock.advance(25);
  expect(rewinds).toBe(1);
  await setup.mockInput.typeText("draft");
  setup.mockInput.pressEscape();
  setup.mockInput.pressEscape();
  clock.advance(25);
  expect(app.prompt.plainText).toBe("");
  expect(rewinds).toBe(1);
});

test("Ctrl+C clears the prompt, a second Ctrl+C quits", async () => {
  await start();
  await setup.mockInput.typeText("some text");
  setup.mockInput.pressCtrlC();
  expect(app.prompt.plainText).toBe("");
  expect(exits).toEqual([]);
  expect(await frame((x) => x.includes("again to quit"))).toContain("Press Ctrl+C again to quit");
  setup.mockInput.pressCtrlC();
  expect(exits).toEqual([0]);
  expect(session.opsOf("shutdown")).toHaveLength(1);
});

test("a key typed after Ctrl+C disarms it: Ctrl+C then clears the new text instead of quitting", async () => {
  await start();
  await setup.mockInput.typeText("first draft");
  setup.mockInput.pressCtrlC();
  await setup.mockInput.typeText("second");
  expect(await frame((x) => !x.includes("again to quit"))).not.toContain("again to quit");
  setup.mockInput.pressCtrlC();
  expect(exits).toEqual([]);
  expect(app.prompt.plainText).toBe("");
  setup.mockInput.pressCtrlC();
  expect(exits).toEqual([0]);
});

test("Ctrl+D quits only on an empty prompt", async () => {
  await start();
  await setup.mockInput.typeText("x");
  setup.mockInput.pressKey("d", { ctrl: true });
  expect(exits).toEqual([]);
  setup.mockInput.pressBackspace();
  setup.mockInput.pressKey("d", { ctrl: true });
  expect(exits).toEqual([0]);
});

test("Shift+Tab cycles default → accept-edits → plan → default", async () => {
  await start();
  for (let i = 0; i < 3; i++) setup.mockInput.pressTab({ shift: true });
  expect(session.opsOf("set_permission_mode").map((o) => o.mode)).toEqual(["accept-edits", "plan", "default"]);
  setup.mockInput.pressTab({ shift: true });
  expect(await frame((x) => x.includes("accept-edits"))).toContain("· accept-edits ·");
});

test("prompt history persists and ↑ recalls it", async () => {
  await start();
  await setup.mockInput.typeText("remember me");
  setup.mockInput.pressEnter();
  app.destroy();
  await setup.dispose();
  await start();
  setup.mockInput.pressArrow("up");
  expect(app.prompt.plainText).toBe("remember me");
});

test("scrolling up is not yanked by new output; End re-sticks", async () => {
  await start({}, { width: 60, height: 14 });
  for (let i = 0; i < 30; i++) session.emit({ type: "notice", level: "info", text: `line ${i}` });
  let f = await frame((x) => x.includes("line 29"));
  expect(f).toContain("line 29");
  setup.mockInput.pressKeys(["\x1b[5~"]);
  f = await frame((x) => !x.includes("line 29"));
  expect(f).not.toContain("line 29");
  session.emit({ type: "notice", level: "info", text: "fresh output" });
  f = await frame();
  expect(f).not.toContain("fresh output");
  setup.mockInput.pressKeys(["\x1b[F"]);
  expect(await frame((x) => x.includes("fresh output"))).toContain("fresh output");
});

test("tool groups render as Name × N with per-call titles", async () => {
  await start();
  session.emit({ type: "turn.started", turnId: "t1", input: "look" });
  for (const [id, f] of [["c1", "a.ts"], ["c2", "b.ts"], ["c3", "c.ts"]] as const) {
    session.emit({ type: "tool.started", callId: id, name: "read", args: {}, title: f, batchId: "b1" });
  }
  for (const id of ["c1", "c2", "c3"]) {
    session.emit({ type: "tool.completed", callId: id, name: "read", isError: false, result: `content of ${id}`, durationMs: 3, batchId: "b1" });
  }
  session.emit(turnCompleted("t1"));
  session.emit({ type: "tool_use_summary", batchId: "b1", label: "Read three files", callIds: ["c1", "c2", "c3"] });
  const f = await frame((x) => x.includes("Read three files"));
  expect(f).toContain("Read × 3");
  expect(f).toContain("⎿ b.ts");
  expect(f).toContain("● Read three files");
  expect(f).toMatchSnapshot();
});

test("thinking: expanded in full, collapsed in compact, and Ctrl+T flips it in either mode", async () => {
  await start({ displayMode: "compact" });
  session.emit({ type: "turn.started", turnId: "t1", input: "q" });
  session.emit({ type: "message.delta", messageId: "m1", thinking: "weighing the options" });
  session.emit({ type: "message.delta", messageId: "m1", text: "answer" });
  session.emit({ type: "message.completed", messageId: "m1", message: { role: "assistant", content: "answer" } });
  session.emit(turnCompleted("t1"));
  let f = await frame((x) => x.includes("answer"));
  expect(f).toContain("Thinking (1 line, ctrl+t to show)");
  expect(f).not.toContain("weighing the options");
  setup.mockInput.pressKey("t", { ctrl: true });
  f = await frame((x) => x.includes("weighing the options"));
  expect(f).toContain("✻ weighing the options");
  setup.mockInput.pressKey("t", { ctrl: true });
  await setup.mockInput.typeText("/ui full");
  setup.mockInput.pressEnter();
  f = await frame((x) => x.includes("Display mode: full"));
  expect(f).toContain("✻ weighing the options");
  setup.mockInput.pressKey("t", { ctrl: true });
  expect(await frame((x) => x.includes("ctrl+t to show"))).not.toContain("weighing the options");
});

test("a single call's header does not repeat the tool name its title starts with", async () => {
  await start();
  session.emit({ type: "turn.started", turnId: "t1", input: "run" });
  session.emit({ type: "tool.started", callId: "c1", name: "exec", args: {}, title: "exec ls -la", batchId: "b1" });
  session.emit({ type: "tool.completed", callId: "c1", name: "exec", isError: false, result: "total 0", durationMs: 3, batchId: "b1" });
  session.emit(turnCompleted("t1"));
  const f = await frame((x) => x.includes("total 0"));
  expect(f).toContain("● Exec ls -la");
  expect(f).not.toContain("Exec exec");
});

test("a mouse selection is copied with OSC 52 and handed to onCopy", async () => {
  const copied: string[] = [];
  await start({ onCopy: (t) => copied.push(t) });
  session.emit({ type: "notice", level: "info", text: "select these words please" });
  const f = await frame((x) => x.includes("select these words"));
  const row = f.split("\n").findIndex((l) => l.includes("select these words"));
  const col = f.split("\n")[row]!.indexOf("these");
  await setup.mockMouse.drag(col, row, col + 10, row); // the end cell is included
  await setup.renderOnce();
  expect(copied).toEqual(["these words"]);
});

test("Esc on the approval box (after the guard) denies the action and interrupts the turn", async () => {
  const clock = await startOnManualClock();
  session.emit({ type: "turn.started", turnId: "t1", input: "go" });
  session.emit({ type: "approval.requested", requestId: "r1", tool: "exec", action: "make deploy", reason: "not allow-listed" });
  await frame((x) => x.includes("Permission required"));
  setup.mockInput.pressEscape();
  clock.advance(25); // flushes the stdin parser's lone ESC; 25 ms is inside the 250 ms guard
  expect(session.opsOf("approval")).toEqual([]);
  clock.advance(250);
  setup.mockInput.pressEscape();
  clock.advance(25);
  expect(session.opsOf("approval")).toEqual([{ type: "approval", requestId: "r1", decision: "deny" }]);
  expect(session.opsOf("interrupt")).toEqual([{ type: "interrupt" }]);
  expect((await frame()).includes("Permission required")).toBe(false);
});
