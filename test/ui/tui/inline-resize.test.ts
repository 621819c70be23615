// Inline mode after a resize (issue 15 item 3): once the new size holds, the scrollback is reset and every committed
// item is written again, once, at the new width; a drag through several sizes replays once; no replay without a size
// change. The binary-level check (tmux reflow, the footer, typing) is test/smoke/inline-resize.smoke.ts.
import { expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { REPLAY_MAX_ROWS, RESIZE_SETTLE_MS } from "../../../src/ui/tui/scrollback-committer.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-inline-resize-");
let setup: TestRendererSetup;
let app: TuiApp;
let session: FakeSession;

async function start(): Promise<void> {
  session = new FakeSession();
  ({ setup, app } = await tui.start({ session, inline: true }, { width: 100, height: 24, screenMode: "split-footer", footerHeight: 8, externalOutputMode: "capture-stdout" }));
}

/** Renders until the scrollback commits settle; returns what was committed meanwhile. */
async function committed(ms = 0): Promise<ReturnType<TestRendererSetup["externalOutput"]["take"]>> {
  const out: ReturnType<TestRendererSetup["externalOutput"]["take"]> = [];
  const end = Date.now() + ms;
  do {
    app.syncNow();
    await app.scrollbackIdle;
    await setup.renderOnce();
    out.push(...setup.externalOutput.take());
    await Bun.sleep(20);
  } while (Date.now() < end);
  return out;
}

async function answer(turn: string, text: string): Promise<void> {
  session.emit({ type: "turn.started", turnId: turn, input: `question ${turn}` });
  streamAnswer(session, `m${turn}`, text);
  session.emit({ type: "message.completed", messageId: `m${turn}`, message: { role: "assistant", content: text } });
  session.emit(turnCompleted(turn));
}

const texts = (commits: Array<{ text: string }>) => commits.map((c) => c.text.trim()).filter((t) => t);

test("a width change replays the committed items once, at the new width", async () => {
  await start();
  await answer("1", "first answer");
  await answer("2", "second answer");
  const before = texts(await committed(100));
  expect(before.filter((t) => t.includes("first answer"))).toHaveLength(1);
  expect(before.filter((t) => t.includes("second answer"))).toHaveLength(1);

  for (const w of [80, 40, 60]) setup.resize(w, 24); // a drag: only the last size is replayed
  const after = await committed(RESIZE_SETTLE_MS * 3);
  const replayed = texts(after);
  expect(replayed.filter((t) => t.includes("first answer"))).toHaveLength(1);
  expect(replayed.filter((t) => t.includes("second answer"))).toHaveLength(1);
  expect(replayed.filter((t) => t.includes("question 1"))).toHaveLength(1);
  for (const c of after) expect(c.width).toBe(60);

  expect(texts(await committed(RESIZE_SETTLE_MS * 3))).toEqual([]); // settled: nothing more
});

test("no size change, no replay", async () => {
  await start();
  await answer("1", "only answer");
  await committed(100);
  setup.resize(100, 24);
  expect(texts(await committed(RESIZE_SETTLE_MS * 3))).toEqual([]);
});

test("a long transcript: the replay writes the newest items that fit REPLAY_MAX_ROWS and says how many it left out", async () => {
  await start();
  const rowsPer = 300;
  const count = Math.ceil((REPLAY_MAX_ROWS * 2) / rowsPer);
  for (let i = 1; i <= count; i++) await answer(`${i}`, Array.from({ length: rowsPer }, (_, j) => `a${i} row ${j}`).join("\n"));
  await committed(100);
  setup.resize(90, 24);
  const replayed = texts(await committed(RESIZE_SETTLE_MS * 5));
  expect(replayed[0]).toMatch(/^· \d+ earlier item\(s\) not redrawn after the resize$/);
  const rows = replayed.join("\n").split("\n").length;
  expect(rows).toBeLessThanOrEqual(REPLAY_MAX_ROWS + 2 * rowsPer);
  expect(rows).toBeGreaterThanOrEqual(REPLAY_MAX_ROWS - rowsPer);
  expect(replayed.some((t) => t.includes(`a${count} row ${rowsPer - 1}`))).toBe(true);
  expect(replayed.some((t) => t.includes("a1 row 0"))).toBe(false);
}, 30_000);
