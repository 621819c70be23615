// Issue 15 item 8: overlays (pickers, rewind menu, completion popup, approval box) are opaque — their own
// background fills their whole rectangle, no transcript character inside or beside them on their rows — always
// drawn while they hold the keys, and they give the focus back when they close. Frames from the OpenTUI test
// renderer over a transcript full of `Z`.
import { expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import type { CheckpointSummary } from "../../../src/agent/checkpoints/schema.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-overlays-");
let setup: TestRendererSetup;
let app: TuiApp;
let session: FakeSession;

const MODELS = [
  { provider: "OLLAMA", model: "a:1" },
  { provider: "OLLAMA", model: "b:2" },
  { provider: "OPENAI", model: "gpt-x" },
];
const CHECKPOINTS: CheckpointSummary[] = [
  { id: "c2", time: Date.UTC(2026, 0, 1, 10, 0, 0), label: "second task", messageCount: 4, files: 1, conversationOnly: false },
  { id: "c1", time: Date.UTC(2026, 0, 1, 9, 0, 0), label: "first task", messageCount: 2, files: 0, conversationOnly: false },
];

async function startWithTranscript(o: { inline?: boolean; width?: number; height?: number } = {}): Promise<void> {
  session = new FakeSession();
  ({ setup, app } = await tui.start(
    {
      session,
      inline: o.inline ?? false,
      listModels: async () => MODELS,
      checkpoints: { list: () => CHECKPOINTS, plan: () => "no plan in this test" },
    },
    { width: o.width ?? 80, height: o.height ?? 24 },
  ));
  session.emit({ type: "turn.started", turnId: "t1", input: "go" });
  const text = Array.from({ length: 30 }, (_, i) => `ZZZZ line ${i} ${"Z".repeat(60)}`).join("\n\n");
  streamAnswer(session, "m1", `${text}\n`, 400);
  session.emit(turnCompleted("t1"));
  // Inline mode commits the answer to the terminal's own scrollback, outside the frame.
  await tui.frame((f) => (o.inline ? f.includes("› ") : f.includes("line 29")));
}

/** Rows (indexes) of the overlay whose top border carries `title`, down to its bottom border. */
function overlayRows(frame: string, title: string): number[] {
  const lines = frame.split("\n");
  const top = lines.findIndex((l) => l.includes("╭") && l.includes(title));
  if (top < 0) throw new Error(`no overlay titled ${title} in:\n${frame}`);
  const bottom = lines.findIndex((l, i) => i > top && l.trimStart().startsWith("╰"));
  return Array.from({ length: bottom - top + 1 }, (_, i) => top + i);
}

/** Every cell of these rows has an opaque background, and none shows a transcript character. */
function expectOpaqueRows(rows: number[], frame: string): void {
  const lines = frame.split("\n");
  const spans = setup.captureSpans();
  expect(rows.length).toBeGreaterThanOrEqual(3);
  for (const r of rows) {
    expect(lines[r]).not.toContain("Z");
    const line = spans.lines[r]!;
    const width = line.spans.reduce((n, s) => n + s.width, 0);
    expect(width).toBe(spans.cols);
    for (const s of line.spans) expect(s.bg.a).toBe(1);
  }
}

for (const [cmd, title, shows] of [
  ["/model", "Model", ["OLLAMA:a:1", "OLLAMA:b:2", "OPENAI:gpt-x"]],
  ["/provider", "Provider", ["OLLAMA", "OPENAI"]],
] as const) {
  test(`${cmd}: an opaque full-width box sized to its items, keys go back to the prompt after Esc`, async () => {
    await startWithTranscript();
    await setup.mockInput.typeText(cmd);
    setup.mockInput.pressEnter();
    const f = await tui.frame((x) => x.includes(shows[shows.length - 1]!) && x.includes(`─ ${title}`));
    for (const s of shows) expect(f).toContain(s);
    const rows = overlayRows(f, title);
    expect(rows.length).toBe(shows.length + 2);
    expectOpaqueRows(rows, f);
    setup.mockInput.pressEscape();
    const closed = await tui.frame((x) => !x.includes(`─ ${title}`));
    expect(closed).not.toContain(`─ ${title}`);
    await setup.mockInput.typeText("typed after");
    expect(app.prompt.plainText).toBe("typed after");
  });
}

test("rewind menu: opaque, full width", async () => {
  await startWithTranscript();
  setup.mockInput.pressEscape();
  setup.mockInput.pressEscape();
  const f = await tui.frame((x) => x.includes("second task") && x.includes("first task"));
  const title = f.split("\n").find((l) => l.includes("╭─"))!.replace(/[╭─╮]/g, "").trim();
  expectOpaqueRows(overlayRows(f, title), f);
});

test("approval box and completion popup have their own background", async () => {
  await startWithTranscript();
  await setup.mockInput.typeText("/");
  let f = await tui.frame((x) => x.includes("/model"));
  const popupRow = f.split("\n").findIndex((l) => l.includes("/model"));
  const popupSpans = setup.captureSpans().lines[popupRow]!.spans.filter((s) => s.text.trim() !== "");
  for (const s of popupSpans) expect(s.bg.a).toBe(1);
  setup.mockInput.pressBackspace();
  session.emit({ type: "turn.started", turnId: "t2", input: "go" });
  session.emit({ type: "approval.requested", requestId: "r1", tool: "exec", action: "make deploy", reason: "not read-only" });
  f = await tui.frame((x) => x.includes("Permission required"));
  expectOpaqueRows(overlayRows(f, "Permission required").slice(1, -1), f);
});

test("an approval that arrives while a picker is open closes the picker: the box that takes the keys is the one shown", async () => {
  await startWithTranscript();
  await setup.mockInput.typeText("/model");
  setup.mockInput.pressEnter();
  await tui.frame((x) => x.includes("OPENAI:gpt-x"));
  session.emit({ type: "turn.started", turnId: "t2", input: "go" });
  session.emit({ type: "approval.requested", requestId: "r1", tool: "exec", action: "make deploy", reason: "not read-only" });
  const f = await tui.frame((x) => x.includes("Permission required"));
  expect(f).not.toContain("OPENAI:gpt-x");
  expect(f).toContain("exec: make deploy");
});

test("a small terminal: the picker stays within the screen, its border whole", async () => {
  await startWithTranscript({ height: 10 });
  await setup.mockInput.typeText("/model");
  setup.mockInput.pressEnter();
  const f = await tui.frame((x) => x.includes("─ Model"));
  const rows = overlayRows(f, "Model");
  expect(rows.at(-1)!).toBeLessThan(10 - 4); // above the prompt box and the status line
  expect(f).toContain("OLLAMA:a:1");
  expect(f).toContain("› ");
});

test("inline mode: the picker is drawn whole in the footer (not clipped into the prompt), and Esc gives the keys back", async () => {
  await startWithTranscript({ inline: true, height: 30 });
  await setup.mockInput.typeText("/model");
  setup.mockInput.pressEnter();
  const f = await tui.frame((x) => x.includes("OPENAI:gpt-x") && x.includes("─ Model"));
  const rows = overlayRows(f, "Model");
  expect(rows.length).toBe(MODELS.length + 2);
  const lines = f.split("\n");
  for (const r of rows) expect(lines[r]).not.toContain("›");
  const promptRow = lines.findIndex((l) => l.includes("› "));
  expect(promptRow).toBeGreaterThan(rows.at(-1)!);
  setup.mockInput.pressEscape();
  await tui.frame((x) => !x.includes("─ Model"));
  await setup.mockInput.typeText("hello");
  expect(app.prompt.plainText).toBe("hello");
});

test("/help: every row of the list starts in the same column (a multi-line notice is indented past its mark)", async () => {
  session = new FakeSession();
  ({ setup, app } = await tui.start({ session }, { width: 100, height: 40 }));
  await setup.mockInput.typeText("/help");
  setup.mockInput.pressEnter();
  const f = await tui.frame((x) => x.includes("/exit") && x.includes("Shift+Tab"));
  const rows = f.split("\n").filter((l) => /^\s*(· )?\/\w+\s{2,}/.test(l) || l.includes("Shift+Tab") || l.includes("Ctrl+R search"));
  expect(rows.length).toBeGreaterThan(5);
  const columns = new Set(rows.map((l) => l.replace(/^\s*· /, (m) => " ".repeat(m.length)).search(/\S/)));
  expect([...columns]).toHaveLength(1);
});
