import { describe, expect, test } from "bun:test";
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from "../../src/llm/context-windows.ts";
import { costOf, priceFor } from "../../src/llm/prices.ts";
import { UsageTracker } from "../../src/llm/usage.ts";

const u = (inputTokens: number, outputTokens: number, cachedInputTokens = 0, reasoningTokens = 0) => ({ inputTokens, outputTokens, cachedInputTokens, reasoningTokens });

describe("prices", () => {
  test("longest prefix wins; vendor prefixes ignored; unknown has no price", () => {
    expect(priceFor("gpt-4o-mini-2024-07-18")?.input).toBe(0.15);
    expect(priceFor("openai/gpt-4o")?.input).toBe(2.5);
    expect(priceFor("qwen3:8b")).toBeUndefined();
  });
  test("cached input is billed at the cached rate", () => {
    // 1M input of which 400k cached, 100k output on gpt-4o: 0.6M×2.5 + 0.4M×1.25 + 0.1M×10 = 1.5 + 0.5 + 1.0
    expect(costOf("gpt-4o", u(1_000_000, 100_000, 400_000))).toBeCloseTo(3.0, 10);
  });
});

describe("UsageTracker", () => {
  test("sums per purpose and per session; unpriced calls count tokens only", () => {
    const t = new UsageTracker();
    t.record("main", "OPENAI", "gpt-4o", u(1000, 100, 500, 20));
    t.record("main", "OLLAMA", "qwen3:8b", u(2000, 200));
    t.record("compaction", "OPENAI", "gpt-4o", u(3000, 300));
    const s = t.session();
    expect(s).toMatchObject({ calls: 3, inputTokens: 6000, outputTokens: 600, cachedInputTokens: 500, reasoningTokens: 20, unpricedCalls: 1 });
    expect(s.costUsd).toBeCloseTo(costOf("gpt-4o", u(1000, 100, 500))! + costOf("gpt-4o", u(3000, 300))!, 12);
    const by = t.byPurpose();
    expect(by.main?.inputTokens).toBe(3000);
    expect(by.compaction?.calls).toBe(1);
    expect(t.lastCall()?.purpose).toBe("compaction");
    const onlyLocal = new UsageTracker();
    onlyLocal.record("main", "OLLAMA", "qwen3:8b", u(10, 1));
    expect(onlyLocal.session().costUsd).toBeUndefined();
    expect(onlyLocal.formatStats()).toContain("cost n/a");
  });
  test("formatStats lists session, purposes and models", () => {
    const t = new UsageTracker();
    t.record("main", "OPENAI", "gpt-4o", u(12_345, 678, 2000, 5));
    t.record("tool_use_summary", "OLLAMA", "qwen3:8b", u(100, 10));
    const out = t.formatStats();
    expect(out).toContain("Session: 2 calls");
    expect(out).toContain("in 12.4k"); // one decimal under 100k, as the status line
    expect(out).toContain("tool_use_summary");
    expect(out).toContain("OPENAI:gpt-4o");
    expect(out).toContain("+ 1 unpriced");
  });
});

describe("context windows", () => {
  test("table, conservative default, env override", () => {
    expect(contextWindowFor("claude-sonnet-4-6")).toBe(200_000);
    expect(contextWindowFor("gpt-4o-2024-08-06")).toBe(128_000);
    expect(contextWindowFor("models/gemini-2.5-flash")).toBe(1_048_576);
    expect(contextWindowFor("some-new-model")).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor("gpt-4o", { CHATCLI_CONTEXT_WINDOW: "50000" })).toBe(50_000);
  });
});
