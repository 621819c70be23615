/**
 * The per-request task anchor goes into the text of the last message, never as a message of its own: a
 * `system` message after the first is refused by strict chat templates ("System message must be at the
 * beginning"), and an extra user turn after tool results breaks templates that expect results to be answered.
 * Folded into the last user message or tool result (a copy: the history is never changed), or, when the
 * request ends with something else, sent as one trailing user message.
 */
import type { Message } from "../protocol/message.ts";

export function foldAnchor(messages: readonly Message[], anchor: string): Message[] {
  const out = [...messages];
  if (!anchor) return out;
  const last = out[out.length - 1];
  if (last && (last.role === "user" || last.role === "tool")) {
    out[out.length - 1] = { ...last, content: last.content ? `${last.content}\n\n${anchor}` : anchor };
    return out;
  }
  out.push({ role: "user", content: anchor });
  return out;
}
