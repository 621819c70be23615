/**
 * Retry policy shared by providers: 429 and 5xx (and network/timeouts) retried with exponential backoff,
 * 3 s doubling to 30 s, at most 5 tries, honouring Retry-After. The wait is cut short by abort.
 * A stream is retried only while it has produced no output; once text or tool calls were emitted,
 * the failure is final for this attempt (replaying would duplicate output).
 * What is retryable is the error's own flag: a connection refused on this machine is not (wire-common.ts).
 */
import type { LlmError, LlmEvent } from "../protocol/llm.ts";
import { makeError } from "./errors.ts";

export interface RetryPolicy {
  maxTries: number;
  initialMs: number;
  maxMs: number;
}

/**
 * `MAX_RETRIES` and `INITIAL_BACKOFF` (seconds, fractions allowed) keep the seed's names. Like the seed,
 * `MAX_RETRIES` counts tries, the first included (default 5, capped at 20); `0` and `1` both mean a single
 * try with no retry. Unset, empty or not a number → the default.
 */
export function retryPolicyFromEnv(env: Record<string, string | undefined>): RetryPolicy {
  const raw = env.MAX_RETRIES?.trim();
  const tries = raw ? Number(raw) : NaN;
  const initial = Number(env.INITIAL_BACKOFF);
  return {
    maxTries: Number.isFinite(tries) && tries >= 0 ? Math.max(1, Math.min(Math.floor(tries), 20)) : 5,
    initialMs: Number.isFinite(initial) && initial >= 0 ? initial * 1000 : 3000,
    maxMs: 30_000,
  };
}

export function backoffDelay(policy: RetryPolicy, attempt: number, error: LlmError): number {
  const exp = Math.min(policy.maxMs, policy.initialMs * 2 ** (attempt - 1));
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(error.retryAfterMs, 0), 5 * 60_000);
  return exp;
}

/** Resolves after `ms`, or early (returning false) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wrap a single-attempt stream factory with the retry policy. `maxTries` may be lowered by the fallback
 * chain (an entry gets at most 2 retries there).
 */
export async function* withRetry(
  attempt: () => AsyncIterable<LlmEvent>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): AsyncGenerator<LlmEvent> {
  for (let n = 1; ; n++) {
    let produced = false;
    let failure: LlmError | undefined;
    for await (const ev of attempt()) {
      if (ev.type === "error") {
        failure = ev.error;
        break;
      }
      if (ev.type !== "usage") produced = true;
      yield ev;
    }
    if (!failure) return;
    if (produced || !failure.retryable || n >= policy.maxTries || signal?.aborted) {
      yield { type: "error", error: signal?.aborted ? makeError("aborted", "request aborted", providerOf(failure)) : failure };
      return;
    }
    const delayMs = backoffDelay(policy, n, failure);
    yield { type: "retry", attempt: n, delayMs, error: failure };
    const slept = await abortableSleep(delayMs, signal);
    if (!slept) {
      yield { type: "error", error: makeError("aborted", "request aborted during retry backoff", providerOf(failure)) };
      return;
    }
  }
}

function providerOf(e: LlmError): { provider?: string } {
  return e.provider ? { provider: e.provider } : {};
}
