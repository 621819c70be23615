/** Checkpoint labels: the last real user message (never tool feedback or summaries), one line, cut by graphemes. */
import type { Message, UserMessage } from "../../protocol/message.ts";

export const LABEL_MAX = 60;
export const START_LABEL = "(start)";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Index of the last user message a person typed (text-protocol tool feedback, summaries, notices excluded). */
export function lastUserIndex(history: readonly Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === "user" && m.meta?.kind === undefined) return i;
  }
  return -1;
}

export function lastUserMessage(history: readonly Message[]): UserMessage | undefined {
  const i = lastUserIndex(history);
  const m = i >= 0 ? history[i] : undefined;
  return m?.role === "user" ? m : undefined;
}

/** One line of at most `max` user-perceived characters; a longer text ends in "…" (never half an emoji). */
export function cutLabel(text: string, max = LABEL_MAX): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (!line) return START_LABEL;
  if (line.length <= max) return line; // UTF-16 length ≥ grapheme count: surely fits
  const parts: string[] = [];
  for (const s of segmenter.segment(line)) {
    parts.push(s.segment);
    if (parts.length > max) break;
  }
  if (parts.length <= max) return line;
  return `${parts.slice(0, max - 1).join("").trimEnd()}…`;
}

export function checkpointLabel(history: readonly Message[]): string {
  const m = lastUserMessage(history);
  return m ? cutLabel(m.content) : START_LABEL;
}
