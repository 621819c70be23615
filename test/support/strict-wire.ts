/**
 * What strict servers refuse, for the fake SSE server's `strict` mode. The OpenAI-compatible checks follow
 * strict Jinja chat templates (a system message anywhere but first raises "System message must be at the
 * beginning") and the id pairing of the chat-completions API; the Anthropic checks follow the Messages API
 * (tool_use ids unique and `^[a-zA-Z0-9_-]+$`; each tool_result answers a tool_use of the turn just before).
 * Returns the error text a server would send, or undefined when the body is acceptable.
 */
type Json = Record<string, unknown>;

export function strictWireError(path: string, body: unknown): string | undefined {
  if (!body || typeof body !== "object") return "request body is not a JSON object";
  const messages = (body as Json).messages;
  if (!Array.isArray(messages)) return "messages: expected an array";
  if (path.endsWith("/messages")) return anthropicError(messages as Json[]);
  if (path.endsWith("/chat/completions")) return openAiError(messages as Json[]);
  return undefined;
}

function openAiError(messages: Json[]): string | undefined {
  const seen = new Set<string>();
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === "system" && i !== 0) return "System message must be at the beginning.";
    if (m.role === "tool") {
      const id = String(m.tool_call_id ?? "");
      if (!open.has(id)) return `messages[${i}]: tool_call_id ${id} does not answer a tool call of the preceding assistant message`;
      open.delete(id);
      continue;
    }
    if (open.size) return `messages[${i}]: tool calls ${[...open].join(", ")} have no tool message`;
    open = new Set();
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls as Json[]) {
        const id = String(c.id ?? "");
        if (!id || seen.has(id)) return `messages[${i}]: duplicate or empty tool call id "${id}"`;
        seen.add(id);
        open.add(id);
      }
    }
  }
  return undefined;
}

function anthropicError(messages: Json[]): string | undefined {
  const seen = new Set<string>();
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const blocks = Array.isArray(m.content) ? (m.content as Json[]) : [];
    if (m.role === "user") {
      for (const b of blocks.filter((x) => x.type === "tool_result")) {
        const id = String(b.tool_use_id ?? "");
        if (!open.has(id)) return `messages.${i}: unexpected tool_use_id found in tool_result blocks: ${id}`;
        open.delete(id);
      }
      if (open.size) return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${[...open].join(", ")}`;
      continue;
    }
    if (open.size) return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${[...open].join(", ")}`;
    open = new Set();
    for (const b of blocks.filter((x) => x.type === "tool_use")) {
      const id = String(b.id ?? "");
      if (!/^[a-zA-Z0-9_-]+$/.test(id)) return `messages.${i}: tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (seen.has(id)) return `messages.${i}: tool_use ids must be unique`;
      seen.add(id);
      open.add(id);
    }
  }
  return undefined;
}
