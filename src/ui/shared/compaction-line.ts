/**
 * The one line a person sees per compaction (TUI, plain and headless text): what happened in plain words and
 * the token figures in the status line's format. The levels, the archive path and why a summary failed stay
 * in the event's `summary` (stream-json) and in the log.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { formatTokens } from "../../llm/usage.ts";
import { t } from "../../i18n/i18n.ts";

export function compactionLine(e: Extract<AgentEvent, { type: "compaction" }>): string {
  const what: string[] = [];
  if (e.summarized) what.push(e.summarized === 1 ? t("compaction.summarizedOne") : t("compaction.summarized", { count: e.summarized }));
  if (e.dropped) what.push(e.dropped === 1 ? t("compaction.droppedOne") : t("compaction.dropped", { count: e.dropped }));
  if (e.shortened) what.push(e.shortened === 1 ? t("compaction.shortenedOne") : t("compaction.shortened", { count: e.shortened }));
  if (!what.length) what.push(t("compaction.trimmed"));
  // The user asked for a summary: say why there is none. Automatic compaction keeps that for the log.
  if (e.trigger === "manual" && e.summaryError && !e.summarized) what.push(t("compaction.noSummary", { error: e.summaryError }));
  const params = { before: formatTokens(e.tokensBefore), after: formatTokens(e.tokensAfter), what: what.join(", ") };
  return e.trigger === "overflow" ? t("compaction.lineOverflow", params) : t("compaction.line", params);
}
