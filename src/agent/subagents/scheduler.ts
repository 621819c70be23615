/**
 * Request slots per provider endpoint, shared by every child of a session. A child's model call waits for a slot
 * of its endpoint (Ollama serves `OLLAMA_NUM_PARALLEL` requests at once; a cloud endpoint a configured number);
 * waiters are served by priority (shallower children first), then in arrival order. The main session's own
 * requests never enter the scheduler, so they never wait behind children. A waiter whose signal aborts leaves.
 */
import type { LlmEvent, LlmRequest } from "../../protocol/llm.ts";
import type { LlmProvider } from "../../llm/provider.ts";

interface Waiter {
  priority: number;
  seq: number;
  grant: () => void;
}

interface Endpoint {
  limit: number;
  active: number;
  /** The most requests ever in flight at once (observability; tests read it). */
  peak: number;
  waiting: Waiter[];
}

export class RequestScheduler {
  private readonly endpoints = new Map<string, Endpoint>();
  private seq = 0;

  /** Waits for a slot of `key` (limit `limit`); resolves with the release function, or rejects when `signal` aborts. */
  acquire(key: string, limit: number, priority: number, signal?: AbortSignal): Promise<() => void> {
    const ep = this.endpoint(key, limit);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      ep.active--;
      this.pump(ep);
    };
    if (ep.active < ep.limit && ep.waiting.length === 0) {
      this.take(ep);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      const w: Waiter = {
        priority,
        seq: this.seq++,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.take(ep);
          resolve(release);
        },
      };
      const onAbort = () => {
        ep.waiting = ep.waiting.filter((x) => x !== w);
        reject(new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      ep.waiting.push(w);
      ep.waiting.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    });
  }

  /** Requests in flight now and the peak so far, per endpoint key. */
  stats(key: string): { active: number; peak: number; waiting: number; limit: number } | undefined {
    const ep = this.endpoints.get(key);
    return ep ? { active: ep.active, peak: ep.peak, waiting: ep.waiting.length, limit: ep.limit } : undefined;
  }

  private endpoint(key: string, limit: number): Endpoint {
    let ep = this.endpoints.get(key);
    if (!ep) this.endpoints.set(key, (ep = { limit: Math.max(1, limit), active: 0, peak: 0, waiting: [] }));
    return ep;
  }

  private take(ep: Endpoint): void {
    ep.active++;
    ep.peak = Math.max(ep.peak, ep.active);
  }

  private pump(ep: Endpoint): void {
    while (ep.active < ep.limit && ep.waiting.length) ep.waiting.shift()!.grant();
  }
}

/** `inner` whose every stream first takes a slot of `key`, held until the stream ends (whatever way). */
export function scheduledProvider(inner: LlmProvider, scheduler: RequestScheduler, slot: { key: string; limit: number; priority: number }, onQueued?: (waiting: boolean) => void): LlmProvider {
  return {
    id: inner.id,
    listModels: (s) => inner.listModels(s),
    modelInfo: (m, s) => inner.modelInfo(m, s),
    stream: (request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> => ({
      async *[Symbol.asyncIterator]() {
        let release: (() => void) | undefined;
        try {
          onQueued?.(true);
          release = await scheduler.acquire(slot.key, slot.limit, slot.priority, signal);
        } catch {
          yield { type: "error", error: { kind: "aborted", message: "interrupted while waiting for a request slot", retryable: false, fallbackable: false } };
          return;
        } finally {
          onQueued?.(false);
        }
        try {
          yield* inner.stream(request, signal);
        } finally {
          release();
        }
      },
    }),
  };
}
