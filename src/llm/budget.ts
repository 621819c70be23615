/**
 * The spending limit (`--max-budget-usd`, settings `maxBudgetUsd`): before each model call, the spend so far plus
 * an estimate of the call (its input tokens at the model's input price, plus the average output of the calls so far
 * at the output price, from prices.ts) is compared with the limit; over it, the call is refused with a message.
 * A model without a price costs nothing here (local models): only priced calls count, as in /stats.
 * The spend is this process's (a resumed session starts at zero).
 */
import type { LlmRequest } from "../protocol/llm.ts";
import { t } from "../i18n/i18n.ts";
import { costOf } from "./prices.ts";
import { formatCost, type UsageTracker } from "./usage.ts";

/** Output tokens assumed for the first call, before any call has reported its own. */
const FIRST_CALL_OUTPUT_TOKENS = 200;

export interface BudgetGuard {
  readonly limitUsd: number;
  /** The refusal text when `request` would take the spend over the limit; undefined to send it. */
  check(request: LlmRequest): string | undefined;
}

export function createBudgetGuard(o: { limitUsd: number; usage: UsageTracker; inputTokens: (request: LlmRequest) => number }): BudgetGuard {
  return {
    limitUsd: o.limitUsd,
    check(request) {
      const spent = o.usage.session().costUsd ?? 0;
      const main = o.usage.byPurpose().main;
      const output = main && main.calls > 0 ? Math.ceil(main.outputTokens / main.calls) : FIRST_CALL_OUTPUT_TOKENS;
      const estimate = costOf(request.model, { inputTokens: o.inputTokens(request), outputTokens: output, cachedInputTokens: 0 }) ?? 0;
      if (spent + estimate <= o.limitUsd && spent < o.limitUsd) return undefined;
      return t("budget.exceeded", { estimate: formatCost(estimate), spent: formatCost(spent), limit: formatCost(o.limitUsd) });
    },
  };
}

/** `$0.12/$1.00` for the status line. */
export function budgetStatus(spentUsd: number | undefined, limitUsd: number): string {
  return `${formatCost(spentUsd ?? 0)}/${formatCost(limitUsd)}`;
}
