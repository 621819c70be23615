// Tool-use labels on screen (issue 9): full mode shows `● <label>` after the group; compact mode puts it in the
// group header when it arrives in time, else shows the standalone line — never twice, never zero times.
import { describe, expect, test } from "bun:test";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { initialViewState, reduce, type DisplayMode, type ViewInput, type ViewState } from "../../../src/ui/tui/view-model.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-summary-");
const frame = tui.frame;
let session: FakeSession;
let app: TuiApp;

async function start(displayMode: DisplayMode) {
  session = new FakeSession();
  ({ app } = await tui.start({ session, displayMode, gitBranch: "main" }, { height: 30 }));
}

const LABEL = "Read three config files";
const count = (f: string, s: string) => f.split(s).length - 1;
const lineOf = (f: string, s: string) => f.split("\n").findIndex((l) => l.includes(s));

function batch(s: FakeSession, batchId = "b1", ids = ["c1", "c2", "c3"]) {
  ids.forEach((id, i) => s.emit({ type: "tool.started", callId: id, name: "read", args: {}, title: `file${i}.json`, batchId }));
  for (const id of ids) s.emit({ type: "tool.completed", callId: id, name: "read", isError: false, result: `content of ${id}`, durationMs: 2, batchId });
}
const summary = (batchId = "b1", callIds = ["c1", "c2", "c3"], label = LABEL): AgentEvent => ({ type: "tool_use_summary", batchId, label, callIds });

/** The usual timing: the label lands while the main model streams the next answer. */
function inTime(s: FakeSession) {
  s.emit({ type: "turn.started", turnId: "t1", input: "check the configs" });
  batch(s);
  s.emit(summary());
  streamAnswer(s, "m2", "All three configs agree.\n\n");
  s.emit(turnCompleted("t1"));
}

/** The label lands after the group was committed (the answer already started, or the turn ended). */
function late(s: FakeSession) {
  s.emit({ type: "turn.started", turnId: "t1", input: "check the configs" });
  batch(s);
  streamAnswer(s, "m2", "All three configs agree.\n\n");
  s.emit(turnCompleted("t1"));
  s.emit(summary());
}

describe("full mode", () => {
  test("a label that arrives in time is its own dim line right after the group", async () => {
    await start("full");
    inTime(session);
    const f = await frame((x) => x.includes("All three configs agree"));
    expect(count(f, LABEL)).toBe(1);
    expect(f).toContain(`● ${LABEL}`);
    expect(f).toContain("Read × 3");
    const group = lineOf(f, "Read × 3");
    const label = lineOf(f, LABEL);
    expect(label).toBeGreaterThan(group);
    expect(label).toBeLessThan(lineOf(f, "All three configs agree"));
  });

  test("a late label still shows once, after the group", async () => {
    await start("full");
    late(session);
    const f = await frame((x) => x.includes(LABEL));
    expect(count(f, LABEL)).toBe(1);
    expect(lineOf(f, LABEL)).toBeGreaterThan(lineOf(f, "Read × 3"));
  });
});

describe("compact mode", () => {
  test("a label that arrives in time replaces the Tool × N header; no second line", async () => {
    await start("compact");
    inTime(session);
    const f = await frame((x) => x.includes("All three configs agree"));
    expect(count(f, LABEL)).toBe(1);
    expect(f).not.toContain("Read × 3");
    expect(lineOf(f, LABEL)).toBeLessThan(lineOf(f, "All three configs agree"));
  });

  test("a late label (the group was already drawn) still replaces its header, not a second line", async () => {
    await start("compact");
    late(session);
    const f = await frame((x) => x.includes(LABEL));
    expect(count(f, LABEL)).toBe(1);
    expect(f).not.toContain("Read × 3");
    expect(lineOf(f, LABEL)).toBeLessThan(lineOf(f, "All three configs agree"));
  });

  test("consecutive tool groups merge into one header showing the first batch's label", async () => {
    await start("compact");
    session.emit({ type: "turn.started", turnId: "t1", input: "check the configs" });
    batch(session, "b1", ["c1", "c2"]);
    batch(session, "b2", ["c3"]);
    streamAnswer(session, "m2", "All three configs agree.\n\n");
    session.emit(turnCompleted("t1"));
    let f = await frame((x) => x.includes("All three configs agree"));
    // Merged before any label: one header for the three reads.
    expect(f).toContain("Read × 3");
    // The second batch's label lands first: shown until the first batch's own label arrives.
    session.emit(summary("b2", ["c3"], "Checked file0"));
    f = await frame((x) => x.includes("Checked file0"));
    expect(f).not.toContain("Read × 3");
    session.emit(summary("b1", ["c1", "c2"], LABEL));
    f = await frame((x) => x.includes(LABEL));
    expect(count(f, LABEL)).toBe(1);
    expect(f).not.toContain("Checked file0");
    expect(f).not.toContain("Read × 3");
    expect(lineOf(f, LABEL)).toBeLessThan(lineOf(f, "All three configs agree"));
    // Full mode shows both groups and both labels as their own lines.
    app.dispatch({ type: "ui.set_display_mode", mode: "full" });
    f = await frame((x) => x.includes("Read × 2"));
    expect(count(f, LABEL)).toBe(1);
    expect(count(f, "● Checked file0")).toBe(1);
  });

  test("switching modes redraws with the label exactly once either way", async () => {
    await start("full");
    inTime(session);
    await frame((x) => x.includes("All three configs agree"));
    app.dispatch({ type: "ui.set_display_mode", mode: "compact" });
    let f = await frame((x) => !x.includes("Read × 3"));
    expect(count(f, LABEL)).toBe(1);
    expect(f).not.toContain("Read × 3");
    app.dispatch({ type: "ui.set_display_mode", mode: "full" });
    f = await frame((x) => x.includes("Read × 3"));
    expect(count(f, LABEL)).toBe(1);
  });

  test("late labels also stay single across a mode switch", async () => {
    await start("compact");
    late(session);
    await frame((x) => x.includes(LABEL));
    app.dispatch({ type: "ui.set_display_mode", mode: "full" });
    const f = await frame((x) => x.includes("file1.json"));
    expect(count(f, LABEL)).toBe(1);
  });
});

// --- Resume / replace: reducer level, plus one frame -----------------------------------------------------

const history: Message[] = [
  { role: "user", content: "check the configs" },
  {
    role: "assistant",
    content: "Reading them.",
    toolCalls: [
      { id: "c1", name: "read", arguments: '{"path":"a.json"}' },
      { id: "c2", name: "read", arguments: '{"path":"b.json"}' },
    ],
  },
  { role: "tool", toolCallId: "c1", name: "read", content: "{}" },
  { role: "tool", toolCallId: "c2", name: "read", content: "{}" },
  { role: "assistant", content: "They agree." },
];

const run = (inputs: ViewInput[], mode: DisplayMode = "full", from?: ViewState) =>
  inputs.reduce((s, e) => reduce(s, e, 0), from ?? initialViewState({ provider: "p", model: "m", permissionMode: "default", displayMode: mode }));

describe("restoring labels", () => {
  test("a saved label replayed after history.replaced lands right after its group (matched by call ids)", () => {
    const before = run([{ type: "history.replaced", messages: history }]);
    const s = run([summary("batch_7", ["c1", "c2"], "Read both configs")], "full", before);
    expect(s.items.map((i) => i.kind)).toEqual(["user", "markdown", "tools", "summary", "markdown"]);
    expect(s.items[2]).toMatchObject({ kind: "tools", label: "Read both configs" });
    expect(s.items[3]).toMatchObject({ kind: "summary", label: "Read both configs", inHeader: true });
    // Placed, not appended: the renderer must redraw.
    expect(s.epoch).toBeGreaterThan(before.epoch);
    // Replaying the same label again changes nothing.
    expect(run([summary("batch_7", ["c1", "c2"], "Read both configs")], "full", s)).toBe(s);
  });

  test("a label for a group that no longer exists is dropped", () => {
    const s = run([{ type: "history.replaced", messages: history.slice(0, 1) }, summary("batch_7", ["c1", "c2"])]);
    expect(s.items.filter((i) => i.kind === "summary")).toEqual([]);
  });

  test("rewind/compaction (history.replaced) keeps the labels already known", () => {
    const live = run([
      { type: "turn.started", turnId: "t1", input: "check the configs" },
      { type: "tool.started", callId: "c1", name: "read", args: {}, title: "a.json", batchId: "batch_3" },
      { type: "tool.started", callId: "c2", name: "read", args: {}, title: "b.json", batchId: "batch_3" },
      { type: "tool.completed", callId: "c1", name: "read", isError: false, result: "{}", durationMs: 1, batchId: "batch_3" },
      { type: "tool.completed", callId: "c2", name: "read", isError: false, result: "{}", durationMs: 1, batchId: "batch_3" },
      summary("batch_3", ["c1", "c2"], "Read both configs"),
      turnCompleted("t1"),
    ]);
    expect(live.items.filter((i) => i.kind === "summary")).toHaveLength(1);
    const s = run([{ type: "history.replaced", messages: history }], "full", live);
    const i = s.items.findIndex((x) => x.kind === "tools");
    expect(s.items[i]).toMatchObject({ label: "Read both configs" });
    expect(s.items[i + 1]).toMatchObject({ kind: "summary", label: "Read both configs" });
  });

  test("ui.clear forgets labels; a pending label for a cleared group shows nowhere", () => {
    const s = run([{ type: "turn.started", turnId: "t1", input: "x" }, { type: "tool.started", callId: "c9", name: "read", args: {}, title: "z", batchId: "b9" }, turnCompleted("t1"), { type: "ui.clear" }, summary("b9", ["c9"])]);
    expect(s.items).toEqual([]);
  });

  test("a resumed session shows its saved labels in compact mode once, in the header", async () => {
    await start("compact");
    session.emit({ type: "history.replaced", messages: history }, summary("batch_7", ["c1", "c2"], "Read both configs"));
    const f = await frame((x) => x.includes("Read both configs") && x.includes("They agree"));
    expect(count(f, "Read both configs")).toBe(1);
    expect(f).not.toContain("Read × 2");
    expect(lineOf(f, "Read both configs")).toBeLessThan(lineOf(f, "They agree"));
  });
});
