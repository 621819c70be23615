/**
 * The kinds the k8s_* tools read, by the names people and models use (`po`, `deploy`, `Deployment`, `pods`), mapped
 * onto API paths. Secrets are not in the table on purpose: chatcli never reads them, not even their names (listing
 * Secrets, even as metadata, is a read of the secrets resource, which a read-only watcher has no business asking for).
 * ConfigMaps are read as metadata only (names and labels, never the data).
 */
export interface KindInfo {
  kind: string;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  resource: string;
  namespaced: boolean;
  /** Read with the PartialObjectMetadata Accept header and stripped to metadata: the values are never asked for. */
  metadataOnly?: boolean;
}

const K = (kind: string, base: string, resource: string, namespaced = true, metadataOnly = false): KindInfo => ({ kind, base, resource, namespaced, ...(metadataOnly ? { metadataOnly } : {}) });

const TABLE: ReadonlyArray<[string[], KindInfo]> = [
  [["pod", "pods", "po"], K("Pod", "/api/v1", "pods")],
  [["deployment", "deployments", "deploy"], K("Deployment", "/apis/apps/v1", "deployments")],
  [["replicaset", "replicasets", "rs"], K("ReplicaSet", "/apis/apps/v1", "replicasets")],
  [["statefulset", "statefulsets", "sts"], K("StatefulSet", "/apis/apps/v1", "statefulsets")],
  [["daemonset", "daemonsets", "ds"], K("DaemonSet", "/apis/apps/v1", "daemonsets")],
  [["job", "jobs"], K("Job", "/apis/batch/v1", "jobs")],
  [["cronjob", "cronjobs", "cj"], K("CronJob", "/apis/batch/v1", "cronjobs")],
  [["service", "services", "svc"], K("Service", "/api/v1", "services")],
  [["endpoints", "ep"], K("Endpoints", "/api/v1", "endpoints")],
  [["event", "events", "ev"], K("Event", "/api/v1", "events")],
  [["configmap", "configmaps", "cm"], K("ConfigMap", "/api/v1", "configmaps", true, true)],
  [["persistentvolumeclaim", "persistentvolumeclaims", "pvc"], K("PersistentVolumeClaim", "/api/v1", "persistentvolumeclaims")],
  [["ingress", "ingresses", "ing"], K("Ingress", "/apis/networking.k8s.io/v1", "ingresses")],
  [["horizontalpodautoscaler", "horizontalpodautoscalers", "hpa"], K("HorizontalPodAutoscaler", "/apis/autoscaling/v2", "horizontalpodautoscalers")],
  [["node", "nodes", "no"], K("Node", "/api/v1", "nodes", false)],
  [["namespace", "namespaces", "ns"], K("Namespace", "/api/v1", "namespaces", false)],
  [["persistentvolume", "persistentvolumes", "pv"], K("PersistentVolume", "/api/v1", "persistentvolumes", false)],
];

const BY_NAME = new Map<string, KindInfo>(TABLE.flatMap(([names, info]) => names.map((n) => [n, info] as const)));

export const SECRET_KIND = /^(secrets?|sec)$/i;

export const KNOWN_KINDS = TABLE.map(([, info]) => info.kind);

/** `Deployment`, `deployments`, `deploy`, `deployments.apps` → the deployment entry; undefined when unknown. */
export function kindInfo(name: string): KindInfo | undefined {
  const key = name.trim().toLowerCase().replace(/\.(apps|batch|networking\.k8s\.io|autoscaling)$/, "");
  return BY_NAME.get(key);
}

export function resourcePath(info: KindInfo, namespace: string, name?: string): string {
  const ns = info.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${info.base}${ns}/${info.resource}${name ? `/${encodeURIComponent(name)}` : ""}`;
}
