/**
 * Issue 22's server bench: SESSIONS concurrent sessions on one `chatcli serve` (the compiled binary, HTTP
 * transport; `npm run build` first, or CHATCLI_BINARY=…), one WebSocket client per session, each session streaming
 * a long answer from the fake Ollama server (paced at RATE chunks/s, like a real model, or unpaced with RATE=0).
 * Every chunk carries the time it left the fake server (the fake server and the clients share this process's
 * clock), so the latency is fake server send → client receive, through the whole server (provider client, agent
 * loop, session bus, host, WebSocket). Prints events/s, p50/p99/max latency, inter-event gaps, the server's peak
 * RSS (VmHWM of /proc/PID/status) and CPU, and the min/max events per client (starvation check).
 * Budgets: peak RSS ≤ 400 MB; no client starved (every turn completes; each client gets ≥ half the events of the
 * best-served one). Exits 1 when over budget.
 *   bun bench/server-sessions.ts        (SESSIONS=20 CHUNKS=2000 RATE=100 to change the load)
 */
import { readFileSync } from "node:fs";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { isolatedBinary } from "../test/support/binary.ts";
import { startServer } from "../test/support/http-server-client.ts";

const SESSIONS = Number(process.env.SESSIONS ?? 20);
const CHUNKS = Number(process.env.CHUNKS ?? 2_000);
const RATE = Number(process.env.RATE ?? 100);
const RSS_BUDGET_MB = 400;
const STARVED_BELOW = 0.5;

const now = () => performance.timeOrigin + performance.now();
const STAMP = /⟦(\d+\.\d+)⟧/g;

function status(pid: number, key: "VmHWM" | "VmRSS"): number {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, clock ticks (100/s)
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface ClientStats {
  events: number;
  latencies: number[];
  gaps: number[];
  completed: boolean;
  lastAt: number;
}

const words = Array.from({ length: CHUNKS }, (_, i) => `word${i % 97} `);
const fake = startFakeOllama({
  models: [{ name: "coder:7b", contextLength: 262_144, capabilities: ["completion", "tools"] }],
  defaultReply: { chunks: words, stamp: true, ...(RATE > 0 ? { chunksPerSecond: RATE } : {}) },
});
const b = isolatedBinary();
const server = await startServer(b, ["--model", "coder:7b"], { OLLAMA_HOST: fake.url });
const pid = server.proc.pid;
const rssSamples: number[] = [];
const sampler = setInterval(() => rssSamples.push(status(pid, "VmRSS")), 100);

async function openClient(stats: ClientStats): Promise<{ ws: WebSocket; sessionId: string; prompt(): void }> {
  const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${server.token}` } } as unknown as string[]);
  const answers = new Map<number, (r: { result?: { session?: { sessionId: string } }; error?: unknown }) => void>();
  ws.onmessage = (e) => {
    const at = now();
    const m = JSON.parse(String(e.data)) as { id?: number; method?: string; result?: { session?: { sessionId: string } }; error?: unknown; params?: { event: { type: string; text?: string } } };
    if (m.id !== undefined) return answers.get(m.id)?.(m);
    if (m.method !== "session/event") return;
    stats.events += 1;
    if (stats.lastAt) stats.gaps.push(at - stats.lastAt);
    stats.lastAt = at;
    const ev = m.params!.event;
    if (ev.type === "message.delta" && ev.text) for (const s of ev.text.matchAll(STAMP)) stats.latencies.push(at - Number(s[1]));
    if (ev.type === "turn.completed") stats.completed = true;
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("websocket failed"));
  });
  let id = 0;
  const call = (method: string, params: unknown) =>
    new Promise<{ result?: { session?: { sessionId: string } }; error?: unknown }>((resolve) => {
      answers.set(++id, resolve);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  await call("initialize", { protocolVersion: 1 });
  const created = await call("session/new", {});
  if (!created.result?.session) throw new Error(`session/new failed: ${JSON.stringify(created.error)}`);
  const sessionId = created.result.session.sessionId;
  return { ws, sessionId, prompt: () => void call("session/prompt", { sessionId, text: "tell me a long story" }) };
}

const stats: ClientStats[] = Array.from({ length: SESSIONS }, () => ({ events: 0, latencies: [], gaps: [], completed: false, lastAt: 0 }));
const clients = [];
for (const s of stats) clients.push(await openClient(s));
const rssIdle = status(pid, "VmRSS");
const cpu0 = cpuSeconds(pid);
const t0 = now();
for (const c of clients) c.prompt();
const deadline = t0 + Math.max(120_000, (CHUNKS / Math.max(RATE, 1)) * 1000 * 4);
while (!stats.every((s) => s.completed) && now() < deadline) await Bun.sleep(50);
const wall = (now() - t0) / 1000;
const cpu = cpuSeconds(pid) - cpu0;
const hwm = status(pid, "VmHWM");
clearInterval(sampler);
for (const c of clients) c.ws.close();
await server.stop("SIGTERM");
fake.stop();
b.cleanup();

const totalEvents = stats.reduce((n, s) => n + s.events, 0);
const lat = stats.flatMap((s) => s.latencies).sort((x, y) => x - y);
const gaps = stats.flatMap((s) => s.gaps).sort((x, y) => x - y);
const counts = stats.map((s) => s.events);
const minEvents = Math.min(...counts);
const maxEvents = Math.max(...counts);
const incomplete = stats.filter((s) => !s.completed).length;
const starved = incomplete > 0 || minEvents < maxEvents * STARVED_BELOW;
const perClientP99 = stats.map((s) => pct([...s.latencies].sort((x, y) => x - y), 99));
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");

console.log(`chatcli serve: ${SESSIONS} sessions × ${CHUNKS} chunks at ${RATE > 0 ? `${RATE} chunks/s` : "full speed"} each, one WebSocket client per session`);
console.log(`  wall ${f(wall, 2)} s; events delivered ${totalEvents} → ${f(totalEvents / wall, 0)} events/s; server CPU ${f(cpu, 2)} s (${f((cpu / wall) * 100, 0)}% of one core)`);
console.log(`  latency fake server → client (ms): p50 ${f(pct(lat, 50))}  p99 ${f(pct(lat, 99))}  max ${f(lat.at(-1) ?? NaN)}  (${lat.length} chunks); worst client p99 ${f(Math.max(...perClientP99))}`);
console.log(`  inter-event gap per client (ms): p50 ${f(pct(gaps, 50))}  p99 ${f(pct(gaps, 99))}  max ${f(gaps.at(-1) ?? NaN)}`);
console.log(`  server RSS (MB): idle with ${SESSIONS} sessions ${f(rssIdle)}; peak sampled ${f(Math.max(...rssSamples.filter(Number.isFinite)))}; VmHWM ${f(hwm)}  [budget ≤ ${RSS_BUDGET_MB}]`);
console.log(`  events per client: min ${minEvents}  max ${maxEvents}; turns completed ${SESSIONS - incomplete}/${SESSIONS}  [starved if < ${STARVED_BELOW * 100}% of max or incomplete]`);
const over = hwm > RSS_BUDGET_MB;
console.log(`${over ? "OVER BUDGET: peak RSS" : "ok: peak RSS"}; ${starved ? "STARVED: a client fell behind" : "ok: no client starved"}`);
process.exit(over || starved ? 1 : 0);
