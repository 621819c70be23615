/**
 * The per-request task anchor (LlmRequest.anchor) goes into the text of the last user message or tool result,
 * never as a message of its own: a `system` message after the first is refused by strict chat templates
 * ("System message must be at the beginning"), and an extra user turn after tool results breaks templates that
 * expect the results to be answered. Every provider wire calls this when it serializes a request, so the
 * history and the request's `messages` never hold it. A continuation request (an assistant partial last) keeps
 * the partial last; with no user message or tool result at all, the anchor is one trailing user message.
 */
import type { LlmRequest } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";

export function foldAnchor(messages: readonly Message[], anchor: string | undefined): Message[] {
  const out = [...messages];
  if (!anchor) return out;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role !== "user" && m.role !== "tool") continue;
    out[i] = { ...m, content: m.content ? `${m.content}\n\n${anchor}` : anchor };
    return out;
  }
  out.push({ role: "user", content: anchor });
  return out;
}

/** The messages a wire sends: `request.messages` with the anchor folded in. */
export function wireMessages(request: LlmRequest): Message[] {
  return foldAnchor(request.messages, request.anchor);
}
