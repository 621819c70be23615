/**
 * Where the streaming CPU of bench/tui-stream.ts's terminal phase goes, layer by layer: the same 5,000-line answer
 * in 20,000 chunks from the fake Ollama server at 2,000 chunks/s (and unpaced), read by
 *  1. a bare `fetch` that only counts the body's bytes (the runtime's floor for one read per chunk);
 *  2. the `ollama` client (NDJSON lines parsed, as our provider reads them);
 *  3. the compiled binary in one-shot mode (`-p`: the whole core — provider chain, agent loop, session, recorder,
 *     hold-back — and a stdout write per delta, no TUI).
 * The terminal phase (`bun bench/tui-stream.ts --pty-only`) is 3 plus the TUI. CPU = getrusage of the child.
 * Run: npm run build && bun bench/stream-cpu-floor.ts [--rate N]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";
import { isolatedBinary } from "../test/support/binary.ts";
import { benchAnswer } from "./bench-answer.ts";

const rateArg = process.argv.indexOf("--rate");
const rate = rateArg >= 0 ? Number(process.argv[rateArg + 1]) : 2000;
const text = benchAnswer(5000);
const ollamaClient = join(import.meta.dir, "..", "node_modules", "ollama", "dist", "browser.mjs");

const CHILD = {
  fetch: `const r = await fetch(process.env.U + "/api/chat", { method: "POST", body: JSON.stringify({ model: "qwen3:8b", messages: [{ role: "user", content: "x" }], stream: true }) });
let n = 0; for await (const c of r.body) n += c.length; console.log(n);`,
  ollama: `import { Ollama } from ${JSON.stringify(ollamaClient)};
const s = await new Ollama({ host: process.env.U }).chat({ model: "qwen3:8b", messages: [{ role: "user", content: "x" }], stream: true });
let n = 0; for await (const c of s) n += c.message.content.length; console.log(n);`,
};

async function cpuOf(cmd: string[], env: Record<string, string>, cwd?: string): Promise<number> {
  const p = Bun.spawn(cmd, { env, cwd, stdout: "pipe", stderr: "ignore" });
  await new Response(p.stdout).text();
  await p.exited;
  const r = p.resourceUsage();
  return r ? (Number(r.cpuTime.user) + Number(r.cpuTime.system)) / 1e6 : NaN;
}

async function run(what: "fetch" | "ollama" | "binary"): Promise<number> {
  const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 262_144, capabilities: ["completion"] }] });
  fake.enqueue({ text, chunkCount: 20_000, ...(rate > 0 ? { chunksPerSecond: rate } : {}) });
  const dir = mkdtempSync(join(tmpdir(), "stream-floor-"));
  try {
    if (what !== "binary") {
      const file = join(dir, "child.ts");
      writeFileSync(file, CHILD[what]);
      return await cpuOf([process.execPath, file], { ...(process.env as Record<string, string>), U: fake.url });
    }
    const b = isolatedBinary();
    try {
      return await cpuOf([b.bin, "--model", "qwen3:8b", "-p", "write it"], { ...b.env, OLLAMA_HOST: fake.url }, b.dir);
    } finally {
      b.cleanup();
    }
  } finally {
    fake.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`5,000-line answer, 20,000 chunks ${rate > 0 ? `at ${rate} chunks/s` : "unpaced"}: CPU seconds of the reader`);
for (const what of ["fetch", "ollama", "binary"] as const) console.log(`  ${what.padEnd(8)} ${(await run(what)).toFixed(2)} s`);
