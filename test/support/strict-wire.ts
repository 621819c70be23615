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
  if (path.includes(":streamGenerateContent") || path.includes(":generateContent")) return geminiError((body as Json).contents);
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
    const parts = openAiPartsError(i, m);
    if (parts) return parts;
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
    // Images also travel inside a tool_result's content (tool results with images).
    const nested = blocks.flatMap((x) => (x.type === "tool_result" && Array.isArray(x.content) ? (x.content as Json[]) : []));
    for (const b of nested.filter((x) => x.type !== "text" && x.type !== "image")) return `messages.${i}.content: tool_result content accepts text and image blocks, not ${String(b.type)}`;
    for (const b of [...blocks, ...nested].filter((x) => x.type === "image")) {
      const bad = anthropicImageError(b);
      if (bad) return `messages.${i}.content: ${bad}`;
    }
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

/** Images (issue 25): what the real servers check of an image part. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

function openAiPartsError(i: number, m: Json): string | undefined {
  if (!Array.isArray(m.content)) return undefined;
  // Chat-completions tool (and assistant/system) messages take text parts only; images go in user messages.
  if (m.role !== "user") return (m.content as Json[]).some((p) => p.type !== "text") ? `messages[${i}].content: only text parts are allowed in a ${String(m.role)} message` : undefined;
  for (const p of m.content as Json[]) {
    if (p.type === "text" && typeof p.text === "string") continue;
    if (p.type !== "image_url") return `messages[${i}].content: unknown part type ${String(p.type)}`;
    const url = String((p.image_url as Json | undefined)?.url ?? "");
    const m2 = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!m2) return `messages[${i}].content: image_url.url must be a data: URL with base64 data`;
    if (!IMAGE_TYPES.includes(m2[1]!)) return `messages[${i}].content: unsupported image type ${m2[1]}`;
    if (!BASE64.test(m2[2]!)) return `messages[${i}].content: invalid base64 image data`;
  }
  return undefined;
}

function anthropicImageError(b: Json): string | undefined {
  const src = (b.source ?? {}) as Json;
  if (src.type !== "base64") return "image.source.type: Input should be 'base64'";
  if (!IMAGE_TYPES.includes(String(src.media_type))) return `image.source.media_type: Input should be one of ${IMAGE_TYPES.join(", ")}`;
  const data = String(src.data ?? "");
  if (!BASE64.test(data)) return "image.source.data: invalid base64 data";
  if ((data.length * 3) / 4 > 5 * 1024 * 1024) return "image exceeds 5 MB maximum";
  return undefined;
}

function geminiError(contents: unknown): string | undefined {
  if (!Array.isArray(contents)) return "contents: expected an array";
  for (const [i, c] of (contents as Json[]).entries()) {
    for (const p of Array.isArray(c.parts) ? (c.parts as Json[]) : []) {
      if (!p.inlineData) continue;
      const d = p.inlineData as Json;
      if (!IMAGE_TYPES.includes(String(d.mimeType))) return `contents[${i}]: unsupported inlineData mimeType ${String(d.mimeType)}`;
      if (!BASE64.test(String(d.data ?? ""))) return `contents[${i}]: invalid base64 inlineData`;
    }
  }
  return undefined;
}
