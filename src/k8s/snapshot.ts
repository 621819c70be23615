/**
 * One look at the cluster in scope: lists pods, events, deployments, cronjobs and nodes (each on its own: a 403 on
 * nodes does not hide the pods), runs the findings, and adds the previous container's log tail to every
 * CrashLoopBackOff. Faults (RBAC, unreachable, expired credentials) are returned, never thrown, except when nothing
 * at all could be read.
 */
import { z } from "zod";
import type { KubeClient, KubeErrorKind } from "./kube-client.ts";
import { KubeError } from "./kube-client.ts";
import { CronJob, Deployment, KubeEvent, KubeNode, listOf, Pod } from "./kube-schemas.ts";
import { findingsOf, type Snapshot } from "./findings.ts";
import type { Finding } from "./findings-types.ts";

export interface WatchScope {
  namespace: string;
  deployment?: string;
  selector?: string;
}

export interface KubeFault {
  resource: string;
  kind: KubeErrorKind;
  status?: number;
  message: string;
}

export interface SnapshotResult {
  findings: Finding[];
  faults: KubeFault[];
  counts: Record<keyof Snapshot, number>;
}

/** Lines of the previous container's log attached to a CrashLoopBackOff. */
export const LOG_TAIL_LINES = 20;

const DeploymentWithSelector = Deployment.extend({ spec: z.looseObject({ replicas: z.number().optional(), selector: z.looseObject({ matchLabels: z.record(z.string(), z.string()).optional() }).optional() }).optional() });

function fault(resource: string, err: unknown): KubeFault {
  if (err instanceof KubeError) return { resource, kind: err.kind, ...(err.status ? { status: err.status } : {}), message: err.message };
  return { resource, kind: "http", message: (err as Error)?.message ?? String(err) };
}

async function selectorOf(client: KubeClient, scope: WatchScope): Promise<string | undefined> {
  if (!scope.deployment) return scope.selector;
  const d = await client.get(`/apis/apps/v1/namespaces/${encodeURIComponent(scope.namespace)}/deployments/${encodeURIComponent(scope.deployment)}`, DeploymentWithSelector);
  const labels = d.spec?.selector?.matchLabels ?? {};
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(",") || undefined;
}

export async function takeSnapshot(client: KubeClient, scope: WatchScope, now: number): Promise<SnapshotResult> {
  const faults: KubeFault[] = [];
  const ns = encodeURIComponent(scope.namespace);
  let selector: string | undefined;
  try {
    selector = await selectorOf(client, scope);
  } catch (err) {
    faults.push(fault("deployments", err));
    return { findings: [], faults, counts: { pods: 0, events: 0, deployments: 0, cronjobs: 0, nodes: 0 } };
  }
  const q: Record<string, string> = selector ? { labelSelector: selector } : {};
  const list = async <T extends z.ZodType>(resource: string, path: string, schema: T, query: Record<string, string> = q): Promise<z.infer<T>[]> => {
    try {
      return (await client.get(path, listOf(schema), query)).items as z.infer<T>[];
    } catch (err) {
      faults.push(fault(resource, err));
      return [];
    }
  };
  const [pods, events, deployments, cronjobs, nodes] = await Promise.all([
    list("pods", `/api/v1/namespaces/${ns}/pods`, Pod),
    list("events", `/api/v1/namespaces/${ns}/events`, KubeEvent, {}),
    list("deployments", `/apis/apps/v1/namespaces/${ns}/deployments`, Deployment, {}).then((ds) => ds.filter((d) => !scope.deployment || d.metadata.name === scope.deployment)),
    list("cronjobs", `/apis/batch/v1/namespaces/${ns}/cronjobs`, CronJob),
    list("nodes", "/api/v1/nodes", KubeNode, {}),
  ]);
  // Nodes in scope: those the pods run on, or all of them when watching the whole namespace.
  const podNodes = new Set(pods.map((p) => p.spec?.nodeName).filter(Boolean));
  const scopedNodes = selector ? nodes.filter((n) => podNodes.has(n.metadata.name)) : nodes;
  const names = new Set(pods.map((p) => p.metadata.name));
  const snapshot = { pods, events: events.filter((e) => e.involvedObject?.kind !== "Pod" || names.has(e.involvedObject.name ?? "")), deployments, cronjobs, nodes: scopedNodes };
  const findings = findingsOf(snapshot, now);
  await Promise.all(findings.filter((f) => f.kind === "CrashLoopBackOff").map(async (f) => {
    try {
      const tail = await client.logs(f.object.namespace ?? scope.namespace, f.object.name, { container: f.object.container, previous: true, tailLines: LOG_TAIL_LINES });
      f.evidence.previousLogTail = tail.trimEnd();
    } catch (err) {
      f.evidence.previousLogError = err instanceof Error ? err.message : String(err);
    }
  }));
  if (faults.length === 5) throw new KubeError(faults[0]?.kind ?? "http", faults[0]?.message ?? "nothing could be read", faults[0]?.resource ?? "", faults[0]?.status);
  return { findings, faults, counts: { pods: pods.length, events: events.length, deployments: deployments.length, cronjobs: cronjobs.length, nodes: scopedNodes.length } };
}
