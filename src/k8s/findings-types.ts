/** A finding: something in the cluster that needs a look, with the evidence that shows it. English: it is for the model too. */
export type Severity = "critical" | "warning" | "info";

export type FindingKind =
  | "CrashLoopBackOff"
  | "OOMKilled"
  | "ImagePullBackOff"
  | "PendingUnschedulable"
  | "ProbeFailure"
  | "RestartStorm"
  | "RolloutStuck"
  | "CronJobMissedSchedules"
  | "NodePressure"
  | "NodeNotReady"
  | "JobFailed";

export interface ObjectRef {
  kind: "Pod" | "Deployment" | "CronJob" | "Node" | "Job";
  name: string;
  namespace?: string;
  container?: string;
}

export interface Finding {
  kind: FindingKind;
  severity: Severity;
  object: ObjectRef;
  /** One line a person reads first. */
  summary: string;
  /** The facts behind it: reasons, exit codes, counts, messages, log tails. */
  evidence: Record<string, string | number | boolean>;
}

const RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

export function bySeverity(a: Finding, b: Finding): number {
  return RANK[a.severity] - RANK[b.severity] || a.kind.localeCompare(b.kind) || a.object.name.localeCompare(b.object.name);
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { critical: 0, warning: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}
