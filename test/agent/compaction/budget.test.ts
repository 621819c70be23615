import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../../src/llm/providers/index.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { contextWindowFor, resolveModel } from "../../../src/cli/resolve-model.ts";
import { AGENT_TRIGGER_RATIO, AUTO_TARGET_SHARE, CHAT_TRIGGER_RATIO, MIN_HISTORY_SHARE, computeBudget } from "../../../src/agent/compaction/budget.ts";
import { createTokenAccountant, estimateMessageTokens, estimateTextTokens, estimateTokens } from "../../../src/agent/compaction/tokens.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { startFakeOllama } from "../../support/fake-ollama.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function cfgFor(provider: string, env: Record<string, string> = {}, model?: string) {
  const home = mkdtempSync(join(tmpdir(), "chatcli-budget-"));
  dirs.push(home);
  return loadConfig({ cwd: home, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), ...env }, flags: { provider, ...(model ? { model } : {}) } });
}

describe("token estimates", () => {
  test("ASCII is ~4 chars per token, CJK ~1 token per char, other non-ASCII ~2 chars per token", () => {
    expect(estimateTextTokens("a".repeat(400))).toBe(100);
    expect(estimateTextTokens("日本語のテキスト")).toBe(8);
    expect(estimateTextTokens("한국어")).toBe(3);
    expect(estimateTextTokens("ação".repeat(10))).toBe(Math.ceil(20 / 4 + 20 / 2));
    // An emoji is one surrogate pair, counted once.
    expect(estimateTextTokens("😀😀")).toBe(1);
  });

  test("messages count content, tool-call arguments, images and framing; system and tools add up", () => {
    const plain: Message = { role: "user", content: "x".repeat(400) };
    const calls: Message = { role: "assistant", content: "", toolCalls: [{ id: "1", name: "read", arguments: JSON.stringify({ path: "y".repeat(396) }) }] };
    const image: Message = { role: "user", content: "", images: [{ mediaType: "image/png", base64: "AAAA" }] };
    expect(estimateMessageTokens(plain)).toBe(104);
    expect(estimateMessageTokens(calls)).toBeGreaterThan(100);
    expect(estimateMessageTokens(image)).toBeGreaterThanOrEqual(1000);
    const withSystem = estimateTokens([plain], [{ text: "s".repeat(4000) }], [{ name: "read", description: "Read a file", parameters: { type: "object" } }]);
    expect(withSystem).toBeGreaterThan(104 + 1000);
  });

  test("the accountant uses the reported prompt size for what was sent, estimates the rest, and never goes below the estimate", () => {
    const acc = createTokenAccountant();
    const a: Message = { role: "user", content: "hello" };
    const b: Message = { role: "assistant", content: "x".repeat(4000) };
    const history = [a];
    expect(acc.requestTokens(history, 100)).toBe(estimateTokens(history) + 100);
    acc.sent(history);
    acc.reported(5000);
    const next = [a, b];
    expect(acc.requestTokens(next, 100)).toBe(5000 + estimateMessageTokens(b));
    // A server reporting only the uncached part (tiny count) cannot make us under-count.
    acc.sent(next);
    acc.reported(3);
    expect(acc.requestTokens(next, 100)).toBe(estimateTokens(next) + 100);
    // A rewritten history (compaction) drops the reported figure.
    acc.sent(next);
    acc.reported(9000);
    expect(acc.requestTokens([{ role: "user", content: "summary" }], 100)).toBe(estimateTokens([{ role: "user", content: "summary" }]) + 100);
  });
});

describe("budget math", () => {
  test("trigger at 60% of the window in agent work, 75% in chat; the history gets the trigger minus overhead", () => {
    const agent = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 1500 });
    expect(agent.triggerTokens).toBe(Math.floor(8192 * AGENT_TRIGGER_RATIO));
    expect(agent.historyBudget).toBe(agent.triggerTokens - 1500);
    const chat = computeBudget({ contextWindow: 200_000, agent: false, overheadTokens: 1500 });
    expect(chat.triggerTokens).toBe(200_000 * CHAT_TRIGGER_RATIO);
    const manual = computeBudget({ contextWindow: 10_000, agent: true, overheadTokens: 0, ratio: 0.5 });
    expect(manual.triggerTokens).toBe(5000);
  });

  test("automatic compaction aims well below the trigger (40% agent, 50% chat); /compact aims at its own ratio", () => {
    const agent = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 1500 });
    expect(agent.targetTokens).toBe(Math.floor(8192 * AGENT_TRIGGER_RATIO * AUTO_TARGET_SHARE));
    expect(agent.targetTokens).toBeLessThan(agent.triggerTokens);
    expect(agent.historyTarget).toBe(agent.targetTokens - 1500);
    const chat = computeBudget({ contextWindow: 100_000, agent: false, overheadTokens: 0 });
    expect(chat.targetTokens).toBe(Math.floor(100_000 * CHAT_TRIGGER_RATIO * AUTO_TARGET_SHARE));
    const manual = computeBudget({ contextWindow: 10_000, agent: true, overheadTokens: 1000, ratio: 0.5 });
    expect(manual.targetTokens).toBe(5000);
    expect(manual.historyTarget).toBe(manual.historyBudget);
    // Never above the trigger budget, never below the history's minimum share.
    const huge = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 7000 });
    expect(huge.historyTarget).toBe(Math.floor(8192 * MIN_HISTORY_SHARE));
    expect(huge.historyTarget).toBeLessThanOrEqual(huge.historyBudget);
  });

  test("a system prompt bigger than the trigger still leaves the history its minimum share", () => {
    const b = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 7000 });
    expect(b.historyBudget).toBe(Math.floor(8192 * MIN_HISTORY_SHARE));
  });
});

describe("context window per provider", () => {
  const fake = startFakeOllama({
    models: [
      { name: "big:latest", contextLength: 131072, capabilities: ["completion", "tools"] },
      { name: "small:latest", contextLength: 4096, capabilities: ["completion"] },
      { name: "mystery:latest", capabilities: ["completion"] },
    ],
  });
  afterAll(() => fake.stop());

  test("Ollama: /api/show's context length, capped at the 32,768 num_ctx we send; 8,192 when it says nothing", async () => {
    const window = async (model: string) => {
      const cfg = cfgFor("OLLAMA", { OLLAMA_HOST: fake.url }, model);
      const r = await resolveModel(cfg);
      return contextWindowFor(cfg, r.info, r.providerId, r.model);
    };
    expect(await window("big:latest")).toBe(32_768);
    expect(await window("small:latest")).toBe(4096);
    expect(await window("mystery:latest")).toBe(8192);
  });

  test("cloud providers: the model table, a stated 32,768 default for unknown models, CHATCLI_CONTEXT_WINDOW over all", () => {
    const openai = cfgFor("OPENAI");
    expect(contextWindowFor(openai, undefined, "OPENAI", "gpt-4o")).toBe(128_000);
    expect(contextWindowFor(openai, undefined, "CLAUDEAI", "claude-sonnet-4-5")).toBe(200_000);
    expect(contextWindowFor(openai, undefined, "GOOGLEAI", "gemini-2.5-pro")).toBe(1_048_576);
    expect(contextWindowFor(openai, undefined, "OPENAI", "brand-new-model")).toBe(32_768);
    const env = cfgFor("OLLAMA", { CHATCLI_CONTEXT_WINDOW: "8192" });
    expect(contextWindowFor(env, { id: "big", contextWindow: 131072 }, "OLLAMA", "big")).toBe(8192);
    expect(contextWindowFor(env, undefined, "OPENAI", "gpt-4o")).toBe(8192);
  });

  test("budgets follow the windows: an 8K Ollama model compacts far earlier than a 200K Claude model", () => {
    const ollama = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 2000 });
    const claude = computeBudget({ contextWindow: 200_000, agent: true, overheadTokens: 2000 });
    expect(ollama.historyBudget).toBe(4915 - 2000);
    expect(claude.historyBudget).toBe(120_000 - 2000);
  });
});
