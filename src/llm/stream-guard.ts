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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      inner.abort();
    }, opts.idleMs);
  };
  let iterator: AsyncIterator<LlmEvent> | undefined;
  try {
    iterator = raw(inner.signal)[Symbol.asyncIterator]();
    arm();
    for (;;) {
      const next = await raceAbort(iterator.next(), inner.signal);
      // The idle clock measures the provider, not the consumer: it is paused while the event is handed out.
      if (timer) clearTimeout(timer);
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
    if (!inner.signal.aborted) inner.abort();
    iterator?.return?.(undefined).catch(() => undefined);
  }
}

/** Rejects as soon as the signal aborts, even if the underlying read never settles (a stalled socket). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The read was already started: keep its eventual rejection handled.
    p.catch(() => undefined);
    return Promise.reject(new DOMException("aborted", "AbortError"));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException("aborted", "AbortError"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export function idleTimeoutMs(env: Record<string, string | undefined>, fallbackSeconds: number): number {
  const v = Number(env.CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS);
  return (Number.isFinite(v) && v > 0 ? v : fallbackSeconds) * 1000;
}
