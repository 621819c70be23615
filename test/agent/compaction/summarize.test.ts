import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactionCancelled, STRUCTURED_SUMMARY_PROMPT, structuredSummarize, type Summarizer } from "../../../src/agent/compaction/summarize.ts";
import { compactHistory } from "../../../src/agent/compaction/compactor.ts";
import { createContextManager } from "../../../src/agent/compaction/context-manager.ts";
import { createModelSummarizer } from "../../../src/agent/compaction/model-summarizer.ts";
import { createArchiver } from "../../../src/agent/compaction/archive.ts";
import { extractQuotes } from "../../../src/agent/compaction/blocks.ts";
import { AUTO_TARGET_SHARE, computeBudget } from "../../../src/agent/compaction/budget.ts";
import { estimateTokens } from "../../../src/agent/compaction/tokens.ts";
import { createProvider } from "../../../src/llm/registry.ts";
import "../../../src/llm/providers/index.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import { messageSchema, type Message } from "../../../src/protocol/message.ts";
import { startFakeOllama } from "../../support/fake-ollama.ts";
import { agentHistory, assistant, pairingValid, sys, tool, user } from "./fixtures.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "chatcli-summ-"));
  dirs.push(d);
  return d;
}

const NOTES = "## Files Read\n- src/file0.ts (10 lines) - entry point\n\n## Current Task State\n- Done: task 0\n- Pending: task 9";

function recording(answer = NOTES): { fn: Summarizer; prompts: string[]; limits: number[] } {
  const prompts: string[] = [];
  const limits: number[] = [];
  return {
    prompts,
    limits,
    fn: async ({ prompt, maxOutputTokens }) => {
      prompts.push(prompt);
      limits.push(maxOutputTokens);
      return answer;
    },
  };
}

describe("level 2: structured summary", () => {
  test("keeps system + the last 8 verbatim, replaces the middle with one marked summary that quotes the user and names the archive", async () => {
    const h = agentHistory(6);
    const s = recording();
    const dir = tmp();
    const r = await structuredSummarize(h, { keepRecent: 8, summarize: s.fn, signal: new AbortController().signal, contextWindow: 200_000, archive: createArchiver(dir, { sessionId: "s1" }) });
    if ("skipped" in r) throw new Error(r.skipped);
    expect(r.messages[0]).toBe(sys);
    expect(r.messages.slice(2)).toEqual(h.slice(-8));
    const summary = r.messages[1]!;
    expect(summary.meta?.kind).toBe("summary");
    expect(summary.content.startsWith(`[STRUCTURED SUMMARY — covering ${h.length - 9} earlier messages]`)).toBe(true);
    expect(summary.content).toContain(NOTES);
    expect(extractQuotes(summary.content)).toEqual(h.slice(1, -8).filter((m) => m.role === "user").map((m) => m.content));
    // The archive holds the full original segment, one valid message per line, and the summary says where.
    expect(r.archivePath).toBeDefined();
    expect(summary.content).toContain(r.archivePath!);
    const lines = readFileSync(r.archivePath!, "utf8").trim().split("\n").map((l) => messageSchema.parse(JSON.parse(l)));
    expect(lines).toEqual(h.slice(1, -8));
    // One call, with the structured prompt and the segment rendered by role.
    expect(s.prompts.length).toBe(1);
    expect(s.prompts[0]!.startsWith(STRUCTURED_SUMMARY_PROMPT)).toBe(true);
    for (const section of ["## Files Read", "## Files Modified", "## Commands Executed", "## Key Decisions", "## Errors & Resolutions", "## Current Task State"]) expect(s.prompts[0]).toContain(section);
    expect(s.prompts[0]).toContain("[tool result: read]: line of file 0");
    expect(s.prompts[0]).toContain("[truncated for summarization]");
  });

  test("the cut never splits a tool block: a keep boundary on a result moves to its assistant message", async () => {
    const h: Message[] = [sys, ...agentHistory(3).slice(1), user("run both"), assistant("", [{ id: "x", name: "exec" }, { id: "y", name: "exec" }]), tool("x", "exec", "ok"), tool("y", "exec", "ok"), assistant("both ran")];
    const s = recording();
    const r = await structuredSummarize(h, { keepRecent: 2, summarize: s.fn, signal: new AbortController().signal, contextWindow: 200_000 });
    if ("skipped" in r) throw new Error(r.skipped);
    expect(r.messages.slice(2).map((m) => m.role)).toEqual(["assistant", "tool", "tool", "assistant"]);
    expect(pairingValid(r.messages)).toBe(true);
  });

  test("a huge middle is summarized in chunks that fit the window, each carrying the notes so far", async () => {
    const h = agentHistory(30);
    const s = recording();
    const r = await structuredSummarize(h, { keepRecent: 8, summarize: s.fn, signal: new AbortController().signal, contextWindow: 8192 });
    expect("skipped" in r).toBe(false);
    expect(s.prompts.length).toBeGreaterThan(1);
    for (const [i, p] of s.prompts.entries()) {
      expect(estimateTokens([{ role: "user", content: p }]) + s.limits[i]!).toBeLessThan(8192);
      if (i > 0) expect(p).toContain(`NOTES SO FAR`);
    }
  });

  test("too little to summarize is skipped; a summary of a summary keeps the earlier quotes", async () => {
    const s = recording();
    const short = [sys, user("a"), assistant("b"), user("c")];
    expect("skipped" in (await structuredSummarize(short, { keepRecent: 8, summarize: s.fn, signal: new AbortController().signal, contextWindow: 8192 }))).toBe(true);
    const first = await structuredSummarize(agentHistory(6), { keepRecent: 8, summarize: s.fn, signal: new AbortController().signal, contextWindow: 200_000 });
    if ("skipped" in first) throw new Error("skipped");
    const more = [...first.messages, ...agentHistory(4).slice(1)];
    const second = await structuredSummarize(more, { keepRecent: 8, summarize: s.fn, signal: new AbortController().signal, contextWindow: 200_000 });
    if ("skipped" in second) throw new Error("skipped");
    const quotes = extractQuotes(second.messages[1]!.content);
    expect(quotes).toContain("task 0: look at src/file0.ts");
    expect(s.prompts.at(-1)).toContain("[earlier summary]:");
  });
});

describe("the summary request against the fake Ollama server", () => {
  test("one user message with the structured prompt, purpose compaction: num_predict and num_ctx set, no tools", async () => {
    const fake = startFakeOllama({ models: [{ name: "m1", contextLength: 8192, capabilities: ["completion", "tools"] }], replies: [{ text: NOTES }] });
    try {
      const provider = createProvider("OLLAMA", { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" });
      const fn = createModelSummarizer({ provider: () => provider, model: () => "m1", contextWindow: () => 8192 });
      const r = await structuredSummarize(agentHistory(6), { keepRecent: 8, summarize: fn, signal: new AbortController().signal, contextWindow: 8192 });
      if ("skipped" in r) throw new Error(r.skipped);
      expect(r.messages[1]!.content).toContain(NOTES);
      const body = fake.chatRequests()[0]! as { model: string; messages: Array<{ role: string; content: string }>; tools?: unknown; options: Record<string, number> };
      expect(body.model).toBe("m1");
      expect(body.messages.length).toBe(1);
      expect(body.messages[0]!.role).toBe("user");
      expect(body.messages[0]!.content.startsWith(STRUCTURED_SUMMARY_PROMPT)).toBe(true);
      expect(body.messages[0]!.content).toContain("CONVERSATION SEGMENT TO EXTRACT FROM:");
      expect(body.tools).toBeUndefined();
      expect(body.options.num_ctx).toBe(8192);
      expect(body.options.num_predict).toBeGreaterThan(0);
      expect(body.options.num_predict).toBeLessThanOrEqual(2048);
    } finally {
      fake.stop();
    }
  });

  test("cancellation: aborting while the model is still writing leaves the history as it was", async () => {
    const fake = startFakeOllama({ models: [{ name: "m1", contextLength: 8192 }], replies: [{ chunks: ["## Files", " Read", "..."], stallAfter: 1 }] });
    try {
      const provider = createProvider("OLLAMA", { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" });
      const fn = createModelSummarizer({ provider: () => provider, model: () => "m1", contextWindow: () => 8192 });
      const h = agentHistory(10);
      const controller = new AbortController();
      const events: AgentEvent[] = [];
      const p = compactHistory(
        { history: h, budget: computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 500 }), overheadTokens: 500, signal: controller.signal, emit: (e) => events.push(e) },
        { summarize: fn },
      );
      while (fake.chatRequests().length === 0) await Bun.sleep(5);
      controller.abort();
      const r = await p;
      expect(r.cancelled).toBe(true);
      expect(r.messages).toBe(h);
      expect(events.some((e) => e.type === "notice" && e.text.includes("cancelled"))).toBe(true);
      expect(events.some((e) => e.type === "compaction" && e.level >= 2)).toBe(false);
    } finally {
      fake.stop();
    }
  });

  test("structuredSummarize itself throws CompactionCancelled on abort, and a timeout is an ordinary failure", async () => {
    const never: Summarizer = ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
    const c = new AbortController();
    const p = structuredSummarize(agentHistory(6), { keepRecent: 8, summarize: never, signal: c.signal, contextWindow: 200_000 });
    c.abort();
    await expect(p).rejects.toBeInstanceOf(CompactionCancelled);
    const t = structuredSummarize(agentHistory(6), { keepRecent: 8, summarize: never, signal: new AbortController().signal, contextWindow: 200_000, timeoutMs: 20 });
    await expect(t).rejects.toThrow("did not finish");
  });
});

describe("the 3-level pipeline", () => {
  const budgetFor = (window: number) => computeBudget({ contextWindow: window, agent: true, overheadTokens: 500 });

  test("trim alone is enough: level 1 only, no model call", async () => {
    const h = agentHistory(6, 4_000);
    const s = recording();
    const events: AgentEvent[] = [];
    // Trimming must reach the target (AUTO_TARGET_SHARE of the 60% trigger), not merely the trigger.
    const window = Math.ceil(((estimateTokens(h) + 500) * 0.9) / (0.6 * AUTO_TARGET_SHARE));
    const r = await compactHistory({ history: h, budget: budgetFor(window), overheadTokens: 500, signal: new AbortController().signal, emit: (e) => events.push(e) }, { summarize: s.fn });
    expect(r.level).toBe(1);
    expect(s.prompts.length).toBe(0);
    const ev = events.filter((e) => e.type === "compaction");
    expect(ev.length).toBe(1);
    expect(ev[0]).toMatchObject({ level: 1, messagesBefore: h.length, messagesAfter: h.length });
  });

  test("automatic compaction lands at the target below the trigger, so the next turn of the same size does not compact again", async () => {
    // Trimming alone gets this history under the trigger budget but not under the target.
    const h = agentHistory(15, 1_000);
    const b = budgetFor(8192);
    expect(estimateTokens(h)).toBeGreaterThan(b.historyBudget);
    const r = await compactHistory({ history: h, budget: b, overheadTokens: 500, signal: new AbortController().signal, emit: () => undefined }, { summarize: recording().fn });
    expect(r.level).toBe(2);
    expect(estimateTokens(r.messages)).toBeLessThanOrEqual(b.historyTarget);
    const nextTurn = agentHistory(16, 1_000).slice(-4);
    expect(estimateTokens([...r.messages, ...nextTurn])).toBeLessThanOrEqual(b.historyBudget);
  });

  test("summary when trimming is not enough; a failing summarizer falls back to emergency truncation, said honestly", async () => {
    const h = agentHistory(20);
    const events: AgentEvent[] = [];
    const ok = await compactHistory({ history: h, budget: budgetFor(8192), overheadTokens: 500, signal: new AbortController().signal, emit: (e) => events.push(e) }, { summarize: recording().fn });
    expect(ok.level).toBeGreaterThanOrEqual(2);
    expect(ok.messages.some((m) => m.meta?.kind === "summary" && m.content.startsWith("[STRUCTURED SUMMARY"))).toBe(true);
    expect(estimateTokens(ok.messages)).toBeLessThanOrEqual(budgetFor(8192).historyBudget);
    const failing: Summarizer = async () => {
      throw new Error("HTTP 500 from the model");
    };
    const ev2: AgentEvent[] = [];
    const bad = await compactHistory({ history: h, budget: budgetFor(8192), overheadTokens: 500, signal: new AbortController().signal, emit: (e) => ev2.push(e) }, { summarize: failing });
    expect(bad.level).toBe(3);
    // One event, no notices: why the summary failed is in the event (and the log), not on screen.
    expect(ev2.filter((e) => e.type === "notice")).toEqual([]);
    const only = ev2.filter((e) => e.type === "compaction");
    expect(only.length).toBe(1);
    expect(only[0]).toMatchObject({ level: 3, trigger: "auto", summaryError: "HTTP 500 from the model" });
    expect(only[0]!.type === "compaction" && only[0]!.tokensAfter < only[0]!.tokensBefore && (only[0]!.dropped ?? 0) > 0).toBe(true);
    expect(bad.messages.some((m) => m.content.includes("They were not summarized"))).toBe(true);
    expect(pairingValid(bad.messages)).toBe(true);
  });

  test("/compact: target 50%, always summarizes; /compact <instruction> tells the summarizer; failure leaves the history as it was", async () => {
    const h = agentHistory(6, 500);
    const s = recording();
    const cm = createContextManager({ contextWindow: () => 200_000, overheadTokens: () => 500, agent: () => true, summarize: s.fn });
    const events: AgentEvent[] = [];
    const out = await cm.compact({ history: h, signal: new AbortController().signal, emit: (e) => events.push(e) });
    expect(out).toBeDefined();
    expect(out!.some((m) => m.meta?.kind === "summary")).toBe(true);
    expect(events.filter((e) => e.type === "compaction").map((e) => e.type === "compaction" && [e.trigger, e.level, e.summarized])).toEqual([["manual", 2, 16]]);
    const guided = await cm.compact({ history: h, instruction: "keep the list of files touched", signal: new AbortController().signal, emit: () => {} });
    expect(s.prompts.at(-1)).toContain("USER INSTRUCTION: keep the list of files touched");
    expect(guided!.slice(-4)).toEqual(h.slice(-4));
    expect(guided![1]!.content).toContain('per the user\'s instruction: "keep the list of files touched"');
    const failing = createContextManager({ contextWindow: () => 200_000, overheadTokens: () => 500, agent: () => true, summarize: async () => "" });
    const ev: AgentEvent[] = [];
    expect(await failing.compact({ history: h, signal: new AbortController().signal, emit: (e) => ev.push(e) })).toBeUndefined();
    expect(ev.some((e) => e.type === "notice" && e.text.includes("Compaction failed (the model returned an empty summary); the history is unchanged."))).toBe(true);
  });
});
