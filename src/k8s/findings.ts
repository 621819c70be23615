/** All findings of one snapshot of the cluster, most severe first. Pure: the snapshot is fetched elsewhere. */
import { cronJobFindings, deploymentFindings, jobFindings, nodeFindings } from "./findings-workloads.ts";
import { podFindings } from "./findings-pods.ts";
import { bySeverity, type Finding } from "./findings-types.ts";
import type { CronJob, Deployment, Job, KubeEvent, KubeNode, Pod, ReplicaSet } from "./kube-schemas.ts";

export interface Snapshot {
  pods: Pod[];
  events: KubeEvent[];
  deployments: Deployment[];
  cronjobs: CronJob[];
  nodes: KubeNode[];
  jobs?: Job[];
  replicasets?: ReplicaSet[];
}

export function findingsOf(s: Snapshot, now: number): Finding[] {
  return [
    ...s.pods.flatMap((p) => podFindings(p, s.events, now)),
    ...s.deployments.flatMap((d) => deploymentFindings(d, s.replicasets)),
    ...(s.jobs ?? []).flatMap(jobFindings),
    ...s.cronjobs.flatMap((c) => cronJobFindings(c, now)),
    ...s.nodes.flatMap(nodeFindings),
  ].sort(bySeverity);
}
