/**
 * metrics.k8s.io (metrics-server): a container's current memory usage, for the OOMKilled "limit vs usage" evidence.
 * A cluster without metrics-server answers 404: the usage is then omitted, not an error.
 */
import type { KubeClient } from "./kube-client.ts";
import { KubeError } from "./kube-client.ts";
import { PodMetrics } from "./kube-schemas.ts";

const SUFFIX: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60, m: 1e-3 };

/** A Kubernetes quantity ("256Mi", "262144Ki", "1.5G", "1e9", "500m") in base units, or undefined. */
export function parseQuantity(q: string): number | undefined {
  const m = /^([+-]?\d+(?:\.\d+)?)(?:(e[+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?)$/.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  return n * (SUFFIX[m[3] ?? ""] ?? 1);
}

/** Bytes as the largest binary unit that keeps one decimal readable: 250.5Mi. */
export function formatBytes(b: number): string {
  const units = ["", "Ki", "Mi", "Gi", "Ti"];
  let v = b;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)}${units[i]}`;
}

export type MemoryUsage = { usage: string; bytes: number } | { error: string } | undefined;

/** The container's memory usage now; undefined when metrics-server is absent (404) or knows no such container. */
export async function containerMemoryUsage(client: KubeClient, namespace: string, pod: string, container: string): Promise<MemoryUsage> {
  try {
    const m = await client.get(`/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`, PodMetrics);
    const raw = m.containers.find((c) => c.name === container)?.usage.memory;
    const bytes = raw === undefined ? undefined : parseQuantity(raw);
    return raw === undefined || bytes === undefined ? undefined : { usage: raw, bytes };
  } catch (err) {
    if (err instanceof KubeError && err.kind === "notFound") return undefined;
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
