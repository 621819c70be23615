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

  notice(`Compacting history (${original.length} msgs, ${formatTokens(tokens(original))} → target ${formatTokens(target + req.overheadTokens)} of ${formatTokens(req.budget.contextWindow)})`);
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
    notice(`Trim was enough (${formatTokens(tokens(original))} → ${formatTokens(tokens(msgs))})`);
    return { messages: msgs, level };
  }

  // Level 2: structured summary.
  let summaryError: string | undefined;
  if (deps.summarize) {
    notice("Summarizing old messages with the model (Esc cancels)…");
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
      if ("skipped" in r) summaryError = `nothing to summarize (${r.skipped})`;
      else {
        const s = ensureToolResultPairing(r.messages).messages;
        report(2, msgs, s, `summary of ${r.summarized} messages${r.archivePath ? `; originals saved in ${r.archivePath}` : ""}`);
        notice(`Summary applied (${msgs.length} → ${s.length} msgs, ${formatTokens(tokens(msgs))} → ${formatTokens(tokens(s))})`);
        msgs = s;
        level = 2;
      }
    } catch (err) {
      if (err instanceof CompactionCancelled) {
        notice("Compaction cancelled; the history is unchanged.", "warn");
        return { messages: original, level: 0, cancelled: true, error: "cancelled" };
      }
      summaryError = (err as Error)?.message ?? String(err);
    }
  } else summaryError = "no summarizer";

  if (req.manual) {
    if (level === 2) return { messages: msgs, level };
    const why = `Compaction failed (${summaryError}); the history is unchanged.`;
    notice(why, "warn");
    return { messages: original, level: 0, error: why };
  }
  if (fits(msgs) || (level === 2 && underTrigger(msgs))) return { messages: msgs, level };
  if (summaryError && deps.summarize) notice(`Summarization failed (${summaryError}) — falling back to truncation`, "warn");

  // Level 3: emergency.
  const before = msgs;
  const e = emergencyTruncate(msgs, keepRecent, deps.archive);
  msgs = e.messages;
  const shrunk = fits(msgs) ? { messages: msgs, shrunk: 0 } : shrinkToBudget(msgs, target);
  msgs = shrunk.messages;
  if (msgs !== before) {
    const what = [e.dropped ? `${e.dropped} old messages dropped (not summarized)` : "", shrunk.shrunk ? `${shrunk.shrunk} large messages shortened` : ""].filter(Boolean).join(", ");
    notice(`Emergency truncation: ${what} to fit the context window (${before.length} → ${msgs.length} msgs).`, "warn");
    report(3, before, msgs, `emergency: ${what}`);
    level = 3;
  }
  if (!underTrigger(msgs)) notice(`The history is still over its budget (${formatTokens(tokens(msgs))}); the next request may be rejected.`, "warn");
  return { messages: msgs, level };
}
