/**
 * Level 3: emergency truncation, no model call. Drops the oldest middle messages (system messages and earlier
 * summaries stay, as do the last `keep` messages, snapped so no tool block is split), puts a marked notice in
 * their place that says plainly they were removed — not summarized — and quotes the user's own messages that
 * went with them, so no instruction is lost. Then, if still over, shrinks the largest remaining messages.
 * Pairing repair runs on every output.
 */
import type { Message, UserMessage } from "../../protocol/message.ts";
import { ensureToolResultPairing } from "../results/pairing.ts";
import { collectQuotes, formatQuotes, headTail, isProtected, isSummary, snapToBlockStart, systemPrefixEnd } from "./blocks.ts";
import { callArgsChars, withShrunkCallArgs } from "./call-args.ts";
import { estimateMessageTokens, estimateTokens } from "./tokens.ts";

export const SHRINK_FLOOR_CHARS = 400;
/** Characters per token assumed when turning a token deficit into characters to cut. */
const CHARS_PER_TOKEN = 4;

export interface EmergencyResult {
  messages: Message[];
  dropped: number;
}

/** `archive` saves the dropped messages and returns where (or undefined). */
export function emergencyTruncate(history: Message[], keep: number, archive?: (dropped: Message[]) => string | undefined): EmergencyResult {
  const sysEnd = systemPrefixEnd(history);
  const tailStart = snapToBlockStart(history, Math.max(sysEnd, history.length - Math.max(1, keep)), sysEnd);
  if (tailStart <= sysEnd) return { messages: history, dropped: 0 };
  const middle = history.slice(sysEnd, tailStart);
  const kept = middle.filter((m) => m.role === "system" || isSummary(m));
  const dropped = middle.filter((m) => !(m.role === "system" || isSummary(m)));
  if (dropped.length === 0) return { messages: history, dropped: 0 };
  const path = archive?.(dropped);
  const notice = truncationNotice(dropped, path);
  const out = ensureToolResultPairing([...history.slice(0, sysEnd), ...kept, notice, ...history.slice(tailStart)]).messages;
  return { messages: out, dropped: dropped.length };
}

export function truncationNotice(dropped: readonly Message[], archivePath: string | undefined): UserMessage {
  const lines = [
    `[CONTEXT TRUNCATED: ${dropped.length} earlier message${dropped.length === 1 ? " was" : "s were"} removed to fit the context window. They were not summarized. Recent messages are kept below; continue from where you left off.]`,
  ];
  const quotes = formatQuotes(collectQuotes(dropped));
  if (quotes) lines.push("", quotes);
  if (archivePath) lines.push("", `The removed messages are saved in ${archivePath} (JSON Lines, one message per line); read that file with the read tool if you need them.`);
  return { role: "user", content: lines.join("\n"), meta: { kind: "summary" } };
}

/**
 * Shrinks the largest messages until the history's estimate fits `budgetTokens`. Tool outputs and assistant
 * text go first; the user's messages, summaries and verbatim messages only when nothing else is left.
 * System messages are never shrunk. Stops when it fits, when nothing is shrinkable, or without progress.
 */
export function shrinkToBudget(history: Message[], budgetTokens: number, opts: { protectedToo?: boolean } = {}): { messages: Message[]; shrunk: number } {
  let msgs = history;
  let shrunk = 0;
  const protectedToo = opts.protectedToo ?? true;
  for (let guard = 0; guard < 2 * history.length + 8; guard++) {
    const total = estimateTokens(msgs);
    if (total <= budgetTokens) break;
    const idx = largest(msgs, false) ?? (protectedToo ? largest(msgs, true) : undefined);
    if (idx === undefined) break;
    const m = msgs[idx]!;
    const deficitChars = (total - budgetTokens) * CHARS_PER_TOKEN;
    const argsChars = callArgsChars(m);
    let next: Message;
    if (argsChars > m.content.length) {
      // A native call's arguments (a big `write`) are the bulk: cut inside them, keeping them a JSON object.
      const target = Math.max(SHRINK_FLOOR_CHARS, argsChars - deficitChars - 96);
      if (target >= argsChars) break;
      next = withShrunkCallArgs(m, Math.max(SHRINK_FLOOR_CHARS, Math.floor(target / Math.max(1, callCount(m)))));
    } else {
      const target = Math.max(SHRINK_FLOOR_CHARS, m.content.length - deficitChars - 96);
      if (target >= m.content.length) break;
      next = { ...m, content: cut(m.content, target), meta: { ...m.meta, originalChars: m.meta?.originalChars ?? m.content.length } } as Message;
    }
    if (estimateMessageTokens(next) >= estimateMessageTokens(m)) break;
    msgs = msgs.slice();
    msgs[idx] = next;
    shrunk++;
  }
  return { messages: shrunk ? ensureToolResultPairing(msgs).messages : history, shrunk };
}

/** Caps every non-system message at `maxChars` (overflow recovery's last attempt). */
export function capMessages(history: Message[], maxChars: number): { messages: Message[]; capped: number } {
  let capped = 0;
  const out = history.map((m) => {
    if (m.role === "system") return m;
    const args = withShrunkCallArgs(m, maxChars);
    if (args.content.length <= maxChars) {
      if (args !== m) capped++;
      return args;
    }
    capped++;
    return { ...args, content: cut(args.content, maxChars), meta: { ...args.meta, originalChars: args.meta?.originalChars ?? args.content.length } } as Message;
  });
  return { messages: capped ? out : history, capped };
}

function largest(msgs: readonly Message[], includeProtected: boolean): number | undefined {
  let best: number | undefined;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    const size = sizeOf(m);
    if (m.role === "system" || size <= SHRINK_FLOOR_CHARS + 100) continue;
    if (isProtected(m) !== includeProtected) continue;
    if (best === undefined || size > sizeOf(msgs[best]!)) best = i;
  }
  return best;
}

function sizeOf(m: Message): number {
  return Math.max(m.content.length, callArgsChars(m));
}

function callCount(m: Message): number {
  return m.role === "assistant" ? (m.toolCalls?.length ?? 0) : 0;
}

/** Two thirds head, one third tail, with a marker saying how much went. */
export function cut(text: string, max: number): string {
  const budget = Math.max(0, max - 60);
  const head = Math.floor((budget * 2) / 3);
  return headTail(text, head, budget - head, (n) => `\n\n... [${n} chars omitted to fit the context window] ...\n\n`);
}
