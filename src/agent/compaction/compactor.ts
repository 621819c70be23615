/**
 * The 3-level history compactor: trim (no model call) → structured summary (model) → emergency truncation.
 * Each level that changes something emits a `compaction` event {level, messages and tokens before/after};
 * pairing repair runs after every level. Token figures are whole-request estimates (history + overhead).
 * Contract: never throws; a cancelled or failed compaction returns the history it was given and says why.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import { ensureToolResultPairing } from "../results/pairing.ts";
import { KEEP_RECENT, formatTokens, type Budget } from "./budget.ts";
import { emergencyTruncate, shrinkToBudget } from "./emergency.ts";
import { CompactionCancelled, structuredSummarize, type Summarizer } from "./summarize.ts";
import { estimateTokens } from "./tokens.ts";
import { describeTrimReport, trimHistory } from "./trim.ts";
import { t } from "../../i18n/i18n.ts";

export interface CompactRequest {
  history: Message[];
  budget: Budget;
  /** System prompt + tool definitions + reminder, in tokens (added to every token figure reported). */
  overheadTokens: number;
  signal: AbortSignal;
  emit(e: AgentEvent): void;
  /** `/compact <instruction>`: the summarizer is told what must be kept. */
  instruction?: string;
  /** `/compact`: summarize even when trimming alone would fit; never fall back to dropping messages. */
  manual?: boolean;
  keepRecent?: number;
  /** Window of the summarizing model (defaults to the budget's). */
  summarizerWindow?: number;
}

export interface CompactDeps {
  /** Absent: no summary level (trim, then emergency). */
  summarize?: Summarizer;
  archive?: (messages: Message[]) => string | undefined;
  timeoutMs?: number;
}

export interface CompactOutcome {
  messages: Message[];
  /** Highest level that changed the history (0: nothing changed). */
  level: 0 | 1 | 2 | 3;
  cancelled?: boolean;
  /** Why a requested compaction did not happen or failed. */
  error?: string;
}

export async function compactHistory(req: CompactRequest, deps: CompactDeps): Promise<CompactOutcome> {
  const original = req.history;
  const keepRecent = req.keepRecent ?? KEEP_RECENT;
  // Trim and summary aim for the target (well below the trigger); a summary that lands between the target
  // and the trigger budget is kept — dropping messages is only for histories still over the trigger.
  const target = req.budget.historyTarget;
  const tokens = (m: readonly Message[]) => estimateTokens(m) + req.overheadTokens;
  const fits = (m: readonly Message[]) => estimateTokens(m) <= target;
  const underTrigger = (m: readonly Message[]) => estimateTokens(m) <= req.budget.historyBudget;
  const notice = (text: string, level: "info" | "warn" | "error" = "info") => req.emit({ type: "notice", level, text });
  const report = (level: number, before: Message[], after: Message[], summary: string) =>
    req.emit({ type: "compaction", level, messagesBefore: before.length, messagesAfter: after.length, tokensBefore: tokens(before), tokensAfter: tokens(after), summary });

  notice(t("core.compacting", { count: original.length, tokens: formatTokens(tokens(original)), target: formatTokens(target + req.overheadTokens), window: formatTokens(req.budget.contextWindow) }));
  let level: CompactOutcome["level"] = 0;

  // Level 1: trim.
  let msgs = original;
  const trimmed = trimHistory(msgs, { keepRecent });
  const t1 = ensureToolResultPairing(trimmed.messages).messages;
  if (t1 !== msgs) {
    report(1, msgs, t1, `trim: ${describeTrimReport(trimmed.report) || "pairing repaired"}`);
    msgs = t1;
    level = 1;
  }
  if (fits(msgs) && !req.manual) {
    notice(t("core.trimEnough", { before: formatTokens(tokens(original)), after: formatTokens(tokens(msgs)) }));
    return { messages: msgs, level };
  }

  // Level 2: structured summary.
  let summaryError: string | undefined;
  if (deps.summarize) {
    notice(t("core.summarizing"));
    try {
      const r = await structuredSummarize(msgs, {
        keepRecent,
        summarize: deps.summarize,
        signal: req.signal,
        contextWindow: req.summarizerWindow ?? req.budget.contextWindow,
        ...(req.instruction ? { instruction: req.instruction } : {}),
        ...(deps.archive ? { archive: deps.archive } : {}),
        ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
        onProgress: (text) => notice(text),
      });
      if ("skipped" in r) summaryError = t("core.nothingToSummarize", { reason: r.skipped });
      else {
        const s = ensureToolResultPairing(r.messages).messages;
        report(2, msgs, s, `summary of ${r.summarized} messages${r.archivePath ? `; originals saved in ${r.archivePath}` : ""}`);
        notice(t("core.summaryApplied", { before: msgs.length, after: s.length, tokensBefore: formatTokens(tokens(msgs)), tokensAfter: formatTokens(tokens(s)) }));
        msgs = s;
        level = 2;
      }
    } catch (err) {
      if (err instanceof CompactionCancelled) {
        notice(t("core.compactCancelled"), "warn");
        return { messages: original, level: 0, cancelled: true, error: "cancelled" };
      }
      summaryError = (err as Error)?.message ?? String(err);
    }
  } else summaryError = t("core.noSummarizer");

  if (req.manual) {
    if (level === 2) return { messages: msgs, level };
    const why = t("core.compactionFailedManual", { error: summaryError ?? "" });
    notice(why, "warn");
    return { messages: original, level: 0, error: why };
  }
  if (fits(msgs) || (level === 2 && underTrigger(msgs))) return { messages: msgs, level };
  if (summaryError && deps.summarize) notice(t("core.summaryFailed", { error: summaryError }), "warn");

  // Level 3: emergency.
  const before = msgs;
  const e = emergencyTruncate(msgs, keepRecent, deps.archive);
  msgs = e.messages;
  const shrunk = fits(msgs) ? { messages: msgs, shrunk: 0 } : shrinkToBudget(msgs, target);
  msgs = shrunk.messages;
  if (msgs !== before) {
    const what = [e.dropped ? t("core.emergencyDropped", { count: e.dropped }) : "", shrunk.shrunk ? t("core.emergencyShortened", { count: shrunk.shrunk }) : ""].filter(Boolean).join(", ");
    notice(t("core.emergency", { what, before: before.length, after: msgs.length }), "warn");
    report(3, before, msgs, `emergency: ${what}`);
    level = 3;
  }
  if (!underTrigger(msgs)) notice(t("core.overBudget", { tokens: formatTokens(tokens(msgs)) }), "warn");
  return { messages: msgs, level };
}
