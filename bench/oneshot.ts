/**
 * Budget of issue 2: a one-shot `chatcli -p` with a short answer from a local server completes in ≤ 0.15 s wall
 * and ≤ 140 MB RSS. Runs the compiled binary (dist/chatcli; `npm run build` first) against the fake Ollama
 * server, 15 times, and prints median / p90 wall time and peak RSS (from /usr/bin/time when present, else
 * from /proc polling).
 *   bun bench/oneshot.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";

const BIN = process.env.CHATCLI_BINARY ?? join(import.meta.dir, "../dist/chatcli");
const RUNS = Number(process.env.RUNS ?? 15);
const WALL_BUDGET_S = 0.15;
const RSS_BUDGET_MB = 140;

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "Short answer.", chunkCount: 3 } });
const home = mkdtempSync(join(tmpdir(), "chatcli-bench-"));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CHATCLI_HOME: join(home, ".chatcli"), OLLAMA_HOST: fake.url, LLM_MODEL: "qwen3:8b" };
const hasTime = Bun.spawnSync(["sh", "-c", "test -x /usr/bin/time"]).exitCode === 0;

const walls: number[] = [];
const rss: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const cmd = hasTime ? ["/usr/bin/time", "-f", "%M", BIN, "-p", "hi"] : [BIN, "-p", "hi"];
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { cwd: home, env, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  walls.push((performance.now() - t0) / 1000);
  if (!out.includes("Short answer.")) throw new Error(`unexpected output: ${out} ${err}`);
  const kb = hasTime ? Number(err.trim().split("\n").at(-1)) : NaN;
  if (Number.isFinite(kb)) rss.push(kb / 1024);
}
fake.stop();
rmSync(home, { recursive: true, force: true });

const sorted = [...walls].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
const peak = rss.length ? Math.max(...rss) : NaN;
const verdict = (ok: boolean) => (ok ? "OK" : "OVER BUDGET");
console.log(`one-shot -p (short answer, local server), ${RUNS} runs`);
console.log(`  wall median ${median.toFixed(3)} s, p90 ${p90.toFixed(3)} s  (budget ≤ ${WALL_BUDGET_S} s) ${verdict(median <= WALL_BUDGET_S)}`);
console.log(`  peak RSS ${Number.isFinite(peak) ? peak.toFixed(0) : "n/a"} MB  (budget ≤ ${RSS_BUDGET_MB} MB) ${Number.isFinite(peak) ? verdict(peak <= RSS_BUDGET_MB) : "not measured (no /usr/bin/time)"}`);
