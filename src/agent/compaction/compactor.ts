/**
 * The history compactor: trim (no model call) → structured summary (model) → shrink and drop (no model call).
 * Whatever it is given, it ends with the history under the budget's target (so the whole request under the
 * window): when the summary cannot run or is not enough, the biggest messages are shortened and older messages
 * dropped, keeping fewer recent ones until it fits (the user's requests stay quoted in a note).
 * One compaction = one `compaction` event (its highest level, counts, and the details in `summary`), sent only
 * when the history changed; the details also go to `deps.log`. Pairing repair runs after every level.
 * Token figures are whole-request estimates (history + overhead).
 * Contract: never throws; a cancelled compaction returns the history it was given and says so.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import { ensureToolResultPairing } from "../results/pairing.ts";
import { KEEP_RECENT, formatTokens, type Budget } from "./budget.ts";
import { emergencyTruncate, shrinkToBudget } from "./emergency.ts";
import { CompactionCancelled, structuredSummarize, type Summarizer } from "./summarize.ts";
import { estimateTokens } from "./tokens.ts";
import { describeTrimReport, trimHistory, trimReportTotal } from "./trim.ts";
import { recentStart } from "./blocks.ts";
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
  /** `/compact`: summarize even when trimming alone would fit (a lone huge message is summarized too). */
  manual?: boolean;
  keepRecent?: number;
  /** Window of the summarizing model (defaults to the budget's). */
  summarizerWindow?: number;
}

export interface CompactDeps {
  /** Absent: no summary level (trim, then shrink and drop). */
  summarize?: Summarizer;
  archive?: (messages: Message[]) => string | undefined;
  timeoutMs?: number;
  /** The details of each compaction, for the log file (never shown on screen). */
  log?: (line: string) => void;
}

export interface CompactOutcome {
  messages: Message[];
  /** Highest level that changed the history (0: nothing changed). */
  level: 0 | 1 | 2 | 3;
  cancelled?: boolean;
  /** Why a requested compaction did not happen. */
  error?: string;
}

/** Share of the target the kept recent messages may take when a summary is written (the rest is for it). */
const RECENT_SHARE = 0.5;

export async function compactHistory(req: CompactRequest, deps: CompactDeps): Promise<CompactOutcome> {
  const original = req.history;
  const keepRecent = req.keepRecent ?? KEEP_RECENT;
  // Trim and summary aim for the target (well below the trigger); a summary that lands between the target
  // and the trigger budget is kept — shrinking and dropping are only for histories still over the trigger.
  const target = req.budget.historyTarget;
  const tokens = (m: readonly Message[]) => estimateTokens(m) + req.overheadTokens;
  const fits = (m: readonly Message[]) => estimateTokens(m) <= target;
  const underTrigger = (m: readonly Message[]) => estimateTokens(m) <= req.budget.historyBudget;
  const details: string[] = [];
  const counts = { summarized: 0, dropped: 0, shortened: 0 };
  let summaryError: string | undefined;
  let skipped: string | undefined;
  let level: CompactOutcome["level"] = 0;
  const log = (line: string) => deps.log?.(`compaction: ${line}`);
  const done = (msgs: Message[]): CompactOutcome => {
    if (msgs === original) return { messages: original, level: 0 };
    const summary = details.join("; ");
    req.emit({
      type: "compaction",
      level,
      messagesBefore: original.length,
      messagesAfter: msgs.length,
      tokensBefore: tokens(original),
      tokensAfter: tokens(msgs),
      summary,
      trigger: req.manual ? "manual" : "auto",
      ...(counts.summarized ? { summarized: counts.summarized } : {}),
      ...(counts.dropped ? { dropped: counts.dropped } : {}),
      ...(counts.shortened ? { shortened: counts.shortened } : {}),
      ...(summaryError ? { summaryError } : {}),
    });
    log(`${original.length} → ${msgs.length} messages, ${formatTokens(tokens(original))} → ${formatTokens(tokens(msgs))} tokens (target ${formatTokens(target + req.overheadTokens)} of ${formatTokens(req.budget.contextWindow)}): ${summary}`);
    if (!underTrigger(msgs)) req.emit({ type: "notice", level: "warn", text: t("core.overBudget", { tokens: formatTokens(tokens(msgs)) }) });
    return { messages: msgs, level };
  };

  // Level 1: trim.
  let msgs = original;
  const trimmed = trimHistory(msgs, { keepRecent });
  const t1 = ensureToolResultPairing(trimmed.messages).messages;
  if (t1 !== msgs) {
    details.push(`trim: ${describeTrimReport(trimmed.report) || "pairing repaired"}`);
    counts.shortened += trimReportTotal(trimmed.report) - trimmed.report.duplicatesRemoved;
    msgs = t1;
    level = 1;
  }
  if (fits(msgs) && !req.manual) return done(msgs);

  // Level 2: structured summary of all but the recent messages (fewer of them when they alone are too big).
  if (deps.summarize) {
    if (req.manual) req.emit({ type: "notice", level: "info", text: t("core.summarizing") });
    try {
      const r = await structuredSummarize(msgs, {
        keepRecent: recentToKeep(msgs, keepRecent, Math.floor(target * RECENT_SHARE)),
        summarize: deps.summarize,
        signal: req.signal,
        contextWindow: req.summarizerWindow ?? req.budget.contextWindow,
        ...(req.manual ? { minMiddle: 1 } : {}),
        ...(req.instruction ? { instruction: req.instruction } : {}),
        ...(deps.archive ? { archive: deps.archive } : {}),
        ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
        onProgress: log,
      });
      // Too little before the kept messages is not a failure: the shortening below does the work.
      if ("skipped" in r) {
        skipped = r.skipped;
        details.push(`no summary (${r.skipped})`);
      }
      else {
        msgs = ensureToolResultPairing(r.messages).messages;
        details.push(`summary of ${r.summarized} messages${r.archivePath ? `; originals saved in ${r.archivePath}` : ""}`);
        counts.summarized = r.summarized;
        level = 2;
      }
    } catch (err) {
      if (err instanceof CompactionCancelled) {
        req.emit({ type: "notice", level: "warn", text: t("core.compactCancelled") });
        return { messages: original, level: 0, cancelled: true, error: "cancelled" };
      }
      summaryError = (err as Error)?.message ?? String(err);
    }
  } else summaryError = t("core.noSummarizer");
  if (summaryError) {
    details.push(`no summary (${summaryError})`);
    log(`summary not written: ${summaryError}`);
  }

  if (req.manual && level < 2 && fits(original)) {
    // Asked for a summary that could not be written, and the history already fits: leave it as it was.
    const why = t("core.compactionFailedManual", { error: summaryError ?? t("core.nothingToSummarize", { reason: skipped ?? "" }) });
    req.emit({ type: "notice", level: "warn", text: why });
    return { messages: original, level: 0, error: why };
  }
  if (fits(msgs) || (!req.manual && level === 2 && underTrigger(msgs))) return done(msgs);

  // Level 3: shorten the biggest messages (not the user's own), then drop older ones, keeping fewer each round.
  const before = msgs;
  const shrunk = shrinkToBudget(msgs, target, { protectedToo: false });
  msgs = shrunk.messages;
  counts.shortened += shrunk.shrunk;
  if (!fits(msgs)) {
    let keep = Math.max(1, Math.min(keepRecent, msgs.length));
    while (keep > 1 && !fits(shrinkToBudget(emergencyTruncate(msgs, keep).messages, target).messages)) keep--;
    const e = emergencyTruncate(msgs, keep, deps.archive);
    const s = shrinkToBudget(e.messages, target);
    msgs = s.messages;
    counts.dropped += e.dropped;
    counts.shortened += s.shrunk;
  }
  if (msgs !== before) {
    details.push(`shortened ${counts.shortened} message(s), dropped ${counts.dropped}`);
    level = 3;
  }
  return done(msgs);
}

/**
 * How many recent messages a summary keeps verbatim: `keep`, or fewer when those alone take more than
 * `maxTokens` (a huge last answer or paste); never fewer than one.
 */
function recentToKeep(history: readonly Message[], keep: number, maxTokens: number): number {
  let k = Math.max(1, keep);
  while (k > 1 && estimateTokens(history.slice(recentStart(history, k))) > maxTokens) k--;
  return k;
}
