/**
 * One look at the cluster in scope: lists every resource of src/k8s/resources.ts (each on its own: a 403 on nodes
 * does not hide the pods), runs the findings, and adds the evidence that needs a request of its own (log tails,
 * memory usage). Faults (RBAC, unreachable, expired credentials) are returned, never thrown, except when nothing at
 * all could be read — or the `--deployment` itself cannot be, since nothing is in scope without it.
 * `evaluate` is the pure half, shared with the informer (src/k8s/watch-cluster.ts), which keeps the lists itself.
 */
import { z } from "zod";
import type { KubeClient, KubeErrorKind } from "./kube-client.ts";
import { KubeError } from "./kube-client.ts";
import { AnyObject, CronJob, Deployment, Job, KubeEvent, KubeNode, listOf, Pod, ReplicaSet } from "./kube-schemas.ts";
import { findingsOf, type Snapshot } from "./findings.ts";
import type { Finding } from "./findings-types.ts";
import { enrichFindings, type TailCache } from "./enrich.ts";
import { MAY_BE_UNSERVED, RESOURCE_NAMES, resourceSpecs, type ResourceName } from "./resources.ts";

export { LOG_TAIL_LINES } from "./enrich.ts";

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
  /** The verb that was refused (forbidden): list, watch, get. */
  verb?: string;
  /** The namespace asked about; absent for cluster-scoped resources (nodes). */
  namespace?: string;
}

export interface SnapshotResult {
  findings: Finding[];
  faults: KubeFault[];
  counts: Record<keyof Snapshot, number>;
}

export type RawLists = Partial<Record<ResourceName, readonly unknown[]>>;

const DeploymentWithSelector = Deployment.extend({ spec: z.looseObject({ replicas: z.number().optional(), selector: z.looseObject({ matchLabels: z.record(z.string(), z.string()).optional() }).optional() }).optional() });

const CLUSTER_SCOPED = new Set(["nodes"]);

/** A failure as a fault: which resource, what kind, and for a 403 the refused verb (from the Status message). */
export function faultOf(resource: string, err: unknown, namespace?: string): KubeFault {
  const ns = CLUSTER_SCOPED.has(resource) ? {} : namespace ? { namespace } : {};
  if (!(err instanceof KubeError)) return { resource, kind: "http", message: (err as Error)?.message ?? String(err), ...ns };
  const verb = err.kind === "forbidden" ? (/cannot (\w+) resource/.exec(err.message)?.[1] ?? "list") : undefined;
  return { resource, kind: err.kind, ...(err.status ? { status: err.status } : {}), message: err.message, ...(verb ? { verb } : {}), ...ns };
}

/** The resource a request path names (`…/namespaces/shop/deployments/api` → deployments). */
export function resourceOfPath(path: string): string {
  const m = /\/(?:namespaces\/[^/]+\/)?([a-z]+)(?:\/[^/]+)?(?:\/log)?$/.exec(path);
  return m?.[1] ?? "resources";
}

/** The label selector in scope: `--selector` as given, or the `--deployment`'s matchLabels. */
export async function selectorOf(client: KubeClient, scope: WatchScope): Promise<string | undefined> {
  if (!scope.deployment) return scope.selector;
  const d = await client.get(`/apis/apps/v1/namespaces/${encodeURIComponent(scope.namespace)}/deployments/${encodeURIComponent(scope.deployment)}`, DeploymentWithSelector);
  const labels = d.spec?.selector?.matchLabels ?? {};
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(",") || undefined;
}

function parsed<T extends z.ZodType>(items: readonly unknown[] | undefined, schema: T): z.infer<T>[] {
  const out: z.infer<T>[] = [];
  for (const item of items ?? []) {
    const r = schema.safeParse(item);
    if (r.success) out.push(r.data);
  }
  return out;
}

/** The findings of listed objects in scope (pure): deployments by name, events of the pods in scope, their nodes. */
export function evaluate(raw: RawLists, scope: WatchScope, selector: string | undefined, now: number): { findings: Finding[]; counts: Record<keyof Snapshot, number> } {
  const pods = parsed(raw.pods, Pod);
  const nodes = parsed(raw.nodes, KubeNode);
  // Nodes in scope: those the pods run on, or all of them when watching the whole namespace.
  const podNodes = new Set(pods.map((p) => p.spec?.nodeName).filter(Boolean));
  const names = new Set(pods.map((p) => p.metadata.name));
  const snapshot: Snapshot = {
    pods,
    events: parsed(raw.events, KubeEvent).filter((e) => e.involvedObject?.kind !== "Pod" || names.has(e.involvedObject.name ?? "")),
    deployments: parsed(raw.deployments, Deployment).filter((d) => !scope.deployment || d.metadata.name === scope.deployment),
    replicasets: parsed(raw.replicasets, ReplicaSet),
    jobs: parsed(raw.jobs, Job),
    cronjobs: parsed(raw.cronjobs, CronJob),
    nodes: selector ? nodes.filter((n) => podNodes.has(n.metadata.name)) : nodes,
  };
  const counts = Object.fromEntries(Object.entries(snapshot).map(([k, v]) => [k, (v as unknown[]).length])) as Record<keyof Snapshot, number>;
  return { findings: findingsOf(snapshot, now), counts };
}

export async function takeSnapshot(client: KubeClient, scope: WatchScope, now: number, cache?: TailCache): Promise<SnapshotResult> {
  const faults: KubeFault[] = [];
  const selector = await selectorOf(client, scope);
  const raw: RawLists = {};
  await Promise.all(
    resourceSpecs(scope, selector).map(async (spec) => {
      try {
        raw[spec.name] = (await client.get(spec.path, listOf(AnyObject), spec.query)).items;
      } catch (err) {
        // A collection the server does not serve (an API group it lacks) is empty, not a fault.
        if (err instanceof KubeError && err.kind === "notFound" && MAY_BE_UNSERVED.has(spec.name)) raw[spec.name] = [];
        else faults.push(faultOf(spec.name, err, scope.namespace));
      }
    }),
  );
  if (faults.length === RESOURCE_NAMES.length) {
    const first = faults.find((f) => f.resource === "pods") ?? faults[0];
    throw new KubeError(first?.kind ?? "http", first?.message ?? "nothing could be read", `/api/v1/namespaces/${scope.namespace}/pods`, first?.status);
  }
  faults.sort((a, b) => RESOURCE_NAMES.indexOf(a.resource as ResourceName) - RESOURCE_NAMES.indexOf(b.resource as ResourceName));
  const { findings, counts } = evaluate(raw, scope, selector, now);
  await enrichFindings(client, findings, scope.namespace, cache);
  return { findings, faults, counts };
}
