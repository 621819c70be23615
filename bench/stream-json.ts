/**
 * Issue 15 item 1 budgets: the stream-json output of an answer is at most 3× the answer's size, and the run's
 * peak memory at most 1.5× the text run's. The compiled binary (dist/chatcli; `npm run build` first, or
 * CHATCLI_BINARY=…) answers one prompt from the fake Ollama server: a 5,000-line markdown answer in 20,000
 * chunks, once with `--output-format text` and once with `stream-json`. stdout is counted as it arrives (never
 * kept); peak RSS is /usr/bin/time's max resident set. Also prints the session file's size against the answer
 * (the recorder must not keep the answer once per delta).
 *   bun bench/stream-json.ts            (LINES=… CHUNKS=… to change the answer)
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOllama } from "../test/support/fake-ollama.ts";

const BIN = process.env.CHATCLI_BINARY ?? join(import.meta.dir, "../dist/chatcli");
const LINES = Number(process.env.LINES ?? 5_000);
const CHUNKS = Number(process.env.CHUNKS ?? 20_000);
const OUTPUT_BUDGET = 3;
const RSS_BUDGET = 1.5;

function answerOf(lines: number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    if (i % 50 === 1) out.push(`## Section ${i}`);
    else if (i % 50 === 20) out.push("```ts", `const v${i} = ${i};`, "```");
    else if (i % 10 === 0) out.push("");
    else out.push(`- item ${i}: some **bold** text, \`code\`, and a sentence that runs on for a while.`);
  }
  return out.join("\n");
}

const answer = answerOf(LINES);
const answerBytes = Buffer.byteLength(answer);
const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 262_144, capabilities: ["completion", "tools"] }] });
const home = mkdtempSync(join(tmpdir(), "chatcli-bench-sj-"));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CHATCLI_HOME: join(home, ".chatcli"), OLLAMA_HOST: fake.url, LLM_MODEL: "qwen3:8b" };

async function countBytes(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += chunk.byteLength;
  return n;
}

async function runOnce(format: "text" | "stream-json"): Promise<{ bytes: number; rssMB: number; wallS: number }> {
  fake.enqueue({ text: answer, chunkCount: CHUNKS });
  const t0 = performance.now();
  const p = Bun.spawn(["/usr/bin/time", "-f", "%M", BIN, "-p", "write it", "--output-format", format], { cwd: home, env, stdout: "pipe", stderr: "pipe" });
  const [bytes, err] = await Promise.all([countBytes(p.stdout), new Response(p.stderr).text()]);
  const code = await p.exited;
  const wallS = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${format}: exit ${code}: ${err.slice(-500)}`);
  return { bytes, rssMB: Number(err.trim().split("\n").at(-1)) / 1024, wallS };
}

function newestSessionBytes(): number {
  const dir = join(home, ".chatcli", "sessions");
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).map((f) => join(dir, f));
  const newest = files.map((f) => statSync(f)).sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  return newest?.size ?? NaN;
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(2)} MB`;
const verdict = (ok: boolean) => (ok ? "OK" : "OVER BUDGET");
try {
  const text = await runOnce("text");
  const json = await runOnce("stream-json");
  const session = newestSessionBytes();
  console.log(`stream-json vs text: ${LINES.toLocaleString("en")}-line answer (${mb(answerBytes)}) in ${CHUNKS.toLocaleString("en")} chunks, ${BIN}`);
  console.log(`  text run:        output ${mb(text.bytes)}, peak RSS ${text.rssMB.toFixed(0)} MB, wall ${text.wallS.toFixed(2)} s`);
  console.log(`  stream-json run: output ${mb(json.bytes)}, peak RSS ${json.rssMB.toFixed(0)} MB, wall ${json.wallS.toFixed(2)} s`);
  const ratio = json.bytes / answerBytes;
  const rss = json.rssMB / text.rssMB;
  console.log(`  output / answer  ${ratio.toFixed(2)}×  (budget ≤ ${OUTPUT_BUDGET}×) ${verdict(ratio <= OUTPUT_BUDGET)}`);
  console.log(`  peak RSS / text  ${rss.toFixed(2)}×  (budget ≤ ${RSS_BUDGET}×) ${verdict(rss <= RSS_BUDGET)}`);
  console.log(`  session file     ${mb(session)} = ${(session / answerBytes).toFixed(2)}× the answer (no budget; linear: history message, one coalesced delta, message.completed)`);
} finally {
  fake.stop();
  rmSync(home, { recursive: true, force: true });
}
