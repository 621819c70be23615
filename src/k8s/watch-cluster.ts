/**
 * The continuous watch over informers (src/k8s/informer.ts): one per resource in scope, findings recomputed from
 * their stores after a change (debounced), so a pod that starts crash-looping is reported within about a second
 * instead of at the next poll. Emits the same WatchUpdate stream as the polling loop (src/k8s/watch-loop.ts): the
 * first complete view, then what appeared/resolved; each fault once; "unreadable" once per outage (every resource
 * failing) and "recovered" after it. A resource whose watch is refused is polled instead. Never throws.
 */
import { enrichFindings, type TailCache } from "./enrich.ts";
import type { Finding } from "./findings-types.ts";
import { Informer } from "./informer.ts";
import type { KubeClient } from "./kube-client.ts";
import { KubeError } from "./kube-client.ts";
import { resourceSpecs } from "./resources.ts";
import { evaluate, selectorOf, type KubeFault, type RawLists, type WatchScope } from "./snapshot.ts";
import { diffFindings, MAX_BACKOFF_MS, type WatchUpdate } from "./watch-loop.ts";

export interface WatchClusterOptions {
  /** Poll period for resources that cannot be watched, and the base of the retry backoff. */
  intervalMs: number;
  /** Re-list period while watching (default: intervalMs): time-based findings (missed CronJob runs) are re-checked too. */
  resyncMs?: number;
  /** Quiet time after a change before the findings are recomputed (default 1 s). */
  debounceMs?: number;
  /** Emit `findings` after every recompute (resyncs included), not only when something appeared or resolved (a session's "last check"). */
  everyCheck?: boolean;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Faults about the connection rather than one resource: reported as "unreadable" when everything fails, else retried. */
const CONNECTION = new Set(["unreachable", "tls", "unauthorized"]);

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function watchCluster(client: KubeClient, scope: WatchScope, o: WatchClusterOptions, signal: AbortSignal, onUpdate: (u: WatchUpdate) => void): Promise<void> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? abortableSleep;
  let selector: string | undefined;
  // The --deployment's selector comes first: nothing is in scope without it.
  for (let failures = 0; ; ) {
    if (signal.aborted) return;
    try {
      selector = await selectorOf(client, scope);
      if (failures) onUpdate({ type: "recovered" });
      break;
    } catch (err) {
      failures++;
      const wait = Math.min(o.intervalMs * 2 ** failures, MAX_BACKOFF_MS);
      if (failures === 1) onUpdate({ type: "unreadable", kind: err instanceof KubeError ? err.kind : "error", message: (err as Error)?.message ?? String(err), retryInMs: wait, resource: "deployments" });
      await sleep(wait, signal);
    }
  }

  const cache: TailCache = new Map();
  let previous: Finding[] | undefined;
  let faultKeys = new Set<string>();
  let unreadable = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;

  const once = async (): Promise<void> => {
    if (!informers.every((i) => i.synced || i.fault)) return;
    const failing = informers.filter((i) => i.fault);
    if (failing.length === informers.length) {
      if (!unreadable) {
        unreadable = true;
        const first = (failing.find((i) => i.spec.name === "pods") ?? failing[0]) as Informer;
        onUpdate({ type: "unreadable", kind: first.fault?.kind ?? "error", message: first.fault?.message ?? "", retryInMs: first.retryInMs, resource: first.spec.name });
      }
      return;
    }
    if (unreadable) {
      unreadable = false;
      onUpdate({ type: "recovered" });
    }
    const keys = new Set<string>();
    const standing: KubeFault[] = [];
    for (const i of failing) {
      const f = i.fault;
      if (!f) continue;
      if (CONNECTION.has(f.kind)) {
        i.wake(); // the cluster answers others: retry this one now rather than after its backoff
        continue;
      }
      const key = `${f.resource}/${f.kind}`;
      keys.add(key);
      standing.push(f);
      if (!faultKeys.has(key)) onUpdate({ type: "fault", fault: f });
    }
    faultKeys = keys;
    const at = now();
    const raw: RawLists = Object.fromEntries(informers.filter((i) => i.synced).map((i) => [i.spec.name, [...i.store.values()]]));
    const { findings } = evaluate(raw, scope, selector, at);
    if (cache.size > 1000) cache.clear();
    await enrichFindings(client, findings, scope.namespace, cache);
    if (signal.aborted) return;
    const d = diffFindings(previous ?? [], findings);
    if (previous === undefined || o.everyCheck || d.appeared.length || d.resolved.length) onUpdate({ type: "findings", checkedAt: at, ...d, current: findings, faults: standing });
    previous = findings;
  };

  const recompute = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await once();
      } while (again && !signal.aborted);
    } catch {
      // evaluate/enrich do not throw; a bug here must not end the watch
    } finally {
      running = false;
    }
  };

  const schedule = (): void => {
    if (timer || signal.aborted) return;
    timer = setTimeout(() => {
      timer = undefined;
      void recompute();
    }, previous === undefined ? 0 : (o.debounceMs ?? 1000));
  };

  const informers = resourceSpecs(scope, selector).map((spec) => new Informer(client, spec, { resyncMs: o.resyncMs ?? o.intervalMs, intervalMs: o.intervalMs, namespace: scope.namespace, sleep, onChange: schedule }));
  await Promise.all(informers.map((i) => i.run(signal)));
  if (timer) clearTimeout(timer);
}
