/**
 * Evidence that needs one more request per finding: the previous container's log tail for a CrashLoopBackOff and
 * the memory usage (metrics.k8s.io) beside the limit for an OOMKilled. A cache keyed by the container's restart count
 * lets a continuous watch avoid fetching the same tail again on every change.
 */
import type { Finding } from "./findings-types.ts";
import type { KubeClient } from "./kube-client.ts";
import { containerMemoryUsage, formatBytes, parseQuantity } from "./metrics.ts";

/** Lines of the previous container's log attached to a CrashLoopBackOff. */
export const LOG_TAIL_LINES = 20;

export type TailCache = Map<string, { tail?: string; error?: string }>;

async function addLogTail(client: KubeClient, f: Finding, namespace: string, cache?: TailCache): Promise<void> {
  const key = `${namespace}/${f.object.name}/${f.object.container ?? ""}#${f.evidence.restartCount ?? ""}`;
  let got = cache?.get(key);
  if (!got) {
    try {
      got = { tail: (await client.logs(namespace, f.object.name, { container: f.object.container, previous: true, tailLines: LOG_TAIL_LINES })).trimEnd() };
    } catch (err) {
      got = { error: err instanceof Error ? err.message : String(err) };
    }
    cache?.set(key, got);
  }
  if (got.tail !== undefined) f.evidence.previousLogTail = got.tail;
  if (got.error !== undefined) f.evidence.previousLogError = got.error;
}

async function addMemoryUsage(client: KubeClient, f: Finding, namespace: string): Promise<void> {
  const used = await containerMemoryUsage(client, namespace, f.object.name, f.object.container ?? "");
  if (!used) return;
  if ("error" in used) {
    f.evidence.memoryUsageError = used.error;
    return;
  }
  f.evidence.memoryUsage = used.usage;
  f.evidence.memoryUsageBytes = used.bytes;
  const limit = typeof f.evidence.memoryLimit === "string" ? parseQuantity(f.evidence.memoryLimit) : undefined;
  if (limit) {
    f.evidence.memoryLimitBytes = limit;
    f.evidence.memoryUsagePercentOfLimit = Math.round((used.bytes / limit) * 100);
  }
  f.summary = `${f.summary.replace(/ \(limit [^)]*\)$/, "")} (limit ${f.evidence.memoryLimit ?? "none"}, using ${formatBytes(used.bytes)} now${limit ? `, ${f.evidence.memoryUsagePercentOfLimit}% of it` : ""})`;
}

/** At most this many evidence requests at once (a namespace with hundreds of crash loops must not flood the API server). */
export const ENRICH_CONCURRENCY = 8;

export async function enrichFindings(client: KubeClient, findings: readonly Finding[], namespace: string, cache?: TailCache): Promise<void> {
  const work = findings.filter((f) => f.kind === "CrashLoopBackOff" || f.kind === "OOMKilled");
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let f = work[next++]; f; f = work[next++]) {
      const ns = f.object.namespace ?? namespace;
      await (f.kind === "CrashLoopBackOff" ? addLogTail(client, f, ns, cache) : addMemoryUsage(client, f, ns));
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENRICH_CONCURRENCY, work.length) }, worker));
}
