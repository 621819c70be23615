/**
 * The continuous watch by polling: a snapshot every interval; reports what appeared and what resolved, each fault
 * once (until it clears), and backs off exponentially (capped) while the cluster cannot be read at all — it never
 * throws to its caller. Clock and sleep are injected so tests step it without timing.
 */
import type { Finding } from "./findings-types.ts";
import { KubeError } from "./kube-client.ts";
import type { KubeFault, SnapshotResult } from "./snapshot.ts";

export const MAX_BACKOFF_MS = 5 * 60_000;

export type WatchUpdate =
  | { type: "findings"; checkedAt: number; appeared: Finding[]; resolved: Finding[]; current: Finding[]; /** The per-resource faults standing at this check. */ faults?: KubeFault[] }
  | { type: "fault"; fault: KubeFault }
  | { type: "unreadable"; kind: string; message: string; retryInMs: number; /** The resource that failed first (watch-cluster.ts sets it). */ resource?: string }
  | { type: "recovered" };

export interface WatchLoopDeps {
  snapshot(now: number): Promise<SnapshotResult>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
}

export function findingKey(f: Finding): string {
  return [f.kind, f.object.kind, f.object.namespace ?? "", f.object.name, f.object.container ?? ""].join("/");
}

export function diffFindings(before: readonly Finding[], after: readonly Finding[]): { appeared: Finding[]; resolved: Finding[] } {
  const was = new Set(before.map(findingKey));
  const is = new Set(after.map(findingKey));
  return { appeared: after.filter((f) => !was.has(findingKey(f))), resolved: before.filter((f) => !is.has(findingKey(f))) };
}

export async function runWatchLoop(deps: WatchLoopDeps, intervalMs: number, signal: AbortSignal, onUpdate: (u: WatchUpdate) => void): Promise<void> {
  let previous: Finding[] | undefined;
  let faultKeys = new Set<string>();
  let failures = 0;
  while (!signal.aborted) {
    let wait = intervalMs;
    try {
      const at = deps.now();
      const snap = await deps.snapshot(at);
      if (failures > 0) onUpdate({ type: "recovered" });
      failures = 0;
      const keys = new Set<string>();
      for (const f of snap.faults) {
        const key = `${f.resource}/${f.kind}`;
        keys.add(key);
        if (!faultKeys.has(key)) onUpdate({ type: "fault", fault: f });
      }
      faultKeys = keys;
      const d = diffFindings(previous ?? [], snap.findings);
      if (previous === undefined || d.appeared.length || d.resolved.length) onUpdate({ type: "findings", checkedAt: at, ...d, current: snap.findings, faults: snap.faults });
      previous = snap.findings;
    } catch (err) {
      failures++;
      wait = Math.min(intervalMs * 2 ** failures, MAX_BACKOFF_MS);
      // Said once per outage; the retries are silent until it recovers.
      if (failures === 1) onUpdate({ type: "unreadable", kind: err instanceof KubeError ? err.kind : "error", message: (err as Error)?.message ?? String(err), retryInMs: wait });
    }
    if (signal.aborted) break;
    await deps.sleep(wait, signal);
  }
}
