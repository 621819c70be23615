/**
 * The tool-result budget scaled to the model's window. The fixed defaults (20K chars per result, 200K per
 * turn) suit large windows; in an 8K window one such result is bigger than the whole compaction trigger,
 * so every request would compact. Here a single result may take at most RESULT_WINDOW_SHARE of the window
 * and one turn's results TURN_WINDOW_SHARE; the full text still goes to the session workspace with a
 * preview, as for any budgeted result. Limits set in the environment are the user's and are kept as they are.
 */
import type { PipelineOptions, EnvLike } from "../results/options.ts";

export const RESULT_WINDOW_SHARE = 0.2;
export const TURN_WINDOW_SHARE = 0.35;
/** Characters per token assumed when turning a window share into a character limit. */
const CHARS_PER_TOKEN = 4;
/**
 * A result is never cut below the preview plus some room (the issue-5 preview of 4,000 + 1,000 chars stays exact
 * whatever the window), so only the trigger moves with small windows, never the preview's shape.
 */
const PREVIEW_ROOM_CHARS = 1_200;

export function resultBudgetForWindow(base: PipelineOptions, contextWindow: number, env: EnvLike): PipelineOptions {
  const window = Math.max(1, Math.floor(contextWindow));
  const b = base.budget;
  const minResult = b.previewHeadChars + b.previewTailChars + PREVIEW_ROOM_CHARS;
  const perResult = env.CHATCLI_TOOL_RESULT_MAX_CHARS
    ? b.perResultMaxChars
    : Math.min(b.perResultMaxChars, Math.max(minResult, Math.floor(window * CHARS_PER_TOKEN * RESULT_WINDOW_SHARE)));
  const perTurn = env.CHATCLI_TOOL_RESULT_BUDGET_CHARS
    ? b.turnBudgetChars
    : Math.min(b.turnBudgetChars, Math.max(perResult, Math.floor(window * CHARS_PER_TOKEN * TURN_WINDOW_SHARE)));
  if (perResult === b.perResultMaxChars && perTurn === b.turnBudgetChars) return base;
  return { ...base, budget: { ...b, perResultMaxChars: perResult, turnBudgetChars: perTurn } };
}
