/**
 * Turns a provider's raw async generator (which may throw) into a stream that never throws:
 * thrown errors, aborts and idle stalls all become the final `error` event.
 * The raw generator receives an internal signal that fires on outer abort or on idle timeout.
 */
import type { LlmError, LlmEvent } from "../protocol/llm.ts";
import { classifyThrown, makeError } from "./errors.ts";

export interface GuardOptions {
  provider: string;
  signal?: AbortSignal;
  /** Longest gap between two events before the stream is declared stalled. */
  idleMs: number;
}

export async function* guardStream(
  raw: (signal: AbortSignal) => AsyncIterable<LlmEvent>,
  opts: GuardOptions,
): AsyncGenerator<LlmEvent> {
  const inner = new AbortController();
  const outer = opts.signal;
  const onAbort = () => inner.abort();
  if (outer?.aborted) {
    yield { type: "error", error: makeError("aborted", "request aborted", { provider: opts.provider }) };
    return;
  }
  outer?.addEventListener("abort", onAbort, { once: true });
  let stalled = false;
  // One idle timer for the whole stream, re-armed only when it fires (not per event: a fast model sends thousands).
  // The idle clock measures the provider, not the consumer: it does not run while an event is handed out.
  let waitingSince: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const waited = waitingSince === null ? 0 : Date.now() - waitingSince;
    if (waited >= opts.idleMs) {
      timer = undefined;
      stalled = true;
      inner.abort();
      return;
    }
    timer = setTimeout(check, opts.idleMs - waited);
  };
  const arm = () => {
    waitingSince = Date.now();
    timer ??= setTimeout(check, opts.idleMs);
  };
  // One abort listener for the whole stream; it fails the read being awaited. (Not Promise.race with one
  // long-lived promise: every race leaves a reaction on it, 20,000 per long answer, kept until the stream ends.)
  const abortError = () => new DOMException("aborted", "AbortError");
  let failRead: ((err: unknown) => void) | null = null;
  const onInnerAbort = () => failRead?.(abortError());
  inner.signal.addEventListener("abort", onInnerAbort, { once: true });
  let iterator: AsyncIterator<LlmEvent> | undefined;
  try {
    iterator = raw(inner.signal)[Symbol.asyncIterator]();
    arm();
    for (;;) {
      const read = iterator.next();
      read.catch(() => undefined); // an abort wins the race; the read's own rejection stays handled
      if (inner.signal.aborted) throw abortError();
      const next = await new Promise<IteratorResult<LlmEvent>>((resolve, reject) => {
        failRead = reject;
        read.then(resolve, reject);
      });
      failRead = null;
      waitingSince = null;
      if (next.done) {
        // A raw stream that ends without done/error (a connection closed between events) is a failure.
        yield { type: "error", error: makeError("network", "stream ended before completion", { provider: opts.provider }) };
        return;
      }
      yield next.value;
      if (next.value.type === "done" || next.value.type === "error") return;
      arm();
    }
  } catch (err) {
    let error: LlmError;
    if (stalled) error = makeError("timeout", `stream stalled: no data for ${Math.round(opts.idleMs / 1000)}s`, { provider: opts.provider });
    else if (outer?.aborted) error = makeError("aborted", "request aborted", { provider: opts.provider });
    else error = classifyThrown(err, opts.provider);
    yield { type: "error", error };
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
    failRead = null;
    if (!inner.signal.aborted) inner.abort();
    iterator?.return?.(undefined).catch(() => undefined);
  }
}

export function idleTimeoutMs(env: Record<string, string | undefined>, fallbackSeconds: number): number {
  const v = Number(env.CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS);
  return (Number.isFinite(v) && v > 0 ? v : fallbackSeconds) * 1000;
}
