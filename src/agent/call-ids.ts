/**
 * Tool-call ids unique within a session, whatever the provider. Ollama and Gemini number calls `call_0…` afresh
 * every turn, some OpenAI-compatible servers send empty ids or ids with `.`/`:`; after a /model switch or a
 * fallback, a provider that pairs results by id (Anthropic, OpenAI) would get duplicate `tool_use` ids or ids it
 * refuses. The loop passes each reply's calls through here before they enter the history: an id is kept when it
 * is well-formed and not yet used by a call or a result in `history`, otherwise a fresh one is minted. Both the
 * assistant message and the results are built from the returned calls, so pairing stays consistent.
 */
import type { Message, ToolCall } from "../protocol/message.ts";

/** What every wire accepts (Anthropic: `^[a-zA-Z0-9_-]+$`; OpenAI: at most 40 chars). */
const WIRE_SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

export function uniqueCallIds(calls: readonly ToolCall[], history: readonly Message[], mint: () => string): ToolCall[] {
  if (!calls.length) return [...calls];
  const used = usedCallIds(history);
  // First the ids that stay (so a minted id never takes one a later call of this reply brings), then the rest.
  const keep = calls.map((c) => {
    if (!WIRE_SAFE_ID.test(c.id) || used.has(c.id)) return false;
    used.add(c.id);
    return true;
  });
  return calls.map((c, i) => {
    if (keep[i]) return c;
    let id = mint();
    while (!WIRE_SAFE_ID.test(id) || used.has(id)) id = mint();
    used.add(id);
    return { ...c, id };
  });
}

function usedCallIds(history: readonly Message[]): Set<string> {
  const used = new Set<string>();
  for (const m of history) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) used.add(c.id);
    else if (m.role === "tool") used.add(m.toolCallId);
  }
  return used;
}
