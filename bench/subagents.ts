/**
 * Subagents and the TUI (issue 20): 4 children streaming at once against one main stream of the same length, each
 * phase in its own process (CPU = getrusage of the whole process over the phase, peak RSS = VmHWM). The core runs
 * for real (runAgent, the SubagentRuntime, its scheduler with 4 slots, scripted providers pacing their chunks);
 * the events reach a real TuiApp on the headless renderer at run-tui's frame rates through the session subscription.
 * Budgets: CPU(4 children) < 1.5 × CPU(single stream); peak RSS ≤ 250 MB.
 * Run: bun bench/subagents.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CHUNKS = 1500;
const DELAY_MS = 2;
const TURNS = 3;

function vm(key: "VmHWM"): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function answer(tag: string): string {
  const out: string[] = [];
  for (let i = 0; i < CHUNKS; i++) out.push(i % 40 === 0 ? `\n## ${tag} part ${i}\n` : `word${i} `);
  return out.join("");
}

async function phase(kind: "single" | "four") {
  const { createTestRenderer } = await import("@opentui/core/testing");
  const { TuiApp } = await import("../src/ui/tui/tui-app.ts");
  const { FakeSession } = await import("../test/ui/tui/fake-session.ts");
  const { ScriptedProvider } = await import("../test/support/scripted-provider.ts");
  const { subagentRig, agentCall } = await import("../test/agent/subagents/subagent-rig.ts");
  const dir = mkdtempSync(join(tmpdir(), "subagents-bench-"));
  const setup = await createTestRenderer({ width: 100, height: 40, nativeSceneVerify: false, exitOnCtrlC: false, targetFps: 30, maxFps: 60 });
  const session = new FakeSession();
  const app = new TuiApp(setup.renderer, { session, provider: "bench", model: "bench", cwd: dir, inline: false, permissionMode: "default", historyFile: join(dir, "h.jsonl"), displayMode: "full", onExit: () => {} });
  // Each stream: TURNS model calls (a `tree` call between them), CHUNKS chunks each, DELAY_MS apart.
  const streamReplies = (tag: string) => [
    ...Array.from({ length: TURNS - 1 }, () => ({ text: answer(tag), chunks: CHUNKS, delayMs: DELAY_MS, toolCalls: [{ name: "tree", args: {} }] })),
    { text: answer(tag), chunks: CHUNKS, delayMs: DELAY_MS },
  ];
  const names = ["c1", "c2", "c3", "c4"];
  const main = kind === "single" ? new ScriptedProvider(streamReplies("main")) : new ScriptedProvider([{ toolCalls: names.map((n) => agentCall(n, `work ${n}`)) }, { text: "done" }]);
  const children = Object.fromEntries(names.map((n) => [n, { provider: new ScriptedProvider(streamReplies(n)) }]));
  const rig = subagentRig({ main, children, limit: 4, onEvent: (e) => session.emit(e) });
  let frames = 0;
  setup.renderer.on("frame", () => void frames++);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  session.emit({ type: "turn.started", turnId: "t", input: "bench" });
  await rig.run();
  session.emit({ type: "turn.completed", turnId: "t", stopReason: "stop", durationMs: 0, contextTokens: 0, contextWindow: 0, totalUsage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } } as never);
  const c = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const result = { cpuS: (c.user + c.system) / 1e6, seconds, frames, peakRssMB: vm("VmHWM"), subagentRows: app.state.subagents?.length ?? 0 };
  app.destroy();
  await setup.dispose();
  rig.cleanup();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const phaseArg = process.argv.indexOf("--phase");
if (phaseArg >= 0) {
  const r = await phase(process.argv[phaseArg + 1] === "four" ? "four" : "single");
  process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  process.exit(0);
}

function runPhase(kind: string): Awaited<ReturnType<typeof phase>> {
  const p = Bun.spawnSync([process.execPath, import.meta.path, "--phase", kind], { stdout: "pipe", stderr: "inherit" });
  const line = p.stdout.toString().split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`phase ${kind} failed (exit ${p.exitCode}): ${p.stdout.toString()}`);
  return JSON.parse(line.slice(7));
}

const single = runPhase("single");
const four = runPhase("four");
const ratio = four.cpuS / single.cpuS;
const row = (name: string, value: number, budget: number, unit: string, digits = 2) =>
  console.log(`${value <= budget ? "PASS" : "FAIL"}  ${name.padEnd(44)} ${value.toFixed(digits).padStart(8)} ${unit.padEnd(3)} (budget ≤ ${budget} ${unit})`);
console.log(`streams of ${TURNS} model calls × ${CHUNKS} chunks, ${DELAY_MS} ms apart`);
console.log(`      single stream: ${single.cpuS.toFixed(2)} s CPU over ${single.seconds.toFixed(2)} s, ${single.frames} frames, peak RSS ${single.peakRssMB.toFixed(1)} MB`);
console.log(`      4 children:    ${four.cpuS.toFixed(2)} s CPU over ${four.seconds.toFixed(2)} s, ${four.frames} frames, peak RSS ${four.peakRssMB.toFixed(1)} MB, ${four.subagentRows} rows`);
row("CPU 4 children / CPU single stream", ratio, 1.5, "×");
row("peak RSS with 4 children (VmHWM)", four.peakRssMB, 250, "MB", 1);
