/**
 * The outgoing side of the tool-result pipeline (pairing → budget → microcompact), applied to each request only:
 * the session's history stays what happened. Full outputs the previews point at go to the recorded session's
 * directory once the recorder names it (`setSessionResultsDir`), else to the temp workspace.
 */
import type { Config } from "../config/load-config.ts";
import type { Message } from "../protocol/message.ts";
import { runResultPipeline } from "../agent/results/pipeline.ts";
import { createBudgetState, saveOverflow, type BudgetState } from "../agent/results/budget.ts";
import type { MicrocompactMemo } from "../agent/results/microcompact.ts";
import { pipelineOptionsFromEnv } from "../agent/results/options.ts";
import { resultBudgetForWindow } from "../agent/compaction/window-result-budget.ts";
import type { SessionWorkspace } from "../store/session-workspace.ts";

export interface OutgoingPipeline {
  /** What the model is sent for this history (memoised for the same array and length). */
  outgoingOf(history: Message[]): ReturnType<typeof runResultPipeline>;
  toolResultsDir(): string | undefined;
  setSessionResultsDir(dir: string): void;
  /** Saves a full output next to its preview; undefined when there is nowhere to save it. */
  saveOverflow(callId: string, text: string): string | undefined;
  /** The per-result cap for the current window (the `!` shell passthrough uses it). */
  perResultMaxChars(): number;
}

export function createOutgoing(cfg: Config, workspace: SessionWorkspace | undefined, window: () => number): OutgoingPipeline {
  const pipelineOptions = pipelineOptionsFromEnv(cfg.env);
  let sessionResultsDir: string | undefined;
  const toolResultsDir = () => sessionResultsDir ?? workspace?.toolResultsDir;
  // Previews name their directory, so the budget's memory is per directory.
  const budgetStates = new Map<string, BudgetState>();
  const memo: MicrocompactMemo = new WeakMap();
  // The checkpoint and the pipeline hook ask for the same request (same history array, nothing appended in
  // between): the second gets the first's result, so its report (what is new) is not lost to the first.
  let last: { history: readonly Message[]; length: number; window: number; dir: string | undefined; result: ReturnType<typeof runResultPipeline> } | undefined;
  return {
    toolResultsDir,
    setSessionResultsDir: (dir) => {
      sessionResultsDir = dir;
    },
    saveOverflow: (callId, text) => {
      const dir = toolResultsDir();
      return dir === undefined ? undefined : saveOverflow(dir, callId, text);
    },
    perResultMaxChars: () => resultBudgetForWindow(pipelineOptions, window(), cfg.env).budget.perResultMaxChars,
    outgoingOf: (history) => {
      const dir = toolResultsDir();
      const w = window();
      if (last && last.history === history && last.length === history.length && last.window === w && last.dir === dir) return last.result;
      let budgetState = budgetStates.get(dir ?? "");
      if (!budgetState) budgetStates.set(dir ?? "", (budgetState = createBudgetState()));
      const result = runResultPipeline(history, { options: resultBudgetForWindow(pipelineOptions, w, cfg.env), budgetState, toolResultsDir: dir, memo });
      last = { history, length: history.length, window: w, dir, result };
      return result;
    },
  };
}
