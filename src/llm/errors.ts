/**
 * Error classification by HTTP status, error codes in the body, and transport failures.
 * Never matches translated UI strings: only wire-level facts.
 */
import type { ErrorKind, LlmError } from "../protocol/llm.ts";
import { endpointOrigin } from "./local-endpoint.ts";

const FLAGS: Record<ErrorKind, { retryable: boolean; fallbackable: boolean }> = {
  rate_limit: { retryable: true, fallbackable: true },
  overloaded: { retryable: true, fallbackable: true },
  server_error: { retryable: true, fallbackable: true },
  timeout: { retryable: true, fallbackable: true },
  network: { retryable: true, fallbackable: true },
  auth: { retryable: false, fallbackable: true },
  model_not_found: { retryable: false, fallbackable: true },
  context_too_long: { retryable: false, fallbackable: false },
  payload_too_large: { retryable: false, fallbackable: false },
  invalid_request: { retryable: false, fallbackable: false },
  aborted: { retryable: false, fallbackable: false },
  unknown: { retryable: false, fallbackable: true },
};

export function makeError(
  kind: ErrorKind,
  message: string,
  extra: { status?: number; provider?: string; retryAfterMs?: number } = {},
): LlmError {
  const e: LlmError = { kind, message, ...FLAGS[kind] };
  if (extra.status !== undefined) e.status = extra.status;
  if (extra.provider !== undefined) e.provider = extra.provider;
  if (extra.retryAfterMs !== undefined) e.retryAfterMs = extra.retryAfterMs;
  return e;
}

const CONTEXT_CODES = ["context_length_exceeded", "string_above_max_length", "prompt_too_long", "request_too_large_for_model"];
const CONTEXT_PHRASES = [
  "maximum context length",
  "context length",
  "context window",
  "prompt is too long",
  "too many tokens",
  "input is too long",
  "exceeds the context",
  "token limit",
];

/** Classify an HTTP error response. `body` is the raw response text (may be JSON). */
export function classifyHttpError(status: number, body: string, provider?: string, retryAfter?: string | null): LlmError {
  const lower = body.toLowerCase();
  const retryAfterMs = parseRetryAfter(retryAfter ?? null);
  const extra = { status, ...(provider ? { provider } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const msg = extractMessage(body) || `HTTP ${status}`;
  if (status === 413) return makeError("payload_too_large", msg, extra);
  if (CONTEXT_CODES.some((c) => lower.includes(c)) || (status === 400 && CONTEXT_PHRASES.some((p) => lower.includes(p)))) {
    return makeError("context_too_long", msg, extra);
  }
  if (status === 429) {
    // Quota exhaustion is not worth retrying on the same provider; a plain rate limit is.
    if (lower.includes("insufficient_quota")) return makeError("auth", msg, extra);
    return makeError("rate_limit", msg, extra);
  }
  if (status === 401) return makeError("auth", msg, extra);
  if (status === 403) {
    // A WAF or region block is not an auth failure: only a body that says so is.
    const authish = ["api key", "api_key", "unauthorized", "permission", "forbidden", "credential", "token"].some((p) => lower.includes(p));
    return makeError(authish ? "auth" : "invalid_request", msg, extra);
  }
  if (status === 404) {
    if (lower.includes("model")) return makeError("model_not_found", msg, extra);
    return makeError("invalid_request", msg, extra);
  }
  if (status === 408 || status === 504) return makeError("timeout", msg, extra);
  if (status === 529 || status === 503 || lower.includes("overloaded")) return makeError("overloaded", msg, extra);
  if (status >= 500) return makeError("server_error", msg, extra);
  if (status >= 400) return makeError("invalid_request", msg, extra);
  return makeError("unknown", msg, extra);
}

/** Classify a thrown value from fetch / a client library / a stream reader. */
export function classifyThrown(err: unknown, provider?: string, signal?: AbortSignal): LlmError {
  const extra = provider ? { provider } : {};
  if (signal?.aborted) return makeError("aborted", "request aborted", extra);
  // An LlmProviderError (or anything else) already carrying a classified error keeps it.
  const carried = (err as { error?: unknown } | null)?.error;
  if (carried && typeof carried === "object" && "kind" in carried && "retryable" in carried) return carried as LlmError;
  const e = err as { name?: string; message?: string; code?: string; status_code?: number; status?: number; error?: string };
  const name = e?.name ?? "";
  const message = e?.message ?? String(err);
  if (name === "AbortError" || message.includes("aborted")) return makeError("aborted", "request aborted", extra);
  if (name === "TimeoutError" || e?.code === "ETIMEDOUT") return makeError("timeout", message, extra);
  const status = typeof e?.status_code === "number" ? e.status_code : typeof e?.status === "number" ? e.status : undefined;
  if (status !== undefined) return classifyHttpError(status, e?.error ?? message, provider, retryDelayOf((err as { errorDetails?: unknown }).errorDetails));
  const code = e?.code ?? "";
  if (["ECONNREFUSED", "ConnectionRefused"].includes(code) || /ECONNREFUSED|connection refused/i.test(message)) {
    // Bun says "ECONNREFUSED: Unable to connect. Is the computer able to access the url?" and keeps the URL in `path`.
    const path = (err as { path?: unknown } | null)?.path;
    return makeError("network", `${REFUSED}${typeof path === "string" && path ? ` (${endpointOrigin(path)})` : ""}`, extra);
  }
  if (
    ["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ConnectionRefused", "ConnectionClosed", "FailedToOpenSocket"].includes(code) ||
    /fetch failed|unable to connect|connection refused|socket|network|ECONNRESET|ECONNREFUSED/i.test(message)
  ) {
    return makeError("network", message, extra);
  }
  return makeError("unknown", message, extra);
}

const REFUSED = "connection refused";

/** A network error that is a refused connection (nothing listens there): classified from the transport's code. */
export function isConnectionRefused(e: LlmError): boolean {
  return e.kind === "network" && e.message.toLowerCase().startsWith(REFUSED);
}

/**
 * Google's structured retry hint (`google.rpc.RetryInfo` in a 429's error details, e.g. `retryDelay: "17s"`),
 * as a Retry-After value in seconds; null when absent. The Gemini package exposes the details, not the headers.
 */
function retryDelayOf(details: unknown): string | null {
  if (!Array.isArray(details)) return null;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown } | null)?.retryDelay;
    const m = typeof delay === "string" ? delay.match(/^(\d+(?:\.\d+)?)s$/) : null;
    if (m?.[1]) return m[1];
  }
  return null;
}

export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return undefined;
}

function extractMessage(body: string): string {
  const trimmed = body.trim();
  if (!trimmed) return "";
  try {
    const j = JSON.parse(trimmed) as { error?: unknown; message?: unknown };
    if (typeof j.error === "string") return j.error;
    if (j.error && typeof j.error === "object" && typeof (j.error as { message?: unknown }).message === "string") {
      return (j.error as { message: string }).message;
    }
    if (typeof j.message === "string") return j.message;
  } catch {
    // not JSON
  }
  return trimmed.slice(0, 500);
}
