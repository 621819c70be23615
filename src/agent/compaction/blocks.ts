/**
 * What compaction may touch and where it may cut. A "tool block" is an assistant message with tool calls plus
 * the tool results that follow it (native), or the assistant message plus the feedback user message that
 * follows it (text protocol); a cut never falls inside one.
 */
import type { Message } from "../../protocol/message.ts";
import { headAtBoundary, tailAtBoundary } from "../../util/text.ts";

const INJECTED_CONTEXT = [/^\[MEMORY CONTEXT — loaded from \d{4}-\d{2}-\d{2}\]/, /^📦 CONTEX?TO?:/m];

export function isSummary(m: Message): boolean {
  return m.meta?.kind === "summary";
}

/** Context injected on the user's behalf (memory, attached files), not typed by them. */
export function isInjectedContext(m: Message): boolean {
  if (m.role !== "user") return false;
  if (m.meta?.kind === "context") return true;
  return !m.meta?.kind && INJECTED_CONTEXT.some((re) => re.test(m.content));
}

/** A message the user typed: never trimmed, and never dropped without being quoted. */
export function isUserInstruction(m: Message): boolean {
  return m.role === "user" && !m.meta?.kind && !isInjectedContext(m);
}

export function isToolFeedback(m: Message): boolean {
  return m.role === "user" && m.meta?.kind === "tool_feedback";
}

/** Never changed by any level (they may still be dropped whole by the emergency level, quoted). */
export function isProtected(m: Message): boolean {
  return m.role === "system" || isSummary(m) || m.meta?.verbatim === true || isUserInstruction(m);
}

/** Index of the first leading non-system message. */
export function systemPrefixEnd(history: readonly Message[]): number {
  let i = 0;
  while (i < history.length && history[i]!.role === "system") i++;
  return i;
}

/**
 * Moves a cut at `index` left until it does not split a tool block: off tool results onto their assistant
 * message, and off a text-protocol feedback message onto the assistant message it answers.
 */
export function snapToBlockStart(history: readonly Message[], index: number, floor = 0): number {
  let i = Math.max(floor, Math.min(index, history.length));
  while (i > floor && i < history.length && history[i]!.role === "tool") i--;
  if (i > floor && i < history.length && isToolFeedback(history[i]!) && history[i - 1]?.role === "assistant") i--;
  return i;
}

/** Start of the last `keep` messages, snapped to a block boundary, never inside the system prefix. */
export function recentStart(history: readonly Message[], keep: number): number {
  const sys = systemPrefixEnd(history);
  return snapToBlockStart(history, Math.max(sys, history.length - keep), sys);
}

/**
 * First `head` and last `tail` characters with a marker saying how much was left out: surrogate-safe, and cut
 * at a line end or between words whenever one is near (a person reads these in the transcript).
 */
export function headTail(text: string, head: number, tail: number, marker: (omitted: number) => string): string {
  if (text.length <= head + tail) return text;
  const h = headAtBoundary(text, head);
  const t = tail > 0 ? tailAtBoundary(text, tail) : "";
  return `${h}${marker(text.length - h.length - t.length)}${t}`;
}

/** A user instruction quoted for a summary or truncation notice: whole up to `max` characters, else head and tail. */
export function quoteInstruction(text: string, max = 1_500): string {
  const oneLine = text.trim();
  return headTail(oneLine, Math.floor(max * 0.7), Math.floor(max * 0.3), (n) => ` […${n} chars…] `);
}

/** The section of a summary (or truncation notice) that quotes the user's own messages, one JSON string a line. */
export const QUOTES_HEADING = "## The user's messages (quoted exactly, oldest first)";
export const QUOTES_END = "(end of quoted user messages)";

export function formatQuotes(quotes: readonly string[]): string {
  if (!quotes.length) return "";
  return [QUOTES_HEADING, ...quotes.map((q) => `- ${JSON.stringify(q)}`), QUOTES_END].join("\n");
}

/** The quotes an earlier summary carried, so a summary of a summary still has them. */
export function extractQuotes(content: string): string[] {
  const start = content.indexOf(QUOTES_HEADING);
  if (start < 0) return [];
  const end = content.indexOf(QUOTES_END, start);
  const body = content.slice(start + QUOTES_HEADING.length, end < 0 ? undefined : end);
  const out: string[] = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("- ")) continue;
    try {
      const v: unknown = JSON.parse(line.slice(2));
      if (typeof v === "string") out.push(v);
    } catch {
      // a line the model rewrote: not ours
    }
  }
  return out;
}

/**
 * The user's messages in `messages`, quoted (with the quotes earlier summaries carried), shortened so the
 * section stays under `maxChars`: the newest keep the most, every one keeps at least its start.
 */
export function collectQuotes(messages: readonly Message[], maxChars = 6_000): string[] {
  const quotes: string[] = [];
  for (const m of messages) {
    if (isSummary(m)) quotes.push(...extractQuotes(m.content));
    else if (isUserInstruction(m)) quotes.push(m.content.trim());
  }
  let per = 1_500;
  let shaped = quotes.map((q) => quoteInstruction(q, per));
  while (per > 120 && shaped.reduce((n, q) => n + q.length + 6, 0) > maxChars) {
    per = Math.floor(per / 2);
    // Older ones shrink first: the last three keep the larger allowance.
    shaped = quotes.map((q, i) => quoteInstruction(q, i >= quotes.length - 3 ? Math.max(per, 600) : per));
  }
  return shaped;
}
