import { describe, expect, test } from "bun:test";
import { RESULT_WINDOW_SHARE, resultBudgetForWindow } from "../../../src/agent/compaction/window-result-budget.ts";
import { pipelineOptionsFromEnv } from "../../../src/agent/results/options.ts";
import { createBudgetState, enforceToolResultBudget } from "../../../src/agent/results/budget.ts";
import { estimateTextTokens } from "../../../src/agent/compaction/tokens.ts";
import type { Message } from "../../../src/protocol/message.ts";

const base = pipelineOptionsFromEnv({});

describe("the tool-result budget scaled to the window", () => {
  test("an 8K window caps one result at a fifth of the window, with a preview inside the cap", () => {
    const o = resultBudgetForWindow(base, 8192, {});
    expect(o.budget.perResultMaxChars).toBe(Math.floor(8192 * 4 * RESULT_WINDOW_SHARE));
    expect(o.budget.perResultMaxChars).toBeLessThan(base.budget.perResultMaxChars);
    expect(o.budget.turnBudgetChars).toBeLessThan(base.budget.turnBudgetChars);
    expect(o.budget.previewHeadChars + o.budget.previewTailChars).toBeLessThan(o.budget.perResultMaxChars);
    // What the model then sees of an 18K-char file read fits well inside the window's share.
    const big = Array.from({ length: 300 }, (_, i) => `${i + 1}\texport const m_${i} = "${"v".repeat(20)}"; // line ${i}`).join("\n");
    const history: Message[] = [
      { role: "user", content: "read it" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"a.ts"}' }] },
      { role: "tool", toolCallId: "c1", name: "read", content: big },
    ];
    const r = enforceToolResultBudget(history, { ...o.budget, toolResultsDir: undefined, state: createBudgetState() });
    const shown = r.messages[2]!.content;
    expect(estimateTextTokens(shown)).toBeLessThanOrEqual(8192 * RESULT_WINDOW_SHARE);
    expect(estimateTextTokens(big)).toBeGreaterThan(8192 * 0.5);
  });

  test("large windows keep the fixed defaults (the same object back)", () => {
    expect(resultBudgetForWindow(base, 200_000, {})).toBe(base);
    expect(resultBudgetForWindow(base, 32_768, {}).budget.perResultMaxChars).toBe(base.budget.perResultMaxChars);
  });

  test("limits the user set in the environment are kept as they are", () => {
    const env = { CHATCLI_TOOL_RESULT_MAX_CHARS: "50000", CHATCLI_TOOL_RESULT_BUDGET_CHARS: "90000" };
    const o = resultBudgetForWindow(pipelineOptionsFromEnv(env), 8192, env);
    expect(o.budget.perResultMaxChars).toBe(50_000);
    expect(o.budget.turnBudgetChars).toBe(90_000);
  });

  test("a tiny window still leaves room for the exact 4,000 + 1,000 preview of issue 5", () => {
    const o = resultBudgetForWindow(base, 1024, {});
    expect(o.budget.perResultMaxChars).toBe(base.budget.previewHeadChars + base.budget.previewTailChars + 1200);
    expect(o.budget.previewHeadChars).toBe(base.budget.previewHeadChars);
    expect(o.budget.previewTailChars).toBe(base.budget.previewTailChars);
    expect(o.budget.turnBudgetChars).toBeGreaterThanOrEqual(o.budget.perResultMaxChars);
  });
});
