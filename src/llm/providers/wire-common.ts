/** Small helpers shared by the HTTP providers. */
import type { LlmError, LlmEvent } from "../../protocol/llm.ts";
import type { ToolMessage } from "../../protocol/message.ts";
import { classifyHttpError, makeError } from "../errors.ts";

/** Tool failures go back to the model as text starting with `[ERROR:<code>] ` (or `[ERROR] ` without a code). */
export function toolResultText(m: ToolMessage): string {
  if (!m.isError) return m.content;
  return `[ERROR${m.errorCode ? `:${m.errorCode}` : ""}] ${m.content}`;
}

/** A chunk that is not valid JSON or does not match the schema: an error event, never a throw. */
export function malformedChunk(provider: string, detail: string): LlmEvent {
  return { type: "error", error: makeError("server_error", `malformed stream chunk: ${detail.slice(0, 200)}`, { provider }) };
}

/** Read the error body of a non-2xx response and classify it (Retry-After honoured). */
export async function httpError(res: Response, provider: string): Promise<LlmError> {
  const body = await res.text().catch(() => "");
  return classifyHttpError(res.status, body, provider, res.headers.get("retry-after"));
}

/** Join a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

export function parseArgsObject(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
