/**
 * Issue 17: start-up of the compiled binary with 5 configured stdio MCP servers against start-up with none (first
 * frame: the prompt with the model on screen in a real tmux pane, as bench/tui-startup.ts measures it). Budget: the
 * median with servers within 10 % of the median without. Then `/mcp` is typed and the clock runs until the screen
 * shows all 5 servers connected, against one server's own start time (spawn → initialize → tools/list, measured
 * here through the runtime) plus a margin (they start once the first frame is up).
 * Runs interleaved (none, five, none, five, …) so machine load hits both alike.
 * Run: bun bench/mcp-startup.ts [--runs N]   (build first: bun scripts/build.ts)
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { hasTmux, isolatedBinary, Tmux } from "../test/support/binary.ts";
import { McpManager } from "../src/mcp/runtime/mcp-manager.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 5;
const FIXTURE = join(import.meta.dir, "..", "test", "mcp", "fixtures", "mcp-test-server.ts");
const SERVERS = 5;

if (!hasTmux()) {
  console.log("SKIP  tmux is not installed");
  process.exit(0);
}

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "ok" } });
const b = isolatedBinary();
const settingsDir = join(b.home, ".chatcli");
mkdirSync(settingsDir, { recursive: true });
const servers = Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`s${i}`, { command: process.execPath, args: [FIXTURE] }]));

const oneServerStart = await measureOneServer();
const none: number[] = [];
const five: number[] = [];
const cpu = { none: [] as number[], five: [] as number[] };
const connected: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    writeFileSync(join(settingsDir, "settings.json"), JSON.stringify({}));
    none.push(await firstFrame(`none-${run}`, false));
    writeFileSync(join(settingsDir, "settings.json"), JSON.stringify({ mcpServers: servers }));
    const r = await firstFrame(`five-${run}`, true);
    five.push(r);
  }
} finally {
  fake.stop();
  b.cleanup();
}

async function firstFrame(tag: string, withMcp: boolean): Promise<number> {
  const envs = Object.entries({ ...b.env, OLLAMA_HOST: fake.url }).map(([k, v]) => `${k}='${v}'`).join(" ");
  const t0 = performance.now();
  const tmux = new Tmux(join(b.dir, `tmux-${tag}.sock`), `cd '${b.dir}' && exec env ${envs} '${b.bin}'`, 120, 40);
  try {
    let promptAt = Infinity;
    const pid = Number(tmux.display("#{pane_pid}"));
    while (performance.now() - t0 < 15_000) {
      const s = tmux.capture();
      if (s.includes("Ask anything") && s.includes("qwen3:8b")) {
        promptAt = performance.now() - t0;
        (withMcp ? cpu.five : cpu.none).push(cpuTicks(pid) / 100);
        break;
      }
      await Bun.sleep(5);
    }
    if (withMcp) {
      // `/mcp` until every server says connected.
      while (performance.now() - t0 < 30_000) {
        tmux.send("/mcp", "Enter");
        await Bun.sleep(150);
        const count = tmux.capture().split("\n").filter((l) => /s\d \[user\] connected/.test(l)).length;
        if (count >= SERVERS) {
          connected.push((performance.now() - t0 - promptAt) / 1000);
          break;
        }
        tmux.send("C-l");
      }
    }
    tmux.send("C-c");
    await Bun.sleep(100);
    tmux.send("C-c");
    await Bun.sleep(300);
    return promptAt / 1000;
  } finally {
    tmux.kill();
  }
}

/** One server's own start (spawn + initialize + tools/list), through the runtime. */
async function measureOneServer(): Promise<number> {
  const m = new McpManager({
    servers: [{ name: "one", entry: { command: process.execPath, args: [FIXTURE] }, scope: "user", source: "bench" }],
    projectRoot: b.dir,
    home: settingsDir,
    env: process.env,
    baseEnv: { PATH: process.env.PATH ?? "" },
    clientVersion: "bench",
    log: () => undefined,
    binding: () => ({ providerId: "OLLAMA", nativeTools: true, contextWindow: 8192 }),
  });
  const t0 = performance.now();
  await m.ready();
  const ms = performance.now() - t0;
  await m.dispose();
  return ms / 1000;
}

function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]);
  } catch {
    return NaN;
  }
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const mNone = median(none);
const mFive = median(five);
const ratio = mFive / mNone;
console.log(`compiled binary in tmux, ${RUNS} runs each, interleaved`);
console.log(`      first frame, no MCP server:        median ${mNone.toFixed(3)} s (runs ${none.map((x) => x.toFixed(3)).join(", ")})`);
console.log(`      first frame, ${SERVERS} stdio servers:     median ${mFive.toFixed(3)} s (runs ${five.map((x) => x.toFixed(3)).join(", ")})`);
console.log(`      CPU used until the prompt (load-independent): none ${median(cpu.none).toFixed(2)} s, ${SERVERS} servers ${median(cpu.five).toFixed(2)} s`);
console.log(`${ratio <= 1.1 ? "PASS" : "FAIL"}  first frame with ${SERVERS} servers / without   ${(ratio * 100).toFixed(1)} %  (budget ≤ 110 %)`);
const budget = oneServerStart * 2 + 0.4 + 1;
const worst = connected.length ? Math.max(...connected) : Infinity;
console.log(
  `${connected.length === RUNS && worst <= budget ? "PASS" : "FAIL"}  /mcp shows ${SERVERS} connected after the frame  median ${connected.length ? median(connected).toFixed(3) : "-"} s, worst ${Number.isFinite(worst) ? worst.toFixed(3) : "never"} s  (budget ≤ ${budget.toFixed(2)} s: 2 × one server's start ${oneServerStart.toFixed(3)} s in parallel on a shared machine + 0.4 s for the first frame to settle + 1 s of polling)`,
);
console.log(`      load average at the end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${navigator.hardwareConcurrency} CPUs`);
