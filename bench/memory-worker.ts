/**
 * The memory worker never delays a main request (issue 21): the compiled binary in --no-tui mode against the fake
 * Ollama with concurrency 1 (one model slot, like OLLAMA_NUM_PARALLEL=1). The extraction reply is slow (3 s); the
 * third prompt is typed while the worker is extracting. For every main request: how long it waited for the slot
 * (slotAt − arrival). Budget: at most 50 ms; also checks that no main request overlapped an extraction that was
 * not cancelled, and that the extraction was retried and its fact reached the inbox.
 * Run: `npm run build && bun bench/memory-worker.ts`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type RecordedRequest } from "../test/support/fake-ollama.ts";
import { isolatedBinary, runAt } from "../test/support/binary.ts";

const BUDGET_MS = 50;
const MODEL = "qwen3:8b";
const b = isolatedBinary();
const project = join(b.dir, "p");
mkdirSync(join(project, ".git"), { recursive: true });
const isExtraction = (body: unknown) => JSON.stringify((body as { messages?: unknown })?.messages ?? "").includes("You keep the long-term memory");
const fake = startFakeOllama({
  models: [{ name: MODEL, contextLength: 32768, capabilities: ["completion", "tools"] }],
  concurrency: 1,
  defaultReply: { text: "Noted, thanks." },
  route: (body) => (isExtraction(body) ? { chunks: Array.from({ length: 30 }, (_, i) => (i === 0 ? '{"LONGTERM": [{"text": "The user prefers tabs for indentation", "scope": "project"}]' : i === 29 ? "}" : " ")), chunkDelayMs: 100 } : undefined),
});
try {
  const proc = Bun.spawn([b.bin, "--no-tui", "--model", MODEL], { cwd: project, env: { ...b.env, OLLAMA_HOST: fake.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const main = () => fake.requests.filter((r) => r.path === "/api/chat" && !isExtraction(r.body));
  const ext = () => fake.requests.filter((r) => r.path === "/api/chat" && isExtraction(r.body));
  const waitFor = async (pred: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!pred() && Date.now() < end) await Bun.sleep(10);
    if (!pred()) throw new Error("timed out");
  };
  const say = (line: string) => {
    proc.stdin.write(`${line}\n`);
    proc.stdin.flush();
  };
  say("I always indent with tabs, never spaces.");
  await waitFor(() => main().length === 1 && main()[0]!.endedAt !== undefined);
  say("And I prefer short answers.");
  await waitFor(() => ext().length === 1); // the worker started once the session went idle
  await Bun.sleep(300); // well inside the 3 s extraction
  say("What is 2 + 2?");
  await waitFor(() => main().length === 3 && main()[2]!.endedAt !== undefined);
  proc.stdin.end();
  await proc.exited;
  const waits = main().map((r: RecordedRequest) => (r.slotAt ?? r.at) - r.at);
  const overlapped = main().filter((m) => ext().some((e) => !e.cancelled && e.slotAt! < m.slotAt! && (e.endedAt ?? Infinity) > m.slotAt!));
  const inbox = await runAt(b, project, ["memory", "inbox", "--json"], { OLLAMA_HOST: fake.url });
  const proposed = (JSON.parse(inbox.stdout || "[]") as unknown[]).length;
  const max = Math.max(...waits);
  console.log(`main requests: ${waits.length}; slot wait per request (ms): ${waits.join(", ")}; max ${max} (budget ${BUDGET_MS})`);
  console.log(`extractions: ${ext().length} (cancelled by a turn: ${ext().filter((e) => e.cancelled).length}); main requests overlapping an uncancelled extraction: ${overlapped.length}; inbox after exit: ${proposed}`);
  const ok = max <= BUDGET_MS && overlapped.length === 0 && proposed === 1 && ext().some((e) => e.cancelled);
  console.log(ok ? "PASS" : "FAIL");
  process.exitCode = ok ? 0 : 1;
} finally {
  fake.stop();
  b.cleanup();
}
