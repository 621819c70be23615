/**
 * Cold start of the compiled binary against the issue-6 budgets. The binary (dist/chatcli, build it first with
 * `bun scripts/build.ts`) is copied to a temp dir with an empty HOME and started in a real tmux pane against the
 * fake Ollama server; the clock runs from `tmux new-session` until capture-pane shows the prompt (placeholder and
 * status line with the model), polled every 5 ms. Then, from /proc/<pid>: VmRSS once the prompt is up
 * (after 1 s of settling), and CPU time (utime+stime of every thread, clock ticks) over 3 s of idling.
 * Runs RUNS times; prints the median and the worst against the budgets.
 * Run: bun bench/tui-startup.ts [--runs N]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { hasTmux, isolatedBinary, Tmux } from "../test/support/binary.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 5;
const CLK_TCK = 100; // Linux USER_HZ
const IDLE_S = 3;

if (!hasTmux()) {
  console.log("SKIP  tmux is not installed");
  process.exit(0);
}

function procStatus(pid: number, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "ok" } });
const b = isolatedBinary();
const results: { prompt: number; cpuAtPrompt: number; rss: number; idleCpu: number; threads: number }[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const envs = Object.entries({ ...b.env, OLLAMA_HOST: fake.url }).map(([k, v]) => `${k}='${v}'`).join(" ");
    const t0 = performance.now();
    const tmux = new Tmux(join(b.dir, `tmux-${run}.sock`), `cd '${b.dir}' && exec env ${envs} '${b.bin}'`);
    try {
      let promptAt = Infinity;
      let cpuAtPrompt = NaN;
      const pid = Number(tmux.display("#{pane_pid}"));
      while (performance.now() - t0 < 10_000) {
        const s = tmux.capture();
        if (s.includes("Ask anything") && s.includes("qwen3:8b")) {
          promptAt = performance.now() - t0;
          cpuAtPrompt = cpuTicks(pid) / CLK_TCK;
          break;
        }
        await Bun.sleep(5);
      }
      await Bun.sleep(1000);
      const rss = procStatus(pid, "VmRSS");
      const c0 = cpuTicks(pid);
      await Bun.sleep(IDLE_S * 1000);
      const idleCpu = (cpuTicks(pid) - c0) / CLK_TCK;
      const threads = Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      results.push({ prompt: promptAt / 1000, cpuAtPrompt, rss, idleCpu, threads });
      tmux.send("C-c");
      await Bun.sleep(100);
      tmux.send("C-c");
      await Bun.sleep(300);
    } finally {
      tmux.kill();
    }
  }
} finally {
  fake.stop();
  b.cleanup();
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const row = (name: string, xs: number[], budget: number, unit: string, digits: number) => {
  const worst = Math.max(...xs);
  console.log(
    `${worst <= budget ? "PASS" : "FAIL"}  ${name.padEnd(34)} median ${median(xs).toFixed(digits).padStart(7)} ${unit}, worst ${worst.toFixed(digits).padStart(7)} ${unit}  (budget ≤ ${budget} ${unit})`,
  );
};
console.log(`compiled binary in tmux, ${RUNS} runs`);
row("start → prompt on screen", results.map((r) => r.prompt), 0.25, "s", 3);
row("idle RSS after start (VmRSS)", results.map((r) => r.rss), 100, "MB", 1);
row(`CPU while idle for ${IDLE_S} s`, results.map((r) => r.idleCpu), 0.02, "s", 2);
console.log(`      CPU used until the prompt: median ${median(results.map((r) => r.cpuAtPrompt)).toFixed(2)} s (load-independent; wall time above suffers on a busy machine)`);
console.log(`      load average at the end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${navigator.hardwareConcurrency} CPUs`);
console.log(`      threads after start: ${results.map((r) => r.threads).join(", ")} (CPU resolution 1/${CLK_TCK} s)`);
