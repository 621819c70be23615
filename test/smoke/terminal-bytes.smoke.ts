// Terminal economy (issue 24), compiled binary in a real tmux pane at 160×45: tmux `pipe-pane` counts every byte
// the binary writes to its terminal while a long answer streams fast (1,200 lines in 4,800 chunks at 2,000
// chunks/s). Budget: at most 2× the answer's own size (main as of issue 24 wrote ~7× for it: every frame repainted
// the whole scrolled transcript). The screen must still be exact: the last lines in order after the stream, whole
// pages of the answer after PageUp (rows the terminal moved must be the right rows), the first line after Home.
// The same with scroll regions off (CHATCLI_SCROLL_REGIONS=0, the fallback): no DECSTBM at all, the screen as exact.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

const LINES = 1200;
const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon".split(" ");

/** Line i: its number, then words that differ from line to line (a real answer does not repeat itself). */
function line(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const words = [`L${i}`];
  for (let len = 0; len < 48; ) {
    x = (x * 1103515245 + 12345) >>> 0;
    const w = WORDS[(x >>> 8) % WORDS.length]!;
    words.push(w);
    len += w.length + 1;
  }
  return words.join(" ");
}
const EXPECTED = Array.from({ length: LINES }, (_, i) => line(i + 1));
const ANSWER = EXPECTED.join("\n");

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 262_144, capabilities: ["completion"] }] });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

/** The answer lines on screen, in screen order (number and text as drawn). */
function answerRows(screen: string): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  for (const raw of screen.split("\n")) {
    const m = /(L(\d+) [a-z ]+)/.exec(raw);
    if (m) out.push({ n: Number(m[2]), text: m[1]!.trimEnd() });
  }
  return out;
}

/** Every answer row on screen is the right line, and they are consecutive: nothing stale, torn or out of order. */
function expectExact(screen: string, minRows: number): number[] {
  const rows = answerRows(screen);
  expect(rows.length).toBeGreaterThanOrEqual(minRows);
  for (const [i, r] of rows.entries()) {
    expect(r.text).toBe(EXPECTED[r.n - 1]!);
    if (i > 0) expect(r.n).toBe(rows[i - 1]!.n + 1);
  }
  return rows.map((r) => r.n);
}

async function streamAndMeasure(env: Record<string, string>): Promise<{ bytes: number; raw: Buffer }> {
  fake.enqueue({ text: ANSWER, chunkCount: LINES * 4, chunksPerSecond: 2000 });
  const out = join(b.dir, `pty-${Math.random().toString(36).slice(2, 8)}.bin`);
  const t = new Tmux(join(b.dir, `bytes-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, "--model qwen3:8b", { env: { OLLAMA_HOST: fake.url, ...env } }), 160, 45);
  try {
    await t.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"), 15_000);
    Bun.spawnSync(["tmux", "-S", t.socket, "pipe-pane", "-t", t.name, "-o", `cat > '${out}'`]);
    await Bun.sleep(200);
    t.sendLiteral("write it");
    t.send("Enter");
    const end = await t.waitFor((s) => s.includes(`L${LINES} `), 30_000);
    await Bun.sleep(600); // trailing frames count too
    Bun.spawnSync(["tmux", "-S", t.socket, "pipe-pane", "-t", t.name]);
    const last = expectExact(await t.waitFor((s) => s.includes("qwen3:8b") && answerRows(s).length > 20), 30);
    expect(last.at(-1)).toBe(LINES);
    expect(end).toContain(`L${LINES} `);
    // Scrolling back: whole, exact pages of the answer, then the first line.
    for (let i = 0; i < 3; i++) {
      t.send("PageUp");
      await Bun.sleep(150);
    }
    const up = expectExact(t.capture(), 30);
    expect(up.at(-1)!).toBeLessThan(LINES);
    t.send("Home");
    expect(expectExact(await t.waitFor((s) => s.includes("L1 ")), 30)[0]).toBe(1);
    t.send("End");
    expect(expectExact(await t.waitFor((s) => s.includes(`L${LINES} `)), 30).at(-1)).toBe(LINES);
    const raw = readFileSync(out);
    return { bytes: raw.length, raw };
  } finally {
    t.kill();
  }
}

describe.skipIf(!hasTmux())("terminal bytes of a long, fast answer (compiled binary in tmux)", () => {
  test("at most 2× the answer's size reaches the terminal, and the screen is exact", async () => {
    const { bytes, raw } = await streamAndMeasure({});
    const budget = 2 * Buffer.byteLength(ANSWER);
    console.log(`terminal bytes: ${bytes} for a ${Buffer.byteLength(ANSWER)}-byte answer (budget ${budget})`);
    expect(bytes).toBeLessThanOrEqual(budget);
    // Frames are still synchronized updates (DEC 2026) where the renderer uses them.
    expect(raw.includes("\x1b[?2026h")).toBe(true);
  }, 60_000);

  test("with scroll regions off the transcript repaints instead (no DECSTBM), the screen as exact", async () => {
    const { raw } = await streamAndMeasure({ CHATCLI_SCROLL_REGIONS: "0" });
    expect(raw.includes("\x1b[r")).toBe(false);
  }, 60_000);
});
