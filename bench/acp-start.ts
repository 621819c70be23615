/**
 * Issue 22, "measure both": the ACP front with @agentclientprotocol/sdk against a hand-written one.
 *   1. The product: the compiled `chatcli acp` (SDK path) against the fake Ollama: spawn → initialize response,
 *      then RSS after one session/new (a real session: config, model resolution, tools).
 *   2. Like for like, the protocol layer alone: this file compiled the way scripts/build.ts compiles chatcli
 *      (--compile --minify --bytecode --splitting), run as `--child sdk` (the SDK's agent side answering initialize
 *      + session/new) and `--child hand` (a hand-written responder over src/server/line-framer.ts doing the same).
 * Budget for keeping the SDK: its protocol layer costs ≤ 60 ms more to the initialize answer and ≤ 30 MB more RSS
 * than the hand-written one (an editor starts the agent once per project; the SDK brings validation and the
 * protocol's evolution for free).
 * Run: bun bench/acp-start.ts [--runs N]   (build first: bun scripts/build.ts)
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { isolatedBinary } from "../test/support/binary.ts";

const BUDGET_MS = 60;
const BUDGET_MB = 30;

const mode = process.argv[process.argv.indexOf("--child") + 1];
if (process.argv.includes("--child")) await child(mode === "sdk" ? "sdk" : "hand");
else await main();

/** A minimal agent answering initialize and session/new, the SDK way or by hand. Stays up until stdin ends. */
async function child(kind: "sdk" | "hand"): Promise<void> {
  const stdout = new WritableStream<Uint8Array>({ write: (c) => new Promise<void>((r) => void process.stdout.write(c, () => r())) });
  if (kind === "sdk") {
    const acp = await import("@agentclientprotocol/sdk");
    const app = acp
      .agent({ name: "bench" })
      .onRequest("initialize", () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: true }, authMethods: [] }))
      .onRequest("session/new", () => ({ sessionId: "s1" }));
    await app.connect(acp.ndJsonStream(stdout, Bun.stdin.stream())).closed;
    return;
  }
  const { LineFramer, encodeFrame } = await import("../src/server/line-framer.ts");
  const writer = stdout.getWriter();
  const enc = new TextEncoder();
  const framer = new LineFramer(16 * 1024 * 1024, (f) => {
    if (f.kind !== "line") return;
    const m = JSON.parse(f.text) as { id?: number; method?: string };
    if (m.method === "initialize") void writer.write(enc.encode(encodeFrame({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] } })));
    else if (m.method === "session/new") void writer.write(enc.encode(encodeFrame({ jsonrpc: "2.0", id: m.id, result: { sessionId: "s1" } })));
  });
  for await (const chunk of Bun.stdin.stream()) framer.push(chunk);
}

interface Run {
  initMs: number;
  rssMb: number;
}

async function measure(argv: string[], env: Record<string, string>, cwd: string, newParams: unknown): Promise<Run> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const lines: string[] = [];
  let buf = "";
  const reader = proc.stdout.getReader();
  const next = async (): Promise<string> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        return line;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`agent ended early: ${lines.join("\n")}`);
      buf += new TextDecoder().decode(value);
    }
  };
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  proc.stdin.flush();
  await next();
  const initMs = performance.now() - t0;
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: newParams })}\n`);
  proc.stdin.flush();
  for (;;) if ((JSON.parse(await next()) as { id?: number }).id === 2) break;
  const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  proc.stdin.end();
  await proc.exited;
  return { initMs, rssMb: rssKb / 1024 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const runsArg = process.argv.indexOf("--runs");
  const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 5;
  const fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] }] });
  const b = isolatedBinary();
  const buildDir = mkdtempSync(join(tmpdir(), "acp-bench-"));
  const childBin = join(buildDir, "acp-child");
  const built = Bun.spawnSync([process.execPath, "build", import.meta.path, "--compile", "--minify", "--bytecode", "--format=esm", "--splitting", "--outfile", childBin], { stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`compiling the bench child failed: ${built.stderr.toString()}`);
  const results = { product: [] as Run[], sdk: [] as Run[], hand: [] as Run[] };
  try {
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so machine load hits all three alike.
      results.product.push(await measure([b.bin, "acp", "--model", "coder:7b"], { ...b.env, OLLAMA_HOST: fake.url }, b.dir, { cwd: b.dir, mcpServers: [] }));
      results.sdk.push(await measure([childBin, "--child", "sdk"], { ...b.env }, b.dir, { cwd: b.dir, mcpServers: [] }));
      results.hand.push(await measure([childBin, "--child", "hand"], { ...b.env }, b.dir, { cwd: b.dir, mcpServers: [] }));
    }
  } finally {
    fake.stop();
    b.cleanup();
    rmSync(buildDir, { recursive: true, force: true });
  }
  const row = (name: string, rs: Run[]) => console.log(`${name.padEnd(44)} initialize ${median(rs.map((r) => r.initMs)).toFixed(0).padStart(5)} ms   RSS after session/new ${median(rs.map((r) => r.rssMb)).toFixed(1).padStart(6)} MB`);
  console.log(`ACP start (median of ${RUNS})`);
  row("chatcli acp (compiled, SDK, real session)", results.product);
  row("protocol layer only: SDK (compiled)", results.sdk);
  row("protocol layer only: hand-written (compiled)", results.hand);
  const dMs = median(results.sdk.map((r) => r.initMs)) - median(results.hand.map((r) => r.initMs));
  const dMb = median(results.sdk.map((r) => r.rssMb)) - median(results.hand.map((r) => r.rssMb));
  const ok = dMs <= BUDGET_MS && dMb <= BUDGET_MB;
  console.log(`SDK − hand-written: ${dMs.toFixed(0)} ms, ${dMb.toFixed(1)} MB (budget ≤ ${BUDGET_MS} ms, ≤ ${BUDGET_MB} MB): ${ok ? "PASS — keep the SDK" : "FAIL — consider the hand-written path"}`);
}
