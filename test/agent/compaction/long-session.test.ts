/**
 * End to end: a 40-turn scripted agent session with an 8K window (the fake model's context length and
 * CHATCLI_CONTEXT_WINDOW), every turn reading a large file, through the real Session built by wireSession.
 * Summary requests go to a second fake (a router in front of both picks by the prompt), so the main script
 * stays in order. Every recorded request must fit the window by our estimate, and the session must finish.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STRUCTURED_SUMMARY_PROMPT } from "../../../src/agent/compaction/summarize.ts";
import { estimateTextTokens } from "../../../src/agent/compaction/tokens.ts";
import { startFakeOllama, type FakeReply } from "../../support/fake-ollama.ts";
import { ollamaHarness } from "./ollama-harness.ts";

const WINDOW = 8192;
const TURNS = 40;
const MODEL = { name: "qwen3:8b", contextLength: WINDOW, capabilities: ["completion", "tools"] };

type ChatBody = { messages: Array<{ role: string; content: string; tool_calls?: unknown }>; tools?: unknown; options?: Record<string, number> };

/** Our estimate of what the server had to fit: every message and the tool definitions. */
function requestTokens(b: ChatBody): number {
  let n = 0;
  for (const m of b.messages) n += 4 + estimateTextTokens(m.content) + (m.tool_calls ? estimateTextTokens(JSON.stringify(m.tool_calls)) : 0);
  if (b.tools) n += estimateTextTokens(JSON.stringify(b.tools));
  return n;
}

function isSummaryRequest(body: ChatBody): boolean {
  return body.messages.length === 1 && body.messages[0]!.content.startsWith(STRUCTURED_SUMMARY_PROMPT);
}

describe("a long session in an 8K window", () => {
  test(`${TURNS} turns with big tool outputs: every request fits the window and the session finishes`, async () => {
    const script: FakeReply[] = [];
    for (let i = 0; i < TURNS; i++) {
      script.push({ toolCalls: [{ name: "read", arguments: { path: `src/mod${i % 5}.ts` } }] });
      script.push({ text: `mod${i % 5}.ts defines ${200 + i} constants; step ${i} done.` });
    }
    const main = startFakeOllama({ models: [MODEL], replies: script, defaultReply: { text: "unexpected extra call" } });
    const summarizer = startFakeOllama({
      models: [MODEL],
      defaultReply: { text: "## Files Read\n- src/mod0.ts (300 lines) - constants\n\n## Current Task State\n- Done: reading modules\n- Pending: the next step" },
    });
    const router = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const url = new URL(req.url);
        const text = req.method === "POST" ? await req.text() : undefined;
        let target = main.url;
        if (url.pathname === "/api/chat" && text) {
          try {
            if (isSummaryRequest(JSON.parse(text) as ChatBody)) target = summarizer.url;
          } catch {
            // not JSON: the main fake answers it
          }
        }
        return fetch(`${target}${url.pathname}`, { method: req.method, headers: { "content-type": "application/json" }, ...(text !== undefined ? { body: text } : {}) });
      },
    });
    const h = await ollamaHarness({ model: MODEL, fake: main, url: `http://127.0.0.1:${router.port}`, env: { CHATCLI_CONTEXT_WINDOW: String(WINDOW) } });
    try {
      mkdirSync(join(h.project, "src"), { recursive: true });
      for (let k = 0; k < 5; k++) {
        const lines = Array.from({ length: 300 }, (_, i) => `export const m${k}_${i} = "${"v".repeat(20)}"; // line ${i}`);
        writeFileSync(join(h.project, "src", `mod${k}.ts`), lines.join("\n"));
      }
      for (let i = 0; i < TURNS; i++) await h.run(`step ${i}: read src/mod${i % 5}.ts and tell me how many constants it has`);

      const done = h.of("turn.completed");
      expect(done.length).toBe(TURNS);
      expect(done.every((d) => d.stopReason === "stop")).toBe(true);
      expect(h.of("error")).toEqual([]);

      const mainRequests = main.chatRequests() as ChatBody[];
      expect(mainRequests.length).toBe(2 * TURNS);
      const sizes = mainRequests.map(requestTokens);
      const biggest = Math.max(...sizes);
      expect(biggest).toBeLessThan(WINDOW);
      for (const b of mainRequests) expect(b.options?.num_ctx).toBe(WINDOW);
      // Every tool result was big: without compaction the last request would be far over the window.
      const allToolText = h.of("tool.completed").reduce((n, t) => n + estimateTextTokens(t.result), 0);
      expect(allToolText).toBeGreaterThan(4 * WINDOW);

      const compactions = h.of("compaction");
      expect(compactions.length).toBeGreaterThan(0);
      // Compaction aims below its trigger and single big results are capped by the window-scaled result
      // budget, so it runs now and then, not before nearly every request.
      expect(compactions.length).toBeLessThan(mainRequests.length / 4);
      expect(compactions.every((c) => c.tokensAfter <= c.tokensBefore)).toBe(true);
      // Summaries went to the summarizer, each fitting the window too.
      const summaryRequests = summarizer.chatRequests() as ChatBody[];
      for (const b of summaryRequests) expect(requestTokens(b) + (b.options?.num_predict ?? 0)).toBeLessThan(WINDOW);

      // The user's latest instruction is always in the request that answers it.
      const last = mainRequests.at(-2)!;
      expect(last.messages.some((m) => m.role === "user" && m.content.startsWith(`step ${TURNS - 1}:`))).toBe(true);
      // The status figure the session reports stays under the window as well.
      expect(done.every((d) => d.contextTokens < WINDOW && d.contextWindow === WINDOW)).toBe(true);
      console.log(`long session: ${mainRequests.length} main requests, biggest ~${biggest} tokens of ${WINDOW}; ${compactions.length} compaction steps (levels ${[...new Set(compactions.map((c) => c.level))].join(",")}); ${summaryRequests.length} summary calls`);
    } finally {
      h.cleanup();
      router.stop(true);
      summarizer.stop();
      main.stop();
    }
  }, 30_000);
});
