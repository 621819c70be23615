/**
 * The resources the watcher reads, in one table shared by the one-shot snapshot and the informer: where each is
 * listed/watched and whether the scope's label selector narrows it. Secrets and ConfigMaps are deliberately absent.
 */
import type { WatchScope } from "./snapshot.ts";

export const RESOURCE_NAMES = ["pods", "events", "deployments", "replicasets", "jobs", "cronjobs", "nodes"] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/**
 * Group resources a server may not serve (404 on the collection = an API group it lacks): empty, not a fault. The
 * core v1 ones (pods, events, nodes) are always served, so a 404 there means the URL is not a Kubernetes API server.
 */
export const MAY_BE_UNSERVED: ReadonlySet<ResourceName> = new Set(["deployments", "replicasets", "jobs", "cronjobs"]);

export interface ResourceSpec {
  name: ResourceName;
  path: string;
  query: Record<string, string>;
}

const BASE: Record<ResourceName, { group: string; selector: boolean; cluster?: true }> = {
  pods: { group: "/api/v1", selector: true },
  // Events carry no labels: they are narrowed to the pods in scope afterwards.
  events: { group: "/api/v1", selector: false },
  // With --selector, the Deployments carrying those labels; with --deployment, filtered by name afterwards (its own
  // labels need not match its pods' selector).
  deployments: { group: "/apis/apps/v1", selector: true },
  replicasets: { group: "/apis/apps/v1", selector: true },
  jobs: { group: "/apis/batch/v1", selector: true },
  cronjobs: { group: "/apis/batch/v1", selector: true },
  nodes: { group: "/api/v1", selector: false, cluster: true },
};

export function resourceSpecs(scope: WatchScope, selector: string | undefined): ResourceSpec[] {
  const ns = encodeURIComponent(scope.namespace);
  return RESOURCE_NAMES.map((name): ResourceSpec => {
    const b = BASE[name];
    const narrow = b.selector && selector && !(name === "deployments" && scope.deployment);
    const query: Record<string, string> = narrow ? { labelSelector: selector } : {};
    return {
      name,
      path: b.cluster ? `${b.group}/${name}` : `${b.group}/namespaces/${ns}/${name}`,
      query,
    };
  });
}
