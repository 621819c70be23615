// scroll-region.ts against a real renderer whose output goes to a recording stream, replayed into a small
// terminal model: after every frame the terminal must show exactly what the renderer drew, whether the
// transcript scrolled by one row, by many, past its height, back up (the user scrolling), with accents and wide
// characters in the moved rows; and moving rows must cost fewer bytes than repainting them.
import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { BoxRenderable, ScrollBoxRenderable, TextRenderable } from "@opentui/core";
import { createTestRenderer } from "@opentui/core/testing";
import { ScrollRegionMover, scrollRegionsEnabled } from "../../../src/ui/tui/scroll-region.ts";
import { MiniTerminal } from "../../support/mini-terminal.ts";

const W = 60;
const H = 16;
const WORDS = ["alpha", "beta", "gamma", "é", "ação", "😀", "中文", "delta", "x", "omega", "zeta"];

class Recorder extends Writable {
  readonly isTTY = true;
  readonly columns = W;
  readonly rows = H;
  chunks: Buffer[] = [];
  override _write(chunk: Uint8Array, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }
  getColorDepth(): number {
    return 24;
  }
  take(): string {
    const s = Buffer.concat(this.chunks).toString("utf8");
    this.chunks = [];
    return s;
  }
}

function lineText(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const words = [`${i}`];
  for (let k = 0; k < 6 + (i % 5); k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[(x >>> 8) % WORDS.length]!);
  }
  return words.join(" ");
}

/** Replays a script of frames; returns the bytes written and the mover's move count. */
async function replay(withMover: boolean): Promise<{ bytes: number; moves: number }> {
  const rec = new Recorder();
  const s = await createTestRenderer({ width: W, height: H, nativeSceneVerify: false, stdout: rec as unknown as NodeJS.WriteStream, bufferedOutput: "stdout" });
  const r = s.renderer;
  const column = new BoxRenderable(r, { flexDirection: "column", width: "100%", height: "100%" });
  const box = new ScrollBoxRenderable(r, { flexGrow: 1, stickyScroll: true, stickyStart: "bottom", paddingLeft: 1, paddingRight: 1 });
  const text = new TextRenderable(r, { content: "", width: "100%" });
  const status = new TextRenderable(r, { content: "status", height: 1, flexShrink: 0 });
  box.add(text);
  column.add(box);
  column.add(status);
  r.root.add(column);
  const mover = new ScrollRegionMover(r, () => ({ top: box.screenY, height: box.height, left: box.screenX + 1, width: Math.max(0, box.width - 3) }));
  if (withMover) mover.install();
  const term = new MiniTerminal(W, H);
  const lines: string[] = [];
  let bytes = 0;
  // > 0: lines appended; < 0: the user scrolls up that many rows; 99: back to the bottom.
  const script = [30, 1, 1, 2, 5, 1, 0, 3, 40, 1, 1, -3, -1, -5, 99, 2, 1, 7, 1, 13, 1];
  try {
    for (const [frame, step] of script.entries()) {
      if (step === 99) box.scrollTo(Infinity);
      else if (step < 0) box.scrollBy(step);
      else for (let k = 0; k < step; k++) lines.push(lineText(lines.length + 1));
      text.content = lines.join("\n");
      status.content = `status ${frame}`;
      await s.renderOnce();
      await r.idle();
      const out = rec.take();
      bytes += Buffer.byteLength(out);
      term.write(out);
      const drawn = s.captureCharFrame().split("\n").slice(0, H).map((l) => l.trimEnd());
      expect(term.rows().map((l) => l.trimEnd())).toEqual(drawn);
    }
  } finally {
    await s.dispose();
  }
  return { bytes, moves: mover.moves };
}

test("the terminal shows every frame exactly; moving rows costs fewer bytes than repainting them", async () => {
  const moved = await replay(true);
  const painted = await replay(false);
  expect(moved.moves).toBeGreaterThan(5);
  expect(painted.moves).toBe(0);
  expect(moved.bytes).toBeLessThan(painted.bytes * 0.7);
});

test("scroll regions: on by default, off with CHATCLI_SCROLL_REGIONS=0 and on dumb terminals", () => {
  expect(scrollRegionsEnabled({ TERM: "xterm-256color" })).toBe(true);
  expect(scrollRegionsEnabled({ TERM: "xterm-256color", CHATCLI_SCROLL_REGIONS: "0" })).toBe(false);
  expect(scrollRegionsEnabled({ TERM: "xterm-256color", CHATCLI_SCROLL_REGIONS: "off" })).toBe(false);
  expect(scrollRegionsEnabled({ TERM: "dumb" })).toBe(false);
  expect(scrollRegionsEnabled({})).toBe(false);
});
