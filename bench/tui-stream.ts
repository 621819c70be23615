/**
 * TUI performance figures against the issue-6 budgets (headless test renderer, nativeSceneVerify off):
 *  1. a 5,000-line markdown answer in 20,000 chunks at 2,000 chunks/s: CPU seconds, peak RSS, last chunk → last
 *     line on screen;  2. a 10,000-message transcript: cost of one more append (+ frame), and of one streamed chunk.
 * Run: bun bench/tui-stream.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestRenderer } from "@opentui/core/testing";
import { TuiApp } from "../src/ui/tui/tui-app.ts";
import { FakeSession } from "../test/ui/tui/fake-session.ts";

const dir = mkdtempSync(join(tmpdir(), "tui-bench-"));
let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

async function makeApp() {
  const setup = await createTestRenderer({ width: 100, height: 40, nativeSceneVerify: false, exitOnCtrlC: false });
  const session = new FakeSession();
  const app = new TuiApp(setup.renderer, {
    session, provider: "ollama", model: "bench", cwd: dir, inline: false, permissionMode: "default",
    historyFile: join(dir, "h.jsonl"), displayMode: "full", onExit: () => {},
  });
  return { setup, session, app };
}

function answer(lines: number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    if (i % 50 === 1) out.push(`## Section ${i}`);
    else if (i % 50 === 20) out.push("```ts", `const v${i} = ${i};`, "```");
    else if (i % 10 === 0) out.push("");
    else out.push(`Line ${i} with some **bold** and \`code\` text to make it realistic.`);
  }
  out.push(`FINAL-LINE-${lines}`);
  return out.join("\n");
}

async function streamBench() {
  const { setup, session, app } = await makeApp();
  const text = answer(5000);
  const chunks = 20_000;
  const size = Math.ceil(text.length / chunks);
  const cpu0 = process.cpuUsage();
  session.emit({ type: "turn.started", turnId: "t", input: "bench" });
  let sent = 0;
  const start = performance.now();
  let lastFrame = 0;
  while (sent < chunks) {
    const due = Math.min(chunks, Math.floor(((performance.now() - start) / 1000) * 2000));
    for (; sent < due; sent++) {
      const end = Math.min(text.length, (sent + 1) * size);
      session.emit({ type: "message.delta", messageId: "m", text: text.slice(sent * size, end), partial: text.slice(0, end) });
    }
    if (performance.now() - lastFrame >= 33) {
      app.syncNow();
      await setup.renderOnce();
      lastFrame = performance.now();
      sampleRss();
    }
    await Bun.sleep(2);
  }
  const lastChunkAt = performance.now();
  let onScreen = Infinity;
  for (let i = 0; i < 300; i++) {
    app.syncNow();
    await setup.renderOnce();
    if (setup.captureCharFrame().includes("FINAL-LINE-5000")) {
      onScreen = (performance.now() - lastChunkAt) / 1000;
      break;
    }
    await Bun.sleep(10);
  }
  const cpu = process.cpuUsage(cpu0);
  sampleRss();
  app.destroy();
  await setup.dispose();
  return { cpuS: (cpu.user + cpu.system) / 1e6, onScreen, renderables: app.transcript?.committedRenderables ?? 0 };
}

async function appendBench() {
  const { setup, session, app } = await makeApp();
  for (let i = 0; i < 10_000; i++) {
    session.emit({ type: "notice", level: "info", text: `message ${i}: some transcript text that wraps a little` });
    if (i % 500 === 0) {
      app.syncNow();
      await setup.renderOnce();
    }
  }
  app.syncNow();
  await setup.renderOnce();
  const n = 100;
  let t0 = performance.now();
  for (let i = 0; i < n; i++) {
    session.emit({ type: "notice", level: "info", text: `extra ${i}` });
    app.syncNow();
    await setup.renderOnce();
  }
  const appendMs = (performance.now() - t0) / n;
  session.emit({ type: "turn.started", turnId: "t", input: "x" });
  let partial = "";
  t0 = performance.now();
  for (let i = 0; i < n; i++) {
    partial += "word ";
    session.emit({ type: "message.delta", messageId: "m", text: "word ", partial });
    app.syncNow();
    await setup.renderOnce();
  }
  const chunkMs = (performance.now() - t0) / n;
  sampleRss();
  const renderables = app.transcript?.committedRenderables ?? 0;
  app.destroy();
  await setup.dispose();
  return { appendMs, chunkMs, renderables };
}

const row = (name: string, value: number, budget: number, unit: string) =>
  console.log(`${value <= budget ? "PASS" : "FAIL"}  ${name.padEnd(36)} ${value.toFixed(3).padStart(9)} ${unit}  (budget ≤ ${budget} ${unit})`);

const s = await streamBench();
row("stream: CPU seconds", s.cpuS, 2.5, "s");
row("stream: last chunk → last line", s.onScreen, 0.3, "s");
const a = await appendBench();
row("10k transcript: append + frame", a.appendMs, 2, "ms");
row("10k transcript: stream chunk + frame", a.chunkMs, 2, "ms");
row("peak RSS", peakRss / 2 ** 20, 200, "MB");
console.log(`committed renderables: stream ${s.renderables}, 10k transcript ${a.renderables}`);
rmSync(dir, { recursive: true, force: true });
