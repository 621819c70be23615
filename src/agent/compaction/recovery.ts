/**
 * Recovery after the provider rejected a request as too large (context_too_long / payload_too_large), up to
 * MAX_RECOVERY_ATTEMPTS per agent run, each harsher than the last:
 *  1. budgets halved: every tool output over 5,000 chars and every assistant message over 5,000 chars is
 *     shortened, then the largest messages are shrunk to half the history budget;
 *  2. emergency truncation keeping the last 10 messages;
 *  3. emergency truncation keeping the last 4, every message capped at 4,000 chars.
 * Each returns undefined when it could not shrink anything (the caller then tries the next one).
 */
import type { LlmError } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { ensureToolResultPairing } from "../results/pairing.ts";
import { headTail, isProtected } from "./blocks.ts";
import type { Budget } from "./budget.ts";
import { capMessages, emergencyTruncate, shrinkToBudget } from "./emergency.ts";
import { trimHistory } from "./trim.ts";
import { t } from "../../i18n/i18n.ts";

export const MAX_RECOVERY_ATTEMPTS = 3;
export const EMERGENCY_KEEP_MESSAGES = 10;
export const NUCLEAR_KEEP_MESSAGES = 4;
export const NUCLEAR_MESSAGE_CAP = 4_000;
export const RECOVERY_OUTPUT_THRESHOLD = 5_000;
export const ASSISTANT_CAP = 5_000;

export function isOverflowError(e: LlmError | undefined): boolean {
  return e?.kind === "context_too_long" || e?.kind === "payload_too_large";
}

export function giveUpMessage(e: LlmError, window: number): string {
  return t("core.giveUp", { window, attempts: MAX_RECOVERY_ATTEMPTS, message: e.message });
}

export interface RecoveryResult {
  messages: Message[];
  description: string;
  /** For the one-line report: messages dropped / shortened (0s left out). */
  counts: { dropped?: number; shortened?: number };
}

export function recoverFromOverflow(history: Message[], attempt: number, budget: Budget, archive?: (m: Message[]) => string | undefined): RecoveryResult | undefined {
  let msgs = ensureToolResultPairing(history).messages;
  let description: string;
  let counts: RecoveryResult["counts"] = {};
  if (attempt <= 1) {
    msgs = trimHistory(msgs, { keepRecent: 0, all: true, outputThreshold: RECOVERY_OUTPUT_THRESHOLD }).messages;
    msgs = msgs.map((m) =>
      m.role === "assistant" && !isProtected(m) && m.content.length > ASSISTANT_CAP
        ? { ...m, content: headTail(m.content, Math.floor((ASSISTANT_CAP * 3) / 4), ASSISTANT_CAP - Math.floor((ASSISTANT_CAP * 3) / 4) - 50, () => "\n... [truncated] ...\n") }
        : m,
    );
    msgs = shrinkToBudget(msgs, Math.floor(budget.historyBudget / 2)).messages;
    const shortened = msgs.filter((m, i) => m !== history[i]).length;
    if (shortened) counts = { shortened };
    description = "halved budgets: long outputs and answers shortened";
  } else if (attempt === 2) {
    const r = emergencyTruncate(msgs, EMERGENCY_KEEP_MESSAGES, archive);
    msgs = r.messages;
    if (r.dropped) counts = { dropped: r.dropped };
    description = `emergency truncation: ${r.dropped} old messages dropped, the last ${EMERGENCY_KEEP_MESSAGES} kept`;
  } else {
    const r = emergencyTruncate(msgs, NUCLEAR_KEEP_MESSAGES, archive);
    const c = capMessages(r.messages, NUCLEAR_MESSAGE_CAP);
    msgs = c.messages;
    counts = { ...(r.dropped ? { dropped: r.dropped } : {}), ...(c.capped ? { shortened: c.capped } : {}) };
    description = `emergency truncation: ${r.dropped} old messages dropped, the last ${NUCLEAR_KEEP_MESSAGES} kept, ${c.capped} capped at ${NUCLEAR_MESSAGE_CAP} chars`;
  }
  msgs = ensureToolResultPairing(msgs).messages;
  if (sameMessages(msgs, history)) return undefined;
  return { messages: msgs, description, counts };
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}
