// stream-pacer.ts: the transcript redraws every frame up to READ_CPS characters a second; faster, the gap between
// redraws grows with the rate up to MAX_GAP_MS; a stream that stops is no longer paced.
import { expect, test } from "bun:test";
import { MAX_GAP_MS, READ_CPS, StreamPacer } from "../../../src/ui/tui/stream-pacer.ts";

const FRAME = 1000 / 30;

/** Feeds `cps` characters a second for `ms`, in 10 ms steps, starting at `from`; returns the end time. */
function feed(p: StreamPacer, cps: number, from: number, ms: number): number {
  for (let t = from; t < from + ms; t += 10) p.arrived(cps / 100, t);
  return from + ms;
}

test("up to READ_CPS (a fast model) nothing waits: every frame may redraw", () => {
  const p = new StreamPacer(FRAME);
  const now = feed(p, READ_CPS * 0.9, 0, 1000);
  p.drawn(now);
  expect(p.gapMs(now)).toBe(0);
  expect(p.waitMs(now)).toBe(0);
});

test("faster than READ_CPS the gap grows with the rate, capped at MAX_GAP_MS", () => {
  const p = new StreamPacer(FRAME);
  let now = feed(p, READ_CPS * 3, 0, 1000);
  const three = p.gapMs(now);
  expect(three).toBeCloseTo(FRAME * 3, -1);
  p.drawn(now);
  expect(p.waitMs(now)).toBeCloseTo(three, 0);
  expect(p.waitMs(now + three)).toBe(0);
  now = feed(p, 28_000, now, 1000); // 2,000 chunks/s of ~14 characters
  expect(p.gapMs(now)).toBe(MAX_GAP_MS);
});

test("when the stream stops, the rate falls back within half a second and nothing waits", () => {
  const p = new StreamPacer(FRAME);
  const now = feed(p, 28_000, 0, 1000);
  p.drawn(now);
  expect(p.waitMs(now + 1)).toBeGreaterThan(0);
  expect(p.rate(now + 600)).toBe(0);
  expect(p.waitMs(now + 600)).toBe(0);
});
