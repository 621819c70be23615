/**
 * Level 2: a structured summary written by the model. The system prefix and the last `keepRecent` messages
 * (snapped so no tool block is split) stay verbatim; the middle is rendered as text, cut into chunks that fit
 * the summarizer's window, and summarized chunk by chunk (each chunk gets the notes so far, so the last answer
 * covers everything). The result is one marked message (meta.kind "summary") that also quotes the user's own
 * messages exactly and says where the full original segment was saved.
 * Contract: never changes the history it was given; throws CompactionCancelled when the caller's signal
 * fires, and an Error (timeout, provider failure, empty answer) otherwise.
 */
import type { Message, UserMessage } from "../../protocol/message.ts";
import { collectQuotes, formatQuotes, headTail, isSummary, recentStart, systemPrefixEnd } from "./blocks.ts";
import { estimateTextTokens } from "./tokens.ts";

export const SUMMARY_TIMEOUT_MS = 10 * 60_000;
export const SUMMARY_MARKER = "[STRUCTURED SUMMARY — covering";
export const MIN_MIDDLE_MESSAGES = 4;
export const MIN_GUIDED_MIDDLE_MESSAGES = 2;

export class CompactionCancelled extends Error {
  constructor() {
    super("compaction cancelled");
    this.name = "CompactionCancelled";
  }
}

/** One summary call: the prompt as a single user message; resolves to the answer text or throws. */
export type Summarizer = (req: { prompt: string; maxOutputTokens: number; signal: AbortSignal }) => Promise<string>;

export interface SummarizeOptions {
  keepRecent: number;
  summarize: Summarizer;
  signal: AbortSignal;
  /** Window of the summarizing model: bounds each chunk. */
  contextWindow: number;
  /** `/compact <instruction>`: what the summary must keep. */
  instruction?: string;
  /** Saves the original segment; returns its path, or undefined when it could not be saved. */
  archive?: (messages: Message[]) => string | undefined;
  onProgress?: (text: string) => void;
  timeoutMs?: number;
  /** Fewest older messages worth a summary (default MIN_MIDDLE_MESSAGES, MIN_GUIDED_MIDDLE_MESSAGES with an instruction). */
  minMiddle?: number;
}

export type SummarizeResult = { messages: Message[]; summarized: number; archivePath?: string } | { skipped: string };

export const STRUCTURED_SUMMARY_PROMPT = `You are a precise technical note-taker. Extract ONLY factual information from the conversation segment below, for an AI coding agent that will continue the work without seeing the original.

OUTPUT FORMAT (use exactly this structure, omit empty sections):

## Files Read
- <path> (<line count> lines) - <what it contains that matters>

## Files Modified
- <path>:<lines> - <what changed and why>

## Commands Executed
- <command> → <outcome: exit code, key output line>

## Key Decisions
- <decision and its reason>

## Errors & Resolutions
- <exact first line of the error> → <how it was resolved, or "unresolved">

## Current Task State
- Done: <what is finished>
- Pending: <what remains, in order>

RULES:
- Use exact file paths and line numbers; quote the exact first line of each error.
- Reference code by file:line; do not paraphrase or reproduce code.
- Include nothing that is not in the conversation.
- A file both read and modified appears in both sections.
- One line per bullet. Omit empty sections. No code blocks, no XML.`;

export function summaryPrompt(segment: string, notesSoFar: string | undefined, instruction: string | undefined): string {
  const parts = [STRUCTURED_SUMMARY_PROMPT];
  if (instruction) {
    parts.push(
      `USER INSTRUCTION: ${instruction}\nFollow the user's instruction about what to preserve. Everything the user says to keep MUST appear in your output.`,
    );
  }
  if (notesSoFar) parts.push(`NOTES SO FAR (from the earlier part of the same conversation; merge them into your output, keep every fact):\n\n${notesSoFar}`);
  parts.push(`CONVERSATION SEGMENT TO EXTRACT FROM:\n\n${segment}`);
  return parts.join("\n\n");
}

/** One message as summarizer input; long content keeps its head and tail. */
export function renderForSummary(m: Message): string {
  const content = headTail(m.content, 1_500, 300, () => "\n... [truncated for summarization] ...\n");
  switch (m.role) {
    case "assistant": {
      const calls = (m.toolCalls ?? []).map((c) => `\n[assistant called ${c.name}(${headTail(c.arguments, 240, 60, () => "…")})]`).join("");
      return `[assistant]: ${content}${calls}`;
    }
    case "tool":
      return `[tool result: ${m.name}${m.isError ? ", error" : ""}]: ${content}`;
    case "user":
      return isSummary(m) ? `[earlier summary]: ${m.content}` : `[${m.meta?.kind === "tool_feedback" ? "tool results" : "user"}]: ${content}`;
    case "system":
      return `[system]: ${content}`;
  }
}

/** Splits rendered messages into chunks of at most `budgetTokens` (a single oversized message is cut). */
export function chunkSegment(rendered: readonly string[], budgetTokens: number): string[] {
  const chunks: string[] = [];
  let cur: string[] = [];
  let tokens = 0;
  for (const r0 of rendered) {
    const r = estimateTextTokens(r0) > budgetTokens ? headTail(r0, budgetTokens * 3, budgetTokens, () => "\n... [truncated for summarization] ...\n") : r0;
    const t = estimateTextTokens(r) + 1;
    if (cur.length && tokens + t > budgetTokens) {
      chunks.push(cur.join("\n\n"));
      cur = [];
      tokens = 0;
    }
    cur.push(r);
    tokens += t;
  }
  if (cur.length) chunks.push(cur.join("\n\n"));
  return chunks;
}

/** Output limit of one summary call and the input budget of one chunk, for a window. */
export function summaryLimits(contextWindow: number): { maxOutputTokens: number; chunkTokens: number } {
  const maxOutputTokens = Math.max(256, Math.min(2_048, Math.floor(contextWindow * 0.15)));
  const promptTokens = estimateTextTokens(STRUCTURED_SUMMARY_PROMPT) + 200;
  // The notes so far can be as long as one answer; the answer itself needs room too.
  const chunkTokens = Math.max(400, Math.floor(contextWindow * 0.7) - promptTokens - 2 * maxOutputTokens);
  return { maxOutputTokens, chunkTokens };
}

export async function structuredSummarize(history: Message[], opts: SummarizeOptions): Promise<SummarizeResult> {
  const sysEnd = systemPrefixEnd(history);
  const cut = recentStart(history, opts.keepRecent);
  const middle = history.slice(sysEnd, cut);
  const min = opts.minMiddle ?? (opts.instruction ? MIN_GUIDED_MIDDLE_MESSAGES : MIN_MIDDLE_MESSAGES);
  if (cut <= sysEnd || middle.length < min) return { skipped: `only ${middle.length} message(s) before the last ${opts.keepRecent}` };
  if (opts.signal.aborted) throw new CompactionCancelled();

  const { maxOutputTokens, chunkTokens } = summaryLimits(opts.contextWindow);
  const chunks = chunkSegment(middle.map(renderForSummary), chunkTokens);
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? SUMMARY_TIMEOUT_MS);
  const signal = AbortSignal.any([opts.signal, timeout]);
  let notes: string | undefined;
  for (let i = 0; i < chunks.length; i++) {
    opts.onProgress?.(chunks.length > 1 ? `Summarizing part ${i + 1} of ${chunks.length}…` : `Summarizing ${middle.length} older messages…`);
    let answer: string;
    try {
      answer = await opts.summarize({ prompt: summaryPrompt(chunks[i]!, notes, opts.instruction), maxOutputTokens, signal });
    } catch (err) {
      if (opts.signal.aborted) throw new CompactionCancelled();
      if (timeout.aborted) throw new Error(`the summary did not finish within ${Math.round((opts.timeoutMs ?? SUMMARY_TIMEOUT_MS) / 60_000)} min`);
      throw err;
    }
    if (opts.signal.aborted) throw new CompactionCancelled();
    const clean = answer.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/g, "").trim();
    if (!clean) throw new Error("the model returned an empty summary");
    notes = clean;
  }
  const archivePath = opts.archive?.(middle);
  const summary = summaryMessage(middle, notes ?? "", archivePath, opts.instruction);
  const messages = [...history.slice(0, sysEnd), summary, ...history.slice(cut)];
  return archivePath ? { messages, summarized: middle.length, archivePath } : { messages, summarized: middle.length };
}

export function summaryMessage(middle: readonly Message[], notes: string, archivePath: string | undefined, instruction?: string): UserMessage {
  const head = instruction
    ? `${SUMMARY_MARKER} ${middle.length} earlier messages, per the user's instruction: ${JSON.stringify(instruction)}]`
    : `${SUMMARY_MARKER} ${middle.length} earlier messages]`;
  const parts = [head, notes];
  const quotes = formatQuotes(collectQuotes(middle));
  if (quotes) parts.push(quotes);
  if (archivePath) {
    parts.push(`The full original ${middle.length} messages are saved in ${archivePath} (JSON Lines, one message per line); read that file with the read tool when you need exact details.`);
  }
  return { role: "user", content: parts.join("\n\n"), meta: { kind: "summary" } };
}
