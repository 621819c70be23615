/**
 * Budget math: when compaction triggers and what it aims for, in tokens of the whole request (system prompt,
 * tool definitions and history together, because that is what has to fit the window).
 * Trigger: 60% of the window in agent work (tools enabled), 75% in plain chat; `/compact` aims at 50%.
 * The remaining 25–40% is room for the answer and for the estimate being off.
 */
export const AGENT_TRIGGER_RATIO = 0.6;
export const CHAT_TRIGGER_RATIO = 0.75;
export const MANUAL_COMPACT_RATIO = 0.5;
/**
 * Automatic compaction aims this share of the trigger (agent 40% of the window, chat 50%), so the room
 * freed lasts several turns instead of being used up by the next tool result.
 */
export const AUTO_TARGET_SHARE = 2 / 3;
/** The history always gets at least this share of the window, even when the system prompt is huge. */
export const MIN_HISTORY_SHARE = 0.15;
/** Messages kept verbatim at the end by the summary level ("~4 tool-call cycles"). */
export const KEEP_RECENT = 8;

export interface BudgetInput {
  contextWindow: number;
  /** Tools enabled (agent work) or plain chat. */
  agent: boolean;
  /** Tokens the request carries besides the history: system prompt, tool definitions, the task reminder. */
  overheadTokens: number;
  /** Overrides the trigger ratio (e.g. 0.5 for `/compact`, halved during overflow recovery); the target is then the same ratio. */
  ratio?: number;
}

export interface Budget {
  contextWindow: number;
  ratio: number;
  /** Whole-request size above which compaction runs. */
  triggerTokens: number;
  /** Tokens the history may take (trigger minus overhead, floored at MIN_HISTORY_SHARE of the window). */
  historyBudget: number;
  /** Whole-request size compaction aims for: below the trigger (AUTO_TARGET_SHARE), or the explicit ratio. */
  targetTokens: number;
  /** History tokens compaction aims for (target minus overhead, same floor, never above historyBudget). */
  historyTarget: number;
}

export function computeBudget(input: BudgetInput): Budget {
  const window = Math.max(1, Math.floor(input.contextWindow));
  const ratio = input.ratio ?? (input.agent ? AGENT_TRIGGER_RATIO : CHAT_TRIGGER_RATIO);
  const triggerTokens = Math.floor(window * ratio);
  const overhead = Math.max(0, Math.ceil(input.overheadTokens));
  const floor = Math.floor(window * MIN_HISTORY_SHARE);
  const historyBudget = Math.max(floor, triggerTokens - overhead);
  const targetTokens = input.ratio !== undefined ? triggerTokens : Math.floor(window * ratio * AUTO_TARGET_SHARE);
  const historyTarget = Math.min(historyBudget, Math.max(floor, targetTokens - overhead));
  return { contextWindow: window, ratio, triggerTokens, historyBudget, targetTokens, historyTarget };
}

/** Token counts in notices and logs: the status line's one format (83.7k, 1.5M). */
export { formatTokens } from "../../llm/usage.ts";
