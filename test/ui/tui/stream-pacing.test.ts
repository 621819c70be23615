// Issue 24 in the app: while an answer streams faster than anyone reads, the transcript is redrawn at a lower rate
// (MAX_GAP_MS apart at 2,000 chunks/s) but a typed key is in the prompt on the very next frame, and the end of the
// answer is drawn at once, not a pacing gap later. Manual clock: every timer fires only when the test advances it.
import { expect, test } from "bun:test";
import { ManualClock } from "@opentui/core/testing";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";
import { MAX_GAP_MS } from "../../../src/ui/tui/stream-pacer.ts";

const tui = useTuiHarness("tui-pacing-");

test("a fast stream is drawn at the paced rate, key echo is immediate, the end shows at once", async () => {
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  const session = new FakeSession();
  const { setup } = await tui.start({ session }, { width: 100, height: 30, clock });
  session.emit({ type: "turn.started", turnId: "t1", input: "go" });
  let n = 0;
  let all = "";
  /** 10 ms of a 28,000 characters/s stream: 280 characters as numbered lines, in 14-character chunks. */
  const tick = async () => {
    let text = "";
    while (text.length < 280) text += `row ${++n} ok\n`;
    all += text;
    for (let i = 0; i < text.length; i += 14) session.emit({ type: "message.delta", messageId: "m1", text: text.slice(i, i + 14) });
    clock.advance(10);
    await setup.renderOnce();
  };
  const lastRow = () => Math.max(0, ...[...setup.captureCharFrame().matchAll(/row (\d+) ok/g)].map((m) => Number(m[1])));
  for (let i = 0; i < 60; i++) await tick(); // 600 ms: the rate is known, pacing is on
  // Over the next 400 ms the transcript changes at most every MAX_GAP_MS (plus one frame of coalescing).
  const seen: number[] = [];
  for (let i = 0; i < 40; i++) {
    await tick();
    seen.push(lastRow());
  }
  const redraws = seen.filter((v, i) => i > 0 && v !== seen[i - 1]).length;
  expect(redraws).toBeGreaterThanOrEqual(1);
  expect(redraws).toBeLessThanOrEqual(Math.ceil(400 / MAX_GAP_MS) + 1);
  expect(seen.at(-1)!).toBeLessThan(n); // what arrived since the last redraw waits for the next one
  // A key typed now shows on the next frame, transcript pacing or not.
  setup.mockInput.pressKey("z");
  await setup.renderOnce();
  expect(setup.captureCharFrame().split("\n").find((l) => l.includes("› "))).toContain("z");
  // The end of the answer, right after a paced redraw: drawn at the next frame, not a pacing gap later.
  const before = lastRow();
  while (lastRow() === before) await tick();
  for (let i = 0; i < 5; i++) await tick(); // the coalesced sync has run and found the transcript not due yet
  expect(lastRow()).toBeLessThan(n);
  session.emit({ type: "message.completed", messageId: "m1", message: { role: "assistant", content: all } });
  clock.advance(40);
  await setup.renderOnce();
  expect(lastRow()).toBe(n);
});
