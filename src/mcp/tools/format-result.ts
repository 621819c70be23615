/**
 * An MCP `tools/call` result → the text the model reads (English, not translated) and details for the UI.
 * Text blocks as they are; images and audio described (`[image: image/png, 12.3 KB]`: chatcli's tool results are
 * text); embedded resources with their uri and text (a binary one described); resource links named;
 * `structuredContent` as JSON when there is no content. `isError` is kept. The image blocks' data is also returned
 * (`images`, as sent by the server) for a vision model: mcp-tool.ts caps them; the description stays in the text.
 */
export interface FormattedResult {
  text: string;
  isError: boolean;
  details: Record<string, unknown>;
  images: Array<{ mediaType: string; base64: string }>;
}

interface Block {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: unknown;
}

export function formatCallResult(result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }): FormattedResult {
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts: string[] = [];
  const raw: FormattedResult["images"] = [];
  for (const b of blocks) {
    const part = formatBlock(b);
    if (b.type === "image" && typeof b.data === "string") raw.push({ mediaType: str(b.mimeType, "application/octet-stream"), base64: b.data.replace(/\s/g, "") });
    if (part) parts.push(part);
  }
  const images = blocks.filter((b) => b.type === "image").length;
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult));
  const isError = result.isError === true;
  const text = parts.join("\n") || (isError ? "The tool reported an error without a message." : "(no output)");
  return { text, isError, details: { mcpBlocks: blocks.length, ...(images ? { images } : {}) }, images: raw };
}

export function formatBlock(b: Block): string {
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text : "";
    case "image":
    case "audio":
      return `[${b.type}: ${str(b.mimeType, "unknown type")}, ${humanSize(base64Bytes(b.data))}]`;
    case "resource":
      return formatResource(b.resource);
    case "resource_link":
      return `[resource link: ${str(b.uri, "?")}${typeof b.name === "string" ? ` (${b.name})` : ""}]`;
    default:
      return `[${str(b.type, "unknown")} content]`;
  }
}

/** One resource's contents (embedded in a result, or read for an `@server:resource` mention). */
export function formatResource(resource: unknown): string {
  if (typeof resource !== "object" || resource === null) return "[resource]";
  const r = resource as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
  const head = `[resource: ${str(r.uri, "?")}${typeof r.mimeType === "string" ? `, ${r.mimeType}` : ""}]`;
  if (typeof r.text === "string") return `${head}\n${r.text}`;
  if (typeof r.blob === "string") return `${head.slice(0, -1)}, ${humanSize(base64Bytes(r.blob))} binary]`;
  return head;
}

function str(v: unknown, fallback: string): string {
  return typeof v === "string" && v ? v : fallback;
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const clean = data.replace(/\s/g, "");
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
