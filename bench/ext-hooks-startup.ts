/**
 * Issue 19's start-up budget: with 10 hooks and 5 plugins configured, start-up stays within 10 % of start-up with
 * none. Two figures, each the median of interleaved runs of the compiled binary (dist/chatcli; build it first)
 * against the fake Ollama server, HOME in a temp dir:
 *   - TUI first frame (tmux): from `tmux new-session` until the prompt and the status line are on screen;
 *     plugins load after the first frame (hooks-runtime.ts `start`), so they must not move it;
 *   - `chatcli -p hi` wall time: the first prompt waits for the plugins (their tools are in the first request).
 * The 10 hooks are on events a plain answer does not fire (PreToolUse, PostToolUse, PermissionRequest,
 * PreCompact, Notification, …): what is measured is what configuring them costs, not what running them costs.
 * Run: bun bench/ext-hooks-startup.ts [--runs N]   (ONLY=hooks or ONLY=plugins: one half, to see which costs)
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { hasTmux, isolatedBinary, Tmux, type BinaryEnv } from "../test/support/binary.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 7;
const BUDGET = 1.1;

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "Short answer.", chunkCount: 3 } });
const plain = isolatedBinary();
const ext = isolatedBinary();
configureExtensions(ext);

function configureExtensions(b: BinaryEnv): void {
  const home = join(b.home, ".chatcli");
  const plugins = join(home, "plugins");
  mkdirSync(plugins, { recursive: true });
  const example = readFileSync(join(import.meta.dir, "../examples/plugins/line-count.ts"), "utf8");
  for (let i = 1; i <= (process.env.ONLY === "hooks" ? 0 : 5); i++) {
    writeFileSync(join(plugins, `line-count-${i}.ts`), example.replaceAll("line_count", `line_count_${i}`).replaceAll('"line-count"', `"line-count-${i}"`).replaceAll("line-count-stats", `line-count-stats-${i}`));
  }
  copyFileSync(join(import.meta.dir, "../examples/plugins/chatcli-plugin.d.ts"), join(plugins, "chatcli-plugin.d.ts"));
  const events = ["PreToolUse", "PreToolUse", "PostToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PreCompact", "Notification", "SubagentStart", "SubagentStop"];
  const hooks: Record<string, unknown[]> = {};
  events.forEach((e, i) => (hooks[e] ??= []).push({ matcher: i % 2 ? "write|edit" : "Bash", hooks: [{ type: "command", command: `echo hook-${i} >/dev/null`, timeout: 5 }] }));
  if (process.env.ONLY !== "plugins") writeFileSync(join(home, "settings.json"), JSON.stringify({ hooks }));
}

/** Wall and CPU (user + system of the child, from its rusage: microseconds, not /usr/bin/time's 10 ms) milliseconds of one `-p hi`. */
async function oneshot(b: BinaryEnv): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const p = Bun.spawn([b.bin, "-p", "hi", "--model", "qwen3:8b"], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  const wall = performance.now() - t0;
  if (!out.includes("Short answer.")) throw new Error(`unexpected output: ${out} ${err}`);
  if (err.trim()) throw new Error(`unexpected stderr: ${err}`);
  const ru = p.resourceUsage();
  return { wall, cpu: ru ? Number(ru.cpuTime.user + ru.cpuTime.system) / 1000 : NaN };
}

async function firstFrame(b: BinaryEnv, run: number): Promise<number> {
  const envs = Object.entries({ ...b.env, OLLAMA_HOST: fake.url }).map(([k, v]) => `${k}='${v}'`).join(" ");
  const t0 = performance.now();
  const tmux = new Tmux(join(b.dir, `tmux-${run}.sock`), `cd '${b.dir}' && exec env ${envs} '${b.bin}' --model qwen3:8b`);
  try {
    while (performance.now() - t0 < 10_000) {
      const s = tmux.capture();
      if (s.includes("Ask anything") && s.includes("qwen3:8b")) return performance.now() - t0;
      await Bun.sleep(5);
    }
    throw new Error(`no prompt within 10 s:\n${tmux.capture()}`);
  } finally {
    tmux.kill();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const verdict = (ratio: number) => (ratio <= BUDGET ? "OK" : "OVER BUDGET");

try {
  const p = { plain: [] as number[], ext: [] as number[] };
  const c = { plain: [] as number[], ext: [] as number[] };
  await oneshot(plain);
  await oneshot(ext);
  for (let i = 0; i < RUNS * 2; i++) {
    const order = i % 2 ? (["ext", "plain"] as const) : (["plain", "ext"] as const);
    for (const which of order) {
      const r = await oneshot(which === "ext" ? ext : plain);
      p[which].push(r.wall);
      c[which].push(r.cpu);
    }
  }
  const pr = median(p.ext) / median(p.plain);
  console.log(`chatcli -p hi, ${RUNS * 2} runs each`);
  console.log(`  wall: none ${median(p.plain).toFixed(0)} ms; 10 hooks + 5 plugins ${median(p.ext).toFixed(0)} ms  (${((pr - 1) * 100).toFixed(1)} %, budget ≤ +10 %) ${verdict(pr)}`);
  const cr = median(c.ext) / median(c.plain);
  console.log(`  CPU:  none ${median(c.plain).toFixed(1)} ms; 10 hooks + 5 plugins ${median(c.ext).toFixed(1)} ms  (${((cr - 1) * 100).toFixed(1)} %; the machine's load does not move this one much)`);
  if (hasTmux()) {
    const f = { plain: [] as number[], ext: [] as number[] };
    // Alternating which goes first, with a pause: a killed pane's process winds down while the next one starts.
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 ? (["ext", "plain"] as const) : (["plain", "ext"] as const);
      for (const which of order) {
        f[which].push(await firstFrame(which === "ext" ? ext : plain, i * 2 + (which === "ext" ? 1 : 0)));
        await Bun.sleep(500);
      }
    }
    const fr = median(f.ext) / median(f.plain);
    console.log(`TUI first frame, ${RUNS} runs each`);
    console.log(`  none: median ${median(f.plain).toFixed(0)} ms; 10 hooks + 5 plugins: median ${median(f.ext).toFixed(0)} ms  (${((fr - 1) * 100).toFixed(1)} %, budget ≤ +10 %) ${verdict(fr)}`);
  } else console.log("TUI first frame: SKIP (no tmux)");
} finally {
  fake.stop();
  plain.cleanup();
  ext.cleanup();
  rmSync(join(plain.dir, ".."), { recursive: true, force: true });
}
