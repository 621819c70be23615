/**
 * Continuation of a reply cut off at the output limit (stop reason `length`): the limit is doubled (4,096
 * assumed when the request set none) up to the model's maximum, and the model is asked to resume exactly
 * where it stopped. The request carries the partial answer plus CONTINUATION_MESSAGE; neither is persisted —
 * the history gets one assistant message with both parts joined.
 */
import type { LlmRequest } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { foldAnchor } from "../../llm/anchor.ts";

export const CONTINUATION_MESSAGE =
  "Your response was cut off at the token limit. Resume DIRECTLY from where you stopped — do not repeat any content. Continue the implementation or explanation from the exact point of interruption.";
export const MAX_TOKEN_ESCALATIONS = 2;
export const DEFAULT_OUTPUT_TOKENS = 4_096;
export const PROVIDER_MAX_OUTPUT_CAP = 128_000;

export function nextOutputLimit(current: number | undefined, cap = PROVIDER_MAX_OUTPUT_CAP): number {
  const base = current && current > 0 ? current : DEFAULT_OUTPUT_TOKENS;
  return Math.max(1, Math.min(base * 2, cap));
}

/** The model's output ceiling we allow: half the window (the prompt needs the rest), at most 128K. */
export function outputCapFor(contextWindow: number | undefined): number {
  if (!contextWindow || contextWindow <= 0) return PROVIDER_MAX_OUTPUT_CAP;
  return Math.max(256, Math.min(PROVIDER_MAX_OUTPUT_CAP, Math.floor(contextWindow / 2)));
}

export function continuationRequest(request: LlmRequest, partialText: string, cap = outputCapFor(request.contextWindow)): LlmRequest {
  // The task anchor stays on the request's own last message; the resume instruction goes last, on its own.
  const { anchor, ...rest } = request;
  const messages: Message[] = [
    ...foldAnchor(request.messages, anchor),
    { role: "assistant", content: partialText },
    { role: "user", content: CONTINUATION_MESSAGE, meta: { kind: "continuation" } },
  ];
  return { ...rest, messages, maxOutputTokens: nextOutputLimit(request.maxOutputTokens, cap) };
}

/** Joins the parts; drops a repeated overlap when the model restarted a few words back anyway. */
export function joinContinuation(first: string, second: string): string {
  const max = Math.min(200, first.length, second.length);
  for (let n = max; n >= 20; n--) {
    if (first.endsWith(second.slice(0, n))) return first + second.slice(n);
  }
  return first + second;
}
