/**
 * Pod findings, pure over listed objects: CrashLoopBackOff (last terminated state; the previous container's log tail
 * is added by the caller, which fetched it), OOMKilled, ImagePullBackOff/ErrImagePull, Pending with the scheduler's
 * reason, readiness/liveness probe failures (from Unhealthy events, or a Ready=False condition), restart storms.
 */
import type { KubeEvent, Pod } from "./kube-schemas.ts";
import type { Finding } from "./findings-types.ts";

/** Restarts at or above this count, on a container that is not already in CrashLoopBackOff, make a storm. */
export const RESTART_STORM_THRESHOLD = 5;
/** A pod Ready=False for longer than this (with no probe event to explain it) is reported. */
export const NOT_READY_GRACE_MS = 120_000;

const IMAGE_REASONS = new Set(["ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"]);

type Evidence = Finding["evidence"];

function put(e: Evidence, key: string, v: string | number | boolean | undefined): void {
  if (v !== undefined && v !== "") e[key] = v;
}

export function podFindings(pod: Pod, events: readonly KubeEvent[], now: number): Finding[] {
  const out: Finding[] = [];
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const limits = new Map((pod.spec?.containers ?? []).map((c) => [c.name, c.resources?.limits?.memory]));
  for (const cs of statuses) {
    const ref = { kind: "Pod" as const, name, ...(ns ? { namespace: ns } : {}), container: cs.name };
    const waiting = cs.state?.waiting;
    const last = cs.lastState?.terminated ?? cs.state?.terminated;
    const restarts = cs.restartCount ?? 0;
    if (waiting?.reason === "CrashLoopBackOff") {
      const e: Evidence = { restartCount: restarts };
      put(e, "waitingMessage", waiting.message);
      put(e, "lastExitCode", last?.exitCode);
      put(e, "lastReason", last?.reason);
      put(e, "lastFinishedAt", last?.finishedAt);
      out.push({ kind: "CrashLoopBackOff", severity: "critical", object: ref, summary: `container ${cs.name} of pod ${name} is crash-looping (${restarts} restarts, last exit ${last?.exitCode ?? "?"} ${last?.reason ?? ""})`.trimEnd(), evidence: e });
    }
    if (last?.reason === "OOMKilled") {
      const e: Evidence = { restartCount: restarts, exitCode: last.exitCode ?? 137 };
      put(e, "memoryLimit", limits.get(cs.name));
      put(e, "finishedAt", last.finishedAt);
      out.push({ kind: "OOMKilled", severity: "critical", object: ref, summary: `container ${cs.name} of pod ${name} was OOMKilled${limits.get(cs.name) ? ` (limit ${limits.get(cs.name)})` : ""}`, evidence: e });
    }
    if (waiting?.reason && IMAGE_REASONS.has(waiting.reason)) {
      const e: Evidence = { reason: waiting.reason };
      put(e, "image", cs.image ?? pod.spec?.containers?.find((c) => c.name === cs.name)?.image);
      put(e, "message", waiting.message);
      out.push({ kind: "ImagePullBackOff", severity: "critical", object: ref, summary: `pod ${name} cannot pull the image of container ${cs.name} (${waiting.reason})`, evidence: e });
    }
    if (restarts >= RESTART_STORM_THRESHOLD && waiting?.reason !== "CrashLoopBackOff") {
      const e: Evidence = { restartCount: restarts, threshold: RESTART_STORM_THRESHOLD };
      put(e, "lastExitCode", last?.exitCode);
      put(e, "lastReason", last?.reason);
      out.push({ kind: "RestartStorm", severity: "warning", object: ref, summary: `container ${cs.name} of pod ${name} has restarted ${restarts} times`, evidence: e });
    }
  }
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  if (pod.status?.phase === "Pending" && scheduled?.status === "False") {
    const e: Evidence = { phase: "Pending" };
    put(e, "reason", scheduled.reason);
    put(e, "message", scheduled.message);
    put(e, "since", scheduled.lastTransitionTime);
    out.push({ kind: "PendingUnschedulable", severity: "warning", object: { kind: "Pod", name, ...(ns ? { namespace: ns } : {}) }, summary: `pod ${name} is Pending: ${scheduled.message ?? scheduled.reason ?? "not scheduled"}`, evidence: e });
  }
  out.push(...probeFindings(pod, events, now));
  return out;
}

/** Readiness/liveness failures: the kubelet's Unhealthy events name the probe; a long Ready=False is the fallback. */
function probeFindings(pod: Pod, events: readonly KubeEvent[], now: number): Finding[] {
  const ns = pod.metadata.namespace;
  const ref = { kind: "Pod" as const, name: pod.metadata.name, ...(ns ? { namespace: ns } : {}) };
  const unhealthy = events.filter((ev) => ev.reason === "Unhealthy" && ev.involvedObject?.name === pod.metadata.name && (ev.involvedObject.namespace ?? ns) === ns);
  if (unhealthy.length) {
    const latest = unhealthy[unhealthy.length - 1];
    const probe = /^(\w+) probe/i.exec(latest?.message ?? "")?.[1]?.toLowerCase() ?? "probe";
    const e: Evidence = { probe, failures: unhealthy.reduce((n, ev) => n + (ev.count ?? 1), 0) };
    put(e, "message", latest?.message);
    put(e, "lastSeen", latest?.lastTimestamp ?? undefined);
    return [{ kind: "ProbeFailure", severity: "warning", object: ref, summary: `pod ${pod.metadata.name}: ${probe} probe failing`, evidence: e }];
  }
  const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
  const since = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  if (pod.status?.phase === "Running" && ready?.status === "False" && now - since > NOT_READY_GRACE_MS) {
    const e: Evidence = { probe: "readiness", since: ready.lastTransitionTime ?? "" };
    put(e, "reason", ready.reason);
    return [{ kind: "ProbeFailure", severity: "warning", object: ref, summary: `pod ${pod.metadata.name} is running but not ready`, evidence: e }];
  }
  return [];
}
