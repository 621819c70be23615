/**
 * Resume of a long session and listing many sessions, with the compiled binary (build it first with
 * `bun scripts/build.ts`). A session file of TURNS turns (user → exec call → 60-line result → markdown answer,
 * 4 messages each: 2,000 messages by default) is written with the real writer, plus 200 smaller sessions.
 * Measures, in a tmux pane: from `tmux new-session` to the last answer and the prompt on screen for
 * `chatcli --continue`, then VmRSS and VmHWM (peak) after 1 s; PgUp scrolls away from the bottom. Then the
 * wall time of `chatcli sessions`. Budgets: first frame ≤ 0.5 s, ≤ 150 MB (near the cold-start figures);
 * `chatcli sessions` ≤ 0.5 s.
 * Run: bun bench/resume-long.ts [--runs N] [--turns N]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { hasTmux, isolatedBinary, Tmux } from "../test/support/binary.ts";
import { SessionStore } from "../src/store/session-store.ts";
import type { AgentEvent } from "../src/protocol/events.ts";

const arg = (name: string, d: number) => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : d);
const RUNS = arg("runs", 3);
const TURNS = arg("turns", 500);

if (!hasTmux()) {
  console.log("SKIP  tmux is not installed");
  process.exit(0);
}

function writeSession(store: SessionStore, id: string, turns: number, projectRoot: string): void {
  const w = store.writer(id);
  w.append({ type: "meta", id, title: `long session ${id}`, cwd: projectRoot, projectRoot, provider: "OLLAMA", model: "qwen3:8b", createdAt: Date.now() });
  const view = (event: AgentEvent) => w.append({ type: "view", event });
  const usage = { inputTokens: 24, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 };
  for (let t = 0; t < turns; t++) {
    const turnId = `turn_${t}`;
    view({ type: "turn.started", turnId, input: `question ${t}` });
    w.append({ type: "message", message: { role: "user", content: `question ${t}` } });
    const call = { id: `call_${t}`, name: "exec", arguments: JSON.stringify({ command: `seq 1 ${t}` }) };
    const asked = { role: "assistant" as const, content: "", toolCalls: [call] };
    w.append({ type: "message", message: asked });
    view({ type: "message.completed", messageId: `msg_${2 * t}`, message: asked });
    const result = Array.from({ length: 60 }, (_, i) => `line ${i} of output for turn ${t}`).join("\n") + "\nexit code 0";
    view({ type: "tool.started", callId: call.id, name: "exec", args: { command: `seq 1 ${t}` }, title: `exec seq 1 ${t}`, batchId: `batch_${t}` });
    view({ type: "tool.completed", callId: call.id, name: "exec", isError: false, result, durationMs: 5, batchId: `batch_${t}` });
    w.append({ type: "message", message: { role: "tool", toolCallId: call.id, name: "exec", content: result } });
    const text = `Answer ${t}: **bold** and \`code\`.\n\n\`\`\`ts\nconst x${t} = ${t};\n\`\`\`\n\n- item one\n- item two\n`;
    view({ type: "message.delta", messageId: `msg_${2 * t + 1}`, text });
    w.append({ type: "message", message: { role: "assistant", content: text } });
    view({ type: "message.completed", messageId: `msg_${2 * t + 1}`, message: { role: "assistant", content: text } });
    view({ type: "turn.completed", turnId, stopReason: "stop", usage, totalUsage: usage, contextTokens: 1692, contextWindow: 32768 });
  }
  w.close();
}

const kb = (pid: number, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }] });
const b = isolatedBinary();
const env = { ...b.env, OLLAMA_HOST: fake.url };
const store = new SessionStore({ home: b.env.CHATCLI_HOME!, env: {} });
const rows: { frame: number; rss: number; hwm: number; scrolled: boolean }[] = [];
const listTimes: number[] = [];
try {
  for (let i = 0; i < 200; i++) writeSession(store, `20260101-0000${String(i).padStart(3, "0")}-many`, 20, b.dir);
  writeSession(store, "20260102-000000-long", TURNS, b.dir); // written last: the newest, so --continue picks it
  const envs = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(" ");
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const tmux = new Tmux(join(b.dir, `resume-${run}.sock`), `cd '${b.dir}' && exec env ${envs} '${b.bin}' --continue`);
    try {
      let frame = Infinity;
      while (performance.now() - t0 < 15_000) {
        const s = tmux.capture();
        if (s.includes(`Answer ${TURNS - 1}:`) && s.includes("Ask anything")) {
          frame = (performance.now() - t0) / 1000;
          break;
        }
        await Bun.sleep(5);
      }
      await Bun.sleep(1000);
      const pid = Number(tmux.display("#{pane_pid}"));
      const rss = kb(pid, "VmRSS");
      const hwm = kb(pid, "VmHWM");
      tmux.send("PageUp");
      tmux.send("PageUp");
      await Bun.sleep(300);
      const scrolled = !tmux.capture().includes(`Answer ${TURNS - 1}:`);
      rows.push({ frame, rss, hwm, scrolled });
      tmux.send("C-c");
      await Bun.sleep(100);
      tmux.send("C-c");
      await Bun.sleep(300);
    } finally {
      tmux.kill();
    }
    const l0 = performance.now();
    const r = Bun.spawnSync([b.bin, "sessions"], { cwd: b.dir, env, stdout: "pipe", stderr: "pipe" });
    listTimes.push((performance.now() - l0) / 1000);
    if (r.exitCode !== 0 || r.stdout.toString().trim().split("\n").length < 201) throw new Error(`chatcli sessions failed: ${r.stderr.toString()}`);
  }
} finally {
  fake.stop();
  b.cleanup();
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const line = (name: string, xs: number[], budget: number, unit: string) => {
  const worst = Math.max(...xs);
  console.log(`${worst <= budget ? "PASS" : "OVER"}  ${name.padEnd(38)} median ${median(xs).toFixed(unit === "s" ? 3 : 0)} ${unit}  worst ${worst.toFixed(unit === "s" ? 3 : 0)} ${unit}  (budget ${budget} ${unit})`);
};
console.log(`resume of ${TURNS * 4} messages (+200 other sessions), ${RUNS} runs`);
line("--continue: last answer + prompt shown", rows.map((r) => r.frame), 0.5, "s");
line("RSS 1 s after the first frame", rows.map((r) => r.rss), 150, "MB");
line("peak RSS (VmHWM)", rows.map((r) => r.hwm), 150, "MB");
line("chatcli sessions (201 files)", listTimes, 0.5, "s");
console.log(`${rows.every((r) => r.scrolled) ? "PASS" : "FAIL"}  PgUp scrolls away from the last answer`);
