import { expect, test } from "bun:test";
import { budgetStatus, createBudgetGuard } from "../../src/llm/budget.ts";
import { UsageTracker } from "../../src/llm/usage.ts";
import type { LlmRequest } from "../../src/protocol/llm.ts";

const req = (model: string): LlmRequest => ({ model, system: [], messages: [{ role: "user", content: "hi" }], purpose: "main" });

test("refuses a request whose estimate (input at the input price + average output) would pass the limit", () => {
  const usage = new UsageTracker();
  // gpt-4o: $2.50 / M input, $10 / M output. 10,000 input tokens ≈ $0.025, first call's output 200 ≈ $0.002.
  const guard = createBudgetGuard({ limitUsd: 0.03, usage, inputTokens: () => 10_000 });
  expect(guard.check(req("gpt-4o"))).toBeUndefined();
  usage.record("main", "OPENAI", "gpt-4o", { inputTokens: 2_000, outputTokens: 100, cachedInputTokens: 0, reasoningTokens: 0 }); // $0.006
  const refusal = guard.check(req("gpt-4o"));
  expect(refusal).toContain("Budget limit reached");
  expect(refusal).toContain("$0.03");
  // Unpriced (local) models cost nothing: never refused while the priced spend is under the limit.
  expect(guard.check(req("qwen3:8b"))).toBeUndefined();
  // Spent already at the limit: everything stops.
  usage.record("main", "OPENAI", "gpt-4o", { inputTokens: 20_000, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 });
  expect(guard.check(req("qwen3:8b"))).toContain("Budget limit reached");
});

test("status text: spend against the limit", () => {
  expect(budgetStatus(undefined, 2)).toBe("$0.0000/$2.00");
  expect(budgetStatus(0.1234, 2)).toBe("$0.12/$2.00");
});
