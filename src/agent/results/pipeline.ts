/**
 * The tool-result pipeline run before every model call: pairing → budget → microcompact.
 * Pure over the history (the only side effect is the budget stage's file writes into `toolResultsDir`);
 * the caller decides whether the output replaces the persistent history (recommended: every stage is
 * idempotent and stable, so re-running on its own output changes nothing).
 */
import type { Message } from "../../protocol/message.ts";
import { describeBudgetReport, enforceToolResultBudget, type BudgetReport, type BudgetState, type ExclusiveWrite } from "./budget.ts";
import { applyMicrocompact, describeMicrocompactReport, type MicrocompactReport } from "./microcompact.ts";
import type { PipelineOptions } from "./options.ts";
import { describePairingReport, ensureToolResultPairing, type PairingReport } from "./pairing.ts";

export interface PipelineContext {
  options: PipelineOptions;
  /** One per session, kept across turns (stable previews). */
  budgetState: BudgetState;
  toolResultsDir: string | undefined;
  writeFile?: ExclusiveWrite;
}

export interface PipelineResult {
  messages: Message[];
  pairing: PairingReport;
  budget: BudgetReport;
  microcompact: MicrocompactReport;
  /** One compact UI line, e.g. `microcompact: 3 truncated, 1 summarized, 41K freed`; "" when nothing changed. */
  summary: string;
}

export function runResultPipeline(history: Message[], ctx: PipelineContext): PipelineResult {
  const paired = ensureToolResultPairing(history);
  const budgeted = enforceToolResultBudget(paired.messages, {
    ...ctx.options.budget,
    toolResultsDir: ctx.toolResultsDir,
    state: ctx.budgetState,
    ...(ctx.writeFile ? { writeFile: ctx.writeFile } : {}),
  });
  const compacted = applyMicrocompact(budgeted.messages, ctx.options.microcompact);
  const summary = [describePairingReport(paired.report), describeBudgetReport(budgeted.report), describeMicrocompactReport(compacted.report)]
    .filter((s) => s !== "")
    .join(" · ");
  return { messages: compacted.messages, pairing: paired.report, budget: budgeted.report, microcompact: compacted.report, summary };
}
