/**
 * Tool-result pipeline cost per model turn: pairing → budget → microcompact over a 10,000-message history
 * holding 2,000 large tool results. Budget: well under one frame (16 ms) per turn. Run: `bun bench/pipeline.ts`.
 *
 * Two ways a session may use the pipeline, both measured:
 * - persistent: the output replaces the history, then one new turn is appended (how sessions worked before
 *   issue 26);
 * - outgoing copy: the raw history is kept and the pipeline re-derives the request from it every turn, with
 *   the session's budget state and microcompact memo (how src/cli/wire-session.ts uses it now).
 * The one-time cold pass (writing 2,000 overflow files) is printed separately.
 */
import { createBudgetState } from "../src/agent/results/budget.ts";
import { applyMicrocompact } from "../src/agent/results/microcompact.ts";
import { pipelineOptionsFromEnv } from "../src/agent/results/options.ts";
import { ensureToolResultPairing } from "../src/agent/results/pairing.ts";
import { runResultPipeline, type PipelineContext } from "../src/agent/results/pipeline.ts";
import { enforceToolResultBudget } from "../src/agent/results/budget.ts";
import type { Message } from "../src/protocol/message.ts";
import { createSessionWorkspace } from "../src/store/session-workspace.ts";

const FRAME_MS = 16;
const TURNS = 2000; // 5 messages per turn → 10,000 messages, one large result each
const LARGE_CHARS = 30_000;
const RUNS = 15;

const block = Array.from({ length: Math.ceil(LARGE_CHARS / 60) }, (_, i) => `\tline ${i} of some tool output that goes on`.padEnd(59, ".")).join("\n");

function turn(k: number): Message[] {
  return [
    { role: "user", content: `step ${k}` },
    { role: "assistant", content: "", toolCalls: [{ id: `read:${k}`, name: "read", arguments: "{}" }, { id: `grep:${k}`, name: "search", arguments: "{}" }] },
    { role: "tool", toolCallId: `read:${k}`, name: "read", content: `package p${k}\n${block}`.slice(0, LARGE_CHARS) },
    { role: "tool", toolCallId: `grep:${k}`, name: "search", content: `src/a.ts:${k}: match` },
    { role: "assistant", content: `noted ${k}` },
  ];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const ws = createSessionWorkspace({ env: process.env });
try {
  const options = pipelineOptionsFromEnv({});
  const raw: Message[] = [];
  for (let k = 0; k < TURNS; k++) raw.push(...turn(k));
  for (const m of raw) if (m.role === "tool") m.content.charCodeAt(m.content.length - 1); // flatten ropes up front

  // Cold pass: every large result is new and gets written to disk once.
  const ctx: PipelineContext = { options, budgetState: createBudgetState(), toolResultsDir: ws.toolResultsDir, memo: new WeakMap() };
  let t = performance.now();
  let persistent = runResultPipeline(raw, ctx).messages;
  const coldMs = performance.now() - t;

  // Persistent mode: output becomes the history; each turn adds one exchange with a new large result.
  const persistentMs: number[] = [];
  const stage = { pairing: [] as number[], budget: [] as number[], microcompact: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    const h = [...persistent, ...turn(TURNS + r)];
    t = performance.now();
    persistent = runResultPipeline(h, ctx).messages;
    persistentMs.push(performance.now() - t);
    // Same work split by stage (on a fresh copy, so nothing is cached between the two measurements but the state).
    const h2 = [...persistent, ...turn(TURNS + RUNS + r)];
    let s = performance.now();
    const p = ensureToolResultPairing(h2).messages;
    stage.pairing.push(performance.now() - s);
    s = performance.now();
    const b = enforceToolResultBudget(p, { ...options.budget, toolResultsDir: ws.toolResultsDir, state: ctx.budgetState }).messages;
    stage.budget.push(performance.now() - s);
    s = performance.now();
    applyMicrocompact(b, options.microcompact);
    stage.microcompact.push(performance.now() - s);
  }

  // Outgoing-copy mode: the raw 10,000 messages every turn, with the session's budget state.
  const copyMs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    t = performance.now();
    runResultPipeline(raw, ctx);
    copyMs.push(performance.now() - t);
  }

  // A resumed session: new message objects with the same content (identity cache misses, content hash hits).
  const resumedMs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const copy = raw.map((m) => ({ ...m }));
    t = performance.now();
    runResultPipeline(copy, ctx);
    resumedMs.push(performance.now() - t);
  }

  const verdict = (ms: number): string => (ms < FRAME_MS ? "OK" : "OVER BUDGET");
  const fmt = (ms: number): string => ms.toFixed(2).padStart(8);
  const pm = median(persistentMs);
  const cm = median(copyMs);
  console.log(`tool-result pipeline: ${raw.length.toLocaleString("en")} messages, ${TURNS.toLocaleString("en")} large results of ${LARGE_CHARS.toLocaleString("en")} chars`);
  console.log(`  cold first pass (writes ${TURNS} files, one-time) ${fmt(coldMs)} ms`);
  console.log(`  per turn, persistent history (median of ${RUNS})  ${fmt(pm)} ms   budget ${FRAME_MS} ms  ${verdict(pm)}`);
  console.log(`    pairing ${median(stage.pairing).toFixed(2)} ms · budget ${median(stage.budget).toFixed(2)} ms · microcompact ${median(stage.microcompact).toFixed(2)} ms`);
  console.log(`  per turn, outgoing copy of raw history       ${fmt(cm)} ms   budget ${FRAME_MS} ms  ${verdict(cm)}`);
  const rm = median(resumedMs);
  console.log(`  first turn after resume (content-hash lookups) ${fmt(rm)} ms   (one-time per resume)`);
} finally {
  ws.cleanup();
}
