/** Deployment, CronJob and Node findings, pure over listed objects. */
import { countRuns, parseCron } from "./cron-schedule.ts";
import type { CronJob, Deployment, Job, KubeNode, ReplicaSet } from "./kube-schemas.ts";
import type { Finding } from "./findings-types.ts";

/** A CronJob is stale when at least this many scheduled runs passed without a schedule (the grace for a slow controller). */
export const MISSED_SCHEDULES_THRESHOLD = 2;
/** Look back at most this far for missed runs (the controller itself gives up after 100). */
const MISSED_LOOKBACK_MS = 7 * 24 * 3600_000;

/** The Deployment's newest ReplicaSet (highest revision): the one a stuck rollout is waiting on. */
function newestReplicaSet(d: Deployment, replicasets: readonly ReplicaSet[]): ReplicaSet | undefined {
  const owned = replicasets.filter((rs) => rs.metadata.ownerReferences?.some((o) => o.kind === "Deployment" && o.name === d.metadata.name));
  const rev = (rs: ReplicaSet) => Number(rs.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0);
  return owned.sort((a, b) => rev(b) - rev(a))[0];
}

export function deploymentFindings(d: Deployment, replicasets: readonly ReplicaSet[] = []): Finding[] {
  const progressing = d.status?.conditions?.find((c) => c.type === "Progressing");
  if (progressing?.reason !== "ProgressDeadlineExceeded") return [];
  const ns = d.metadata.namespace;
  const e: Finding["evidence"] = {
    reason: "ProgressDeadlineExceeded",
    desired: d.spec?.replicas ?? 1,
    updated: d.status?.updatedReplicas ?? 0,
    ready: d.status?.readyReplicas ?? 0,
    available: d.status?.availableReplicas ?? 0,
  };
  if (progressing.message) e.message = progressing.message;
  const rs = newestReplicaSet(d, replicasets);
  if (rs) {
    e.newReplicaSet = rs.metadata.name;
    e.newReplicaSetReady = `${rs.status?.readyReplicas ?? 0}/${rs.spec?.replicas ?? rs.status?.replicas ?? 0}`;
  }
  return [{ kind: "RolloutStuck", severity: "critical", object: { kind: "Deployment", name: d.metadata.name, ...(ns ? { namespace: ns } : {}) }, summary: `rollout of deployment ${d.metadata.name} is stuck (${e.updated}/${e.desired} updated, ${e.ready} ready)`, evidence: e }];
}

export function cronJobFindings(cj: CronJob, now: number): Finding[] {
  if (cj.spec.suspend) return [];
  const schedule = parseCron(cj.spec.schedule);
  if (!schedule) return [];
  const lastText = cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp;
  const last = lastText ? Date.parse(lastText) : Number.NaN;
  if (Number.isNaN(last)) return [];
  const missed = countRuns(schedule, Math.max(last, now - MISSED_LOOKBACK_MS), now);
  if (missed < MISSED_SCHEDULES_THRESHOLD) return [];
  const ns = cj.metadata.namespace;
  const e: Finding["evidence"] = { schedule: cj.spec.schedule, missedSchedules: missed >= 100 ? "100+" : missed };
  if (cj.status?.lastScheduleTime) e.lastScheduleTime = cj.status.lastScheduleTime;
  if (cj.status?.lastSuccessfulTime) e.lastSuccessfulTime = cj.status.lastSuccessfulTime;
  return [{ kind: "CronJobMissedSchedules", severity: "warning", object: { kind: "CronJob", name: cj.metadata.name, ...(ns ? { namespace: ns } : {}) }, summary: `cronjob ${cj.metadata.name} missed ${e.missedSchedules} scheduled runs (last ${cj.status?.lastScheduleTime ?? "never"})`, evidence: e }];
}

const PRESSURE = ["MemoryPressure", "DiskPressure", "PIDPressure"];

export function nodeFindings(n: KubeNode): Finding[] {
  const out: Finding[] = [];
  const ref = { kind: "Node" as const, name: n.metadata.name };
  for (const c of n.status?.conditions ?? []) {
    if (c.type === "Ready" && c.status !== "True") {
      const e: Finding["evidence"] = { condition: "Ready", status: c.status };
      if (c.reason) e.reason = c.reason;
      if (c.message) e.message = c.message;
      if (c.lastTransitionTime) e.since = c.lastTransitionTime;
      out.push({ kind: "NodeNotReady", severity: "critical", object: ref, summary: `node ${n.metadata.name} is NotReady (${c.reason ?? c.status})`, evidence: e });
    }
    if (PRESSURE.includes(c.type) && c.status === "True") {
      const e: Finding["evidence"] = { condition: c.type };
      if (c.reason) e.reason = c.reason;
      if (c.message) e.message = c.message;
      if (c.lastTransitionTime) e.since = c.lastTransitionTime;
      out.push({ kind: "NodePressure", severity: "warning", object: ref, summary: `node ${n.metadata.name} has ${c.type}`, evidence: e });
    }
  }
  return out;
}

/** A Job that gave up (Failed=True: BackoffLimitExceeded, DeadlineExceeded), naming the CronJob that made it. */
export function jobFindings(j: Job): Finding[] {
  const failed = j.status?.conditions?.find((c) => c.type === "Failed" && c.status === "True");
  if (!failed) return [];
  const ns = j.metadata.namespace;
  const e: Finding["evidence"] = { failedPods: j.status?.failed ?? 0 };
  if (failed.reason) e.reason = failed.reason;
  if (failed.message) e.message = failed.message;
  if (j.spec?.backoffLimit !== undefined) e.backoffLimit = j.spec.backoffLimit;
  const owner = j.metadata.ownerReferences?.find((o) => o.kind === "CronJob")?.name;
  if (owner) e.cronJob = owner;
  return [{ kind: "JobFailed", severity: "warning", object: { kind: "Job", name: j.metadata.name, ...(ns ? { namespace: ns } : {}) }, summary: `job ${j.metadata.name} failed (${failed.reason ?? "Failed"})`, evidence: e }];
}
