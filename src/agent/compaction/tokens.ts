/**
 * Token accounting. The provider's reported prompt size is the truth for what was already sent; everything
 * not sent yet is estimated: ASCII ~4 chars per token, CJK/kana/hangul ~1 token per char, other non-ASCII
 * ~2 chars per token. Estimates per message are cached by object identity (messages are never mutated in
 * place: every stage that changes one makes a new object).
 */
import type { SystemPart, ToolSpec } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";

/** Fixed cost of a message's role/framing in every chat template we know of. */
export const PER_MESSAGE_OVERHEAD_TOKENS = 4;
/** Rough cost of an attached image (providers bill 85–1,600; the middle keeps compaction honest). */
export const IMAGE_TOKENS = 1_000;

export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let wide = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (isWide(c)) wide++;
    else if (c >= 0xdc00 && c <= 0xdfff) continue; // low surrogate: counted with its high half
    else other++;
  }
  return Math.ceil(ascii / 4 + wide + other / 2);
}

function isWide(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified
    (c >= 0xac00 && c <= 0xd7af) || // hangul
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility
    (c >= 0xff00 && c <= 0xffef) // full-width forms
  );
}

const cache = new WeakMap<Message, number>();

export function estimateMessageTokens(m: Message): number {
  const hit = cache.get(m);
  if (hit !== undefined) return hit;
  let n = PER_MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(m.content);
  if (m.role === "assistant") {
    for (const c of m.toolCalls ?? []) n += estimateTextTokens(c.name) + estimateTextTokens(c.arguments) + PER_MESSAGE_OVERHEAD_TOKENS;
    // `thinking` is not counted: the history keeps it for the transcript, but no wire sends it back to the model,
    // so counting it made the meter (and the compaction trigger) report more than a request carries.
  } else if (m.role === "user") {
    n += (m.images?.length ?? 0) * IMAGE_TOKENS;
  } else if (m.role === "tool") {
    n += estimateTextTokens(m.name) + (m.images?.length ?? 0) * IMAGE_TOKENS;
  }
  cache.set(m, n);
  return n;
}

export function estimateSystemTokens(system: string | readonly SystemPart[] | undefined): number {
  if (!system) return 0;
  if (typeof system === "string") return estimateTextTokens(system) + PER_MESSAGE_OVERHEAD_TOKENS;
  return system.reduce((n, p) => n + estimateTextTokens(p.text), 0) + (system.length ? PER_MESSAGE_OVERHEAD_TOKENS : 0);
}

export function estimateToolSpecTokens(tools: readonly ToolSpec[] | undefined): number {
  if (!tools?.length) return 0;
  return tools.reduce((n, t) => n + estimateTextTokens(t.name) + estimateTextTokens(t.description) + estimateTextTokens(JSON.stringify(t.parameters)) + PER_MESSAGE_OVERHEAD_TOKENS, 0);
}

/** Estimated prompt size of `messages` plus the system prompt (and tool definitions, when given). */
export function estimateTokens(messages: readonly Message[], system?: string | readonly SystemPart[], tools?: readonly ToolSpec[]): number {
  let n = estimateSystemTokens(system) + estimateToolSpecTokens(tools);
  for (const m of messages) n += estimateMessageTokens(m);
  return n;
}

/**
 * Combines the provider's reported prompt size with estimates. `sent(messages)` records what a request
 * carried; `reported(tokens)` records the provider's count for it. `requestTokens(history)` is then the
 * reported count plus an estimate of the messages added since — but never below the plain estimate, because
 * some servers report only the uncached part of the prompt (Ollama's prompt_eval_count with a warm KV cache).
 * Once the history is rewritten (compaction, rewind) the reported count no longer applies.
 */
export interface TokenAccountant {
  sent(messages: readonly Message[]): void;
  reported(inputTokens: number): void;
  /** Tokens of a request carrying `history`; `overheadTokens` is the system prompt and tool definitions. */
  requestTokens(history: readonly Message[], overheadTokens: number): number;
}

export function createTokenAccountant(): TokenAccountant {
  let lastSent: readonly Message[] = [];
  let pending: readonly Message[] | undefined;
  let reportedTokens = 0;
  return {
    sent(messages) {
      pending = messages.slice();
    },
    reported(inputTokens) {
      if (!pending || inputTokens <= 0) return;
      lastSent = pending;
      reportedTokens = inputTokens;
      pending = undefined;
    },
    requestTokens(history, overheadTokens) {
      const estimate = estimateTokens(history) + overheadTokens;
      if (!reportedTokens || lastSent.length === 0 || lastSent.length > history.length) return estimate;
      for (let i = 0; i < lastSent.length; i++) if (lastSent[i] !== history[i]) return estimate;
      return Math.max(estimate, reportedTokens + estimateTokens(history.slice(lastSent.length)));
    },
  };
}
