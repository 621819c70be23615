/** Small helpers shared by the providers. */
import type { LlmError, LlmEvent } from "../../protocol/llm.ts";
import type { ToolMessage } from "../../protocol/message.ts";
import { classifyHttpError, isConnectionRefused, makeError } from "../errors.ts";
import { endpointOrigin, isLocalEndpoint } from "../local-endpoint.ts";
import { ThinkSplitter, type SplitPiece } from "../think-splitter.ts";
import { retryPolicyFromEnv, withRetry } from "../retry.ts";
import { guardStream, idleTimeoutMs } from "../stream-guard.ts";

/**
 * A provider's `stream()`: every attempt guarded (never throws; idle timeout CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS,
 * else `idleSeconds`), its inline `<think>` text split off as thinking (every provider, think-splitter.ts), its
 * network errors naming `endpoint`, and retried per MAX_RETRIES / INITIAL_BACKOFF, except a connection refused
 * by a server on this machine (not running: retrying cannot help; the error says where).
 */
export function retryingStream(
  attempt: (signal: AbortSignal) => AsyncIterable<LlmEvent>,
  o: { provider: string; endpoint: string; env: Record<string, string | undefined>; idleSeconds: number; signal: AbortSignal | undefined },
): AsyncIterable<LlmEvent> {
  const idleMs = idleTimeoutMs(o.env, o.idleSeconds);
  const once = () => splitInlineThinking(guardStream(attempt, { provider: o.provider, signal: o.signal, idleMs }), o.endpoint);
  return withRetry(once, retryPolicyFromEnv(o.env), o.signal);
}

/**
 * One attempt's events with inline thinking tags split off (flushed before the final done/error) and its
 * network errors made to name the endpoint.
 */
export async function* splitInlineThinking(events: AsyncIterable<LlmEvent>, endpoint: string): AsyncGenerator<LlmEvent> {
  const splitter = new ThinkSplitter();
  const pieces = function* (ps: SplitPiece[]): Generator<LlmEvent> {
    for (const p of ps) yield p.kind === "text" ? { type: "text_delta", text: p.text } : { type: "thinking_delta", text: p.text };
  };
  for await (const ev of events) {
    if (ev.type === "text_delta") {
      yield* pieces(splitter.push(ev.text));
      continue;
    }
    if (ev.type === "done" || ev.type === "error") yield* pieces(splitter.end());
    yield ev.type === "error" ? { type: "error", error: atEndpoint(ev.error, endpoint) } : ev;
  }
  yield* pieces(splitter.end());
}

/** A transport error names where it went; a connection refused on this machine is not retried. */
function atEndpoint(e: LlmError, endpoint: string): LlmError {
  if (e.kind !== "network" && e.kind !== "timeout") return e;
  const origin = endpointOrigin(endpoint);
  const named = e.message.includes(origin) ? e : { ...e, message: `${e.message} (${origin})` };
  return isConnectionRefused(named) && isLocalEndpoint(endpoint) ? { ...named, retryable: false } : named;
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
