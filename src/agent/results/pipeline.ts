/**
 * The tool-result pipeline run before every model call: pairing → budget → microcompact.
 * Pure over the history (the only side effect is the budget stage's file writes into `toolResultsDir`) and
 * deterministic: it is applied to the OUTGOING request only, re-run per request over the history as it
 * happened, and gives the same text for the same message every time (with the same context, the same
 * objects: `budgetState` and `memo` make the outputs identity-stable). Also idempotent over its own output
 * (older session files persisted it).
 */
import type { Message } from "../../protocol/message.ts";
import { describeBudgetReport, enforceToolResultBudget, type BudgetReport, type BudgetState, type ExclusiveWrite } from "./budget.ts";
import { applyMicrocompact, describeMicrocompactReport, type MicrocompactMemo, type MicrocompactReport } from "./microcompact.ts";
import type { PipelineOptions } from "./options.ts";
import { describePairingReport, ensureToolResultPairing, type PairingReport } from "./pairing.ts";

export interface PipelineContext {
  options: PipelineOptions;
  /** One per session, kept across turns (stable previews). */
  budgetState: BudgetState;
  toolResultsDir: string | undefined;
  writeFile?: ExclusiveWrite;
  /** One per session: stable microcompact outputs, and reports that count only first-time changes. */
  memo?: MicrocompactMemo;
}

export interface PipelineResult {
  messages: Message[];
  pairing: PairingReport;
  budget: BudgetReport;
  microcompact: MicrocompactReport;
  /** One compact UI line, e.g. `microcompact: 3 truncated, 1 summarized, 41K freed`; "" when nothing changed. */
  summary: string;
  /** The history message an output message stands for (itself when the pipeline did not change it). */
  sourceOf(m: Message): Message;
}

export function runResultPipeline(history: Message[], ctx: PipelineContext): PipelineResult {
  const paired = ensureToolResultPairing(history);
  const budgeted = enforceToolResultBudget(paired.messages, {
    ...ctx.options.budget,
    toolResultsDir: ctx.toolResultsDir,
    state: ctx.budgetState,
    ...(ctx.writeFile ? { writeFile: ctx.writeFile } : {}),
  });
  const compacted = applyMicrocompact(budgeted.messages, ctx.options.microcompact, ctx.memo);
  const summary = [describePairingReport(paired.report), describeBudgetReport(budgeted.report), describeMicrocompactReport(compacted.report)]
    .filter((s) => s !== "")
    .join(" · ");
  // Budget and microcompact replace messages in place (index for index); pairing keeps unchanged messages.
  const sources = new Map<Message, Message>();
  const out = compacted.messages;
  if (out !== paired.messages) for (let i = 0; i < out.length; i++) if (out[i] !== paired.messages[i]) sources.set(out[i]!, paired.messages[i]!);
  return { messages: out, pairing: paired.report, budget: budgeted.report, microcompact: compacted.report, summary, sourceOf: (m) => sources.get(m) ?? m };
}
