/**
 * Level 1: trim without a model call. Near-lossless: only material the model no longer needs verbatim goes.
 * - injected context: earlier copies of the same context become a stub; any copy over 3,000 chars keeps its
 *   first 3 lines and 2,000 chars;
 * - old assistant messages: `<reasoning>`, `<think>`, `<thinking>`, `<explanation>` blocks and the separate
 *   thinking text are removed; verbose XML tool calls become `[tool: name args]`;
 * - identical consecutive messages (notices, repeated answers) are kept once;
 * - old tool outputs over 3,000 chars keep their head and tail.
 * Never touched: system messages, summaries, the user's own messages, messages marked verbatim.
 * "Old" means before the last `keepRecent` messages (snapped to a tool-block boundary).
 */
import { safeHead } from "../../util/text.ts";
import type { AssistantMessage, Message } from "../../protocol/message.ts";
import { withShrunkCallArgs } from "./call-args.ts";
import { headTail, isInjectedContext, isProtected, isToolFeedback, recentStart } from "./blocks.ts";

export const CONTEXT_TRIM_THRESHOLD = 3_000;
export const CONTEXT_KEEP_CHARS = 2_000;
export const OLD_OUTPUT_THRESHOLD = 3_000;
export const OLD_OUTPUT_HEAD = 2_000;
export const OLD_OUTPUT_TAIL = 500;

export interface TrimOptions {
  keepRecent: number;
  /** Overflow recovery: treat every message as old. */
  all?: boolean;
  /** Overrides OLD_OUTPUT_THRESHOLD (recovery halves it). */
  outputThreshold?: number;
}

export interface TrimReport {
  contextTrimmed: number;
  reasoningStripped: number;
  toolCallsCompacted: number;
  duplicatesRemoved: number;
  outputsShortened: number;
}

export function trimHistory(history: Message[], opts: TrimOptions): { messages: Message[]; report: TrimReport } {
  const report: TrimReport = { contextTrimmed: 0, reasoningStripped: 0, toolCallsCompacted: 0, duplicatesRemoved: 0, outputsShortened: 0 };
  const oldEnd = opts.all ? history.length : recentStart(history, opts.keepRecent);
  const threshold = opts.outputThreshold ?? OLD_OUTPUT_THRESHOLD;
  const laterContexts = new Set<string>();
  const out: Message[] = new Array(history.length);
  let changed = false;
  // Backwards, so an injected context knows whether a later identical copy exists.
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    let next = m;
    if (isInjectedContext(m) && !m.meta?.verbatim) {
      if (laterContexts.has(m.content)) {
        next = { ...m, content: "[injected context omitted during compaction: an identical copy appears later in the conversation]" };
        report.contextTrimmed++;
      } else {
        laterContexts.add(m.content);
        if (m.content.length > CONTEXT_TRIM_THRESHOLD) {
          next = { ...m, content: trimContext(m.content) };
          report.contextTrimmed++;
        }
      }
    } else if (i < oldEnd && !isProtected(m)) {
      if (m.role === "assistant") next = trimAssistant(m, report);
      else if ((m.role === "tool" || isToolFeedback(m)) && m.content.length > threshold) {
        const saved = m.meta?.savedPath ? ` Full output saved at ${m.meta.savedPath}.` : "";
        const content = headTail(m.content, OLD_OUTPUT_HEAD, OLD_OUTPUT_TAIL, (n) => `\n\n... [${n} chars of old tool output omitted during compaction.${saved}] ...\n\n`);
        next = { ...m, content, meta: { ...m.meta, originalChars: m.meta?.originalChars ?? m.content.length } };
        report.outputsShortened++;
      }
    }
    if (next !== m) changed = true;
    out[i] = next;
  }
  const deduped = dedupeConsecutive(out, report);
  if (deduped !== out) changed = true;
  return { messages: changed ? deduped : history, report };
}

export function trimReportTotal(r: TrimReport): number {
  return r.contextTrimmed + r.reasoningStripped + r.toolCallsCompacted + r.duplicatesRemoved + r.outputsShortened;
}

export function describeTrimReport(r: TrimReport): string {
  const parts: string[] = [];
  if (r.reasoningStripped) parts.push(`${r.reasoningStripped} reasoning block(s) stripped`);
  if (r.toolCallsCompacted) parts.push(`${r.toolCallsCompacted} tool call(s) compacted`);
  if (r.outputsShortened) parts.push(`${r.outputsShortened} old output(s) shortened`);
  if (r.contextTrimmed) parts.push(`${r.contextTrimmed} injected context(s) trimmed`);
  if (r.duplicatesRemoved) parts.push(`${r.duplicatesRemoved} duplicate(s) removed`);
  return parts.join(", ");
}

function trimContext(content: string): string {
  const lines = content.split("\n");
  const header = lines.slice(0, 3).join("\n");
  const body = lines.slice(3).join("\n");
  const kept = headTail(body, CONTEXT_KEEP_CHARS, 0, () => "");
  const omitted = body.length - kept.length;
  return omitted > 0 ? `${header}\n${kept}\n\n... [${omitted} chars of context omitted during compaction] ...` : content;
}

const REASONING = /<(reasoning|think|thinking|explanation)>[\s\S]*?<\/\1>/g;
// `<tool_call name="x" args='{…}' />` (also the `<tool …/>` alias, either quote style).
const XML_CALL = /<tool(?:_call)?\s+name\s*=\s*(["'])([^"']*)\1([\s\S]*?)\/>/g;

function trimAssistant(original: AssistantMessage, report: TrimReport): AssistantMessage {
  // An old native call's long arguments (a big `write`) have done their work: shortened like an old output.
  const m = withShrunkCallArgs(original, OLD_OUTPUT_HEAD + OLD_OUTPUT_TAIL);
  if (m !== original) report.toolCallsCompacted++;
  const noReasoning = m.content.replace(REASONING, "");
  const hadReasoning = noReasoning !== m.content || m.thinking !== undefined;
  let calls = 0;
  let content = noReasoning.replace(XML_CALL, (whole: string, _q: string, name: string, rest: string) => {
    if (whole.length <= 120) return whole;
    calls++;
    return `[tool: ${name} ${oneLineArgs(rest)}]`;
  });
  if (!hadReasoning && calls === 0) return m; // not worth a rewrite for whitespace alone
  if (hadReasoning) report.reasoningStripped++;
  report.toolCallsCompacted += calls;
  content = content.replace(/\n{3,}/g, "\n\n").trim();
  const { thinking: _t, ...rest } = m;
  return { ...rest, content: content || (m.toolCalls?.length ? "" : "[reasoning omitted during compaction]") };
}

/** The most telling argument (command, path, pattern) or the first 60 characters. */
function oneLineArgs(rest: string): string {
  const args = /args\s*=\s*(["'])([\s\S]*)\1/.exec(rest)?.[2] ?? rest;
  try {
    const v = JSON.parse(args) as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of ["cmd", "command", "path", "file", "pattern", "query"]) {
      const x = v[k];
      if (typeof x === "string") parts.push(k === "pattern" || k === "query" ? `${k}="${safeHead(x, 40)}"` : safeHead(x, 80));
    }
    if (parts.length) return parts.join(" ");
  } catch {
    // not JSON: fall through to the raw prefix
  }
  const flat = args.replace(/\s+/g, " ").trim();
  return flat.length > 60 ? `${safeHead(flat, 60)}…` : flat;
}

function dedupeConsecutive(history: Message[], report: TrimReport): Message[] {
  let out: Message[] | undefined;
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    const prev = history[i - 1];
    const dup =
      prev !== undefined &&
      !isProtected(m) &&
      m.role !== "tool" &&
      prev.role === m.role &&
      prev.content === m.content &&
      !(m.role === "assistant" && m.toolCalls?.length) &&
      !(prev.role === "assistant" && prev.toolCalls?.length) &&
      !isToolFeedback(m);
    if (dup) {
      out ??= history.slice(0, i);
      report.duplicatesRemoved++;
      continue;
    }
    out?.push(m);
  }
  return out ?? history;
}
