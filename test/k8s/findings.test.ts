// The findings engine over the fixture objects (the shapes a real API server returns), one test per finding.
import { describe, expect, test } from "bun:test";
import { findingsOf, type Snapshot } from "../../src/k8s/findings.ts";
import { podFindings } from "../../src/k8s/findings-pods.ts";
import { cronJobFindings, nodeFindings } from "../../src/k8s/findings-workloads.ts";
import { countRuns, parseCron } from "../../src/k8s/cron-schedule.ts";
import { CronJob, Deployment, KubeEvent, KubeNode, Pod } from "../../src/k8s/kube-schemas.ts";
import type { Finding } from "../../src/k8s/findings-types.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

function snapshot(): Snapshot {
  const f = kubeFixtures();
  return {
    pods: (f.pods ?? []).map((p) => Pod.parse(p)),
    events: (f.events ?? []).map((e) => KubeEvent.parse(e)),
    deployments: (f.deployments ?? []).map((d) => Deployment.parse(d)),
    cronjobs: (f.cronjobs ?? []).map((c) => CronJob.parse(c)),
    nodes: (f.nodes ?? []).map((n) => KubeNode.parse(n)),
  };
}

const all = findingsOf(snapshot(), NOW);
const of = (kind: Finding["kind"], name: string) => all.filter((f) => f.kind === kind && f.object.name === name);

describe("findings", () => {
  test("CrashLoopBackOff: critical, with the last terminated state", () => {
    const [f] = of("CrashLoopBackOff", "api-crash");
    expect(f?.severity).toBe("critical");
    expect(f?.object).toEqual({ kind: "Pod", name: "api-crash", namespace: "shop", container: "app" });
    expect(f?.evidence).toMatchObject({ restartCount: 7, lastExitCode: 1, lastReason: "Error" });
    // a crash-looping container is not also a "restart storm"
    expect(of("RestartStorm", "api-crash")).toEqual([]);
  });

  test("OOMKilled: critical, with exit code and the memory limit", () => {
    const [f] = of("OOMKilled", "api-oom");
    expect(f?.severity).toBe("critical");
    expect(f?.evidence).toMatchObject({ exitCode: 137, memoryLimit: "256Mi", restartCount: 2 });
  });

  test("ImagePullBackOff and ErrImagePull: critical, with the image and message", () => {
    expect(of("ImagePullBackOff", "api-image")[0]?.evidence).toMatchObject({ reason: "ImagePullBackOff", image: "shop/api:nope" });
    expect(of("ImagePullBackOff", "api-errimage")[0]?.evidence).toMatchObject({ reason: "ErrImagePull", message: "rpc error: manifest unknown" });
  });

  test("Pending with the scheduler's reason", () => {
    const [f] = of("PendingUnschedulable", "api-pending");
    expect(f?.severity).toBe("warning");
    expect(f?.evidence).toMatchObject({ reason: "Unschedulable", message: "0/3 nodes are available: 3 Insufficient memory." });
  });

  test("readiness probe failure from the kubelet's Unhealthy events", () => {
    const [f] = of("ProbeFailure", "api-unready");
    expect(f?.evidence).toMatchObject({ probe: "readiness", failures: 14 });
    expect(String(f?.evidence.message)).toContain("statuscode: 503");
  });

  test("a long Ready=False without events is still a readiness failure; a fresh one is not", () => {
    const pod = Pod.parse({ metadata: { name: "p", namespace: "x" }, status: { phase: "Running", conditions: [{ type: "Ready", status: "False", lastTransitionTime: new Date(NOW - 600_000).toISOString() }] } });
    expect(podFindings(pod, [], NOW).map((f) => f.kind)).toEqual(["ProbeFailure"]);
    expect(podFindings(pod, [], NOW - 590_000)).toEqual([]);
  });

  test("restart storm on a running container", () => {
    const [f] = of("RestartStorm", "api-storm");
    expect(f?.severity).toBe("warning");
    expect(f?.evidence).toMatchObject({ restartCount: 12, lastExitCode: 2 });
  });

  test("rollout stuck: progressDeadlineExceeded", () => {
    const [f] = of("RolloutStuck", "api");
    expect(f?.severity).toBe("critical");
    expect(f?.evidence).toMatchObject({ reason: "ProgressDeadlineExceeded", desired: 3, updated: 1, ready: 1 });
    expect(of("RolloutStuck", "web")).toEqual([]);
  });

  test("CronJob missed schedules; a recent or suspended one is fine", () => {
    const [f] = of("CronJobMissedSchedules", "report");
    expect(f?.evidence).toMatchObject({ schedule: "*/5 * * * *", missedSchedules: 24 });
    expect(of("CronJobMissedSchedules", "fresh")).toEqual([]);
    expect(of("CronJobMissedSchedules", "paused")).toEqual([]);
  });

  test("node pressure and NotReady", () => {
    expect(of("NodePressure", "node-a")[0]?.evidence).toMatchObject({ condition: "MemoryPressure" });
    expect(of("NodeNotReady", "node-b")[0]).toMatchObject({ severity: "critical", evidence: { status: "Unknown", reason: "NodeStatusUnknown" } });
    expect(of("NodePressure", "node-c").map((f) => f.evidence.condition).sort()).toEqual(["DiskPressure", "PIDPressure"]);
  });

  test("healthy objects yield nothing; the list is ordered critical first", () => {
    expect(all.filter((f) => f.object.name === "api-healthy" || f.object.name === "web")).toEqual([]);
    const ranks = all.map((f) => ["critical", "warning", "info"].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  test("cron: lists, ranges, steps, macros; day-of-month OR day-of-week", () => {
    const at = (iso: string) => new Date(iso);
    expect(parseCron("0 9 * * 1-5")?.matches(at("2026-12-07T09:00:00Z"))).toBe(true); // a Monday
    expect(parseCron("0 9 * * 1-5")?.matches(at("2026-12-06T09:00:00Z"))).toBe(false); // a Sunday
    expect(parseCron("0 0 1 * 0")?.matches(at("2026-12-06T00:00:00Z"))).toBe(true); // Sunday, not the 1st
    expect(parseCron("@hourly") && countRuns(parseCron("@hourly")!, NOW - 3 * 3600_000, NOW)).toBe(3);
    expect(parseCron("61 * * * *")).toBeUndefined();
    const cj = CronJob.parse({ metadata: { name: "bad" }, spec: { schedule: "not cron" }, status: { lastScheduleTime: new Date(NOW - 1e9).toISOString() } });
    expect(cronJobFindings(cj, NOW)).toEqual([]);
    expect(nodeFindings(KubeNode.parse({ metadata: { name: "ok" }, status: { conditions: [{ type: "Ready", status: "True" }] } }))).toEqual([]);
  });
});
