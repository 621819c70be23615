/** All findings of one snapshot of the cluster, most severe first. Pure: the snapshot is fetched elsewhere. */
import { cronJobFindings, deploymentFindings, nodeFindings } from "./findings-workloads.ts";
import { podFindings } from "./findings-pods.ts";
import { bySeverity, type Finding } from "./findings-types.ts";
import type { CronJob, Deployment, KubeEvent, KubeNode, Pod } from "./kube-schemas.ts";

export interface Snapshot {
  pods: Pod[];
  events: KubeEvent[];
  deployments: Deployment[];
  cronjobs: CronJob[];
  nodes: KubeNode[];
}

export function findingsOf(s: Snapshot, now: number): Finding[] {
  return [
    ...s.pods.flatMap((p) => podFindings(p, s.events, now)),
    ...s.deployments.flatMap(deploymentFindings),
    ...s.cronjobs.flatMap((c) => cronJobFindings(c, now)),
    ...s.nodes.flatMap(nodeFindings),
  ].sort(bySeverity);
}
