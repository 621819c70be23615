/** Small helpers shared by the providers. */
import type { LlmError, LlmEvent } from "../../protocol/llm.ts";
import type { ToolMessage } from "../../protocol/message.ts";
import { classifyHttpError, makeError } from "../errors.ts";
import { retryPolicyFromEnv, withRetry } from "../retry.ts";
import { guardStream, idleTimeoutMs } from "../stream-guard.ts";

/**
 * A provider's `stream()`: every attempt guarded (never throws; idle timeout CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS,
 * else `idleSeconds`) and retried per MAX_RETRIES / INITIAL_BACKOFF.
 */
export function retryingStream(
  attempt: (signal: AbortSignal) => AsyncIterable<LlmEvent>,
  o: { provider: string; env: Record<string, string | undefined>; idleSeconds: number; signal: AbortSignal | undefined },
): AsyncIterable<LlmEvent> {
  const idleMs = idleTimeoutMs(o.env, o.idleSeconds);
  return withRetry(() => guardStream(attempt, { provider: o.provider, signal: o.signal, idleMs }), retryPolicyFromEnv(o.env), o.signal);
}

/** POSTs a JSON body and parses the event-stream answer; a non-2xx answer (or none) is one classified error event. */
export async function* postEventStream(
  fetchFn: typeof fetch,
  url: string,
  init: { headers: Record<string, string>; body: unknown; signal: AbortSignal },
  provider: string,
  parse: (body: ReadableStream<Uint8Array>, provider: string) => AsyncIterable<LlmEvent>,
): AsyncGenerator<LlmEvent> {
  const res = await fetchFn(url, { method: "POST", headers: init.headers, body: JSON.stringify(init.body), signal: init.signal });
  if (!res.ok || !res.body) {
    yield { type: "error", error: await httpError(res, provider) };
    return;
  }
  yield* parse(res.body, provider);
}

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
