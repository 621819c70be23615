// `--inline` survives resizes (issue 15 item 3), compiled binary in a real tmux pane. tmux reflows the screen on
// every width change, which pushed the full-width footer rows into the native scrollback and left old prompt rows
// under a wider footer. After each resize, streaming or idle: one footer, as wide as the window; typed text is
// echoed; after exit the scrollback holds no box-drawing pieces and every line of the answer exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

const LINES = 240;
const ANSWER = Array.from({ length: LINES }, (_, i) => `answer line ${i + 1}`).join("\n");

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion"] }],
    defaultReply: { text: ANSWER, chunkCount: LINES, chunkDelayMs: 40 },
  });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

function rows(screen: string): string[] {
  return screen.split("\n").map((l) => l.trimEnd());
}

/** The footer is drawn once and spans the window: one top border, one prompt row, both `width` cells wide. */
function footerSpans(screen: string, width: number): boolean {
  const r = rows(screen);
  const tops = r.filter((l) => l.startsWith("╭"));
  const prompts = r.filter((l) => l.startsWith("│›"));
  return tops.length === 1 && prompts.length === 1 && [...tops[0]!].length === width && [...prompts[0]!].length === width;
}

async function resizeTo(t: Tmux, width: number): Promise<void> {
  Bun.spawnSync(["tmux", "-S", t.socket, "resize-window", "-t", t.name, "-x", String(width)]);
  await t.waitFor((s) => footerSpans(s, width), 4000);
}

async function echoes(t: Tmux, text: string): Promise<void> {
  t.sendLiteral(text);
  await t.waitFor((s) => rows(s).some((l) => l.startsWith(`│› ${text}`)), 4000);
  t.send("C-u");
  await t.waitFor((s) => !s.includes(text), 4000);
}

describe.skipIf(!hasTmux())("--inline under resizes (compiled binary in tmux)", () => {
  test("streaming and idle resize sequences keep one full-width footer, echo typing, leave a clean scrollback", async () => {
    const t = new Tmux(join(b.dir, "inline-resize.sock"), paneCommand(b, "--model qwen3:8b --inline", { env: { OLLAMA_HOST: fake.url }, after: "echo EXITED=$?; sleep 30" }), 160, 30);
    try {
      await t.waitFor((s) => s.includes("Ask anything") && s.includes("qwen3:8b"));
      t.sendLiteral("count for me");
      t.send("Enter");
      await t.waitFor((s) => s.includes("answer line 3"));
      // While the answer streams (240 lines × 40 ms): the reported sequence, then quicker and odder ones.
      let n = 0;
      for (const width of [80, 40, 160, 100, 30, 120, 45, 160]) {
        await resizeTo(t, width);
        await echoes(t, `typed${++n}`);
      }
      // The sequence above ran during the stream (a capture can fall inside the screen's repaint after a resize,
      // so the first screen with a footer is the one read).
      expect(await t.waitFor((s) => s.includes("│›"), 4000)).toContain("esc to interrupt");
      await t.waitFor((s) => s.includes(`answer line ${LINES}`) && !s.includes("esc to interrupt"), 20_000);
      // Idle, with the answer committed to the scrollback.
      for (const width of [40, 160, 60, 30, 140]) {
        await resizeTo(t, width);
        await echoes(t, `idle${++n}`);
      }
      t.send("C-d");
      await t.waitFor((s) => s.includes("EXITED=0"));
      const history = rows(Bun.spawnSync(["tmux", "-S", t.socket, "capture-pane", "-p", "-S", "-", "-t", t.name], { stdout: "pipe" }).stdout.toString());
      expect(history.filter((l) => /[╭╮╰╯│─]/.test(l))).toEqual([]);
      expect(history.filter((l) => l.includes("esc to interrupt") || l.includes("Ask anything"))).toEqual([]);
      for (let i = 1; i <= LINES; i++) expect([i, history.filter((l) => l === `answer line ${i}`).length]).toEqual([i, 1]);
      expect(history.filter((l) => l === "› count for me").length).toBe(1);
    } finally {
      t.kill();
    }
  }, 90_000);
});
