// Every finding of issue 23, each on its own against the fake HTTPS API server (one failing object beside a healthy
// pod): detected by `takeSnapshot`, with its evidence; the scoping flags; and in every scenario the request log shows
// no Secret (or ConfigMap) was asked for.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient } from "../../src/k8s/kube-client.ts";
import { takeSnapshot, type SnapshotResult, type WatchScope } from "../../src/k8s/snapshot.ts";
import type { Finding } from "../../src/k8s/findings-types.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube, type FakeKubeOptions, type KubeObject, type KubeState } from "../support/fake-kube-api.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

const pki: KubePki | undefined = hasOpenssl() ? makeKubePki() : undefined;
const dir = mkdtempSync(join(tmpdir(), "chatcli-findings-live-"));
const all = kubeFixtures();
let kube: FakeKube | undefined;

afterEach(() => {
  if (!kube) return;
  expect(kube.requests.length).toBeGreaterThan(0);
  expect(kube.requests.some((r) => /\/(secrets|configmaps)(\/|$)/.test(r.path))).toBe(false);
  kube.stop();
  kube = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const named = (list: KubeObject[] | undefined, ...names: string[]) => (list ?? []).filter((o) => names.includes(o.metadata.name));

/** A cluster holding only `state` (plus a healthy pod and the Secret that must never be read). */
async function look(state: Partial<KubeState>, scope: Partial<WatchScope> = {}, o: Partial<FakeKubeOptions> = {}): Promise<SnapshotResult> {
  kube = startFakeKube({ pki: pki as KubePki, token: "tok", state: { ...state, pods: [...named(all.pods, "api-healthy"), ...(state.pods ?? [])], secrets: all.secrets ?? [], logs: all.logs ?? {} }, ...o });
  const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { namespace: "shop" }) }));
  return takeSnapshot(client, { namespace: "shop", ...scope }, NOW);
}

function only(snap: SnapshotResult, kind: Finding["kind"]): Finding {
  expect(snap.faults).toEqual([]);
  expect(snap.findings.map((f) => f.kind)).toEqual(snap.findings.map(() => kind));
  expect(snap.findings.length).toBeGreaterThanOrEqual(1);
  return snap.findings[0] as Finding;
}

describe.skipIf(!pki)("each finding against the fake API server", () => {
  test("CrashLoopBackOff: last terminated state and the previous container's log tail", async () => {
    const f = only(await look({ pods: named(all.pods, "api-crash") }), "CrashLoopBackOff");
    expect(f).toMatchObject({ severity: "critical", object: { kind: "Pod", name: "api-crash", namespace: "shop", container: "app" } });
    expect(f.evidence).toMatchObject({ restartCount: 7, lastExitCode: 1, lastReason: "Error", waitingMessage: expect.stringContaining("back-off 5m0s") });
    expect(String(f.evidence.lastFinishedAt)).toMatch(/^2026-12-02T00:5/);
    const tail = String(f.evidence.previousLogTail).split("\n");
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe("line 62");
    expect(tail.at(-1)).toBe("panic: cannot connect to db at db:5432: connection refused");
    expect(kube?.requests.find((r) => r.path.endsWith("/pods/api-crash/log"))?.query).toMatchObject({ previous: "true", tailLines: "20", container: "app" });
  });

  test("OOMKilled: the limit against metrics-server's usage", async () => {
    const f = only(await look({ pods: named(all.pods, "api-oom"), podmetrics: all.podmetrics ?? [] }, {}, { metricsServer: true }), "OOMKilled");
    expect(f.severity).toBe("critical");
    expect(f.evidence).toMatchObject({ exitCode: 137, memoryLimit: "256Mi", memoryLimitBytes: 268435456, memoryUsage: "250880Ki", memoryUsageBytes: 256901120, memoryUsagePercentOfLimit: 96 });
    expect(f.summary).toContain("limit 256Mi, using 245Mi now, 96% of it");
    expect(kube?.requests.some((r) => r.path === "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/api-oom")).toBe(true);
  });

  test("OOMKilled without metrics-server (404): the usage is omitted, not an error", async () => {
    const f = only(await look({ pods: named(all.pods, "api-oom") }), "OOMKilled");
    expect(f.evidence).toMatchObject({ exitCode: 137, memoryLimit: "256Mi" });
    expect(Object.keys(f.evidence).filter((k) => k.startsWith("memoryUsage"))).toEqual([]);
    expect(kube?.requests.some((r) => r.path.startsWith("/apis/metrics.k8s.io/"))).toBe(true);
  });

  test("ImagePullBackOff and ErrImagePull: the image and the runtime's message", async () => {
    const snap = await look({ pods: named(all.pods, "api-image", "api-errimage") });
    expect(snap.findings.map((f) => [f.kind, f.object.name, f.evidence.reason]).sort()).toEqual([["ImagePullBackOff", "api-errimage", "ErrImagePull"], ["ImagePullBackOff", "api-image", "ImagePullBackOff"]]);
    expect(snap.findings.find((f) => f.object.name === "api-image")?.evidence).toMatchObject({ image: "shop/api:nope", message: 'Back-off pulling image "shop/api:nope"' });
    expect(snap.findings.find((f) => f.object.name === "api-errimage")?.evidence).toMatchObject({ image: "shop/api:1.2", message: "rpc error: manifest unknown" });
  });

  test("Pending with the scheduler's reason", async () => {
    const f = only(await look({ pods: named(all.pods, "api-pending") }), "PendingUnschedulable");
    expect(f.evidence).toMatchObject({ phase: "Pending", reason: "Unschedulable", message: "0/3 nodes are available: 3 Insufficient memory." });
    expect(f.summary).toContain("Insufficient memory");
  });

  test("readiness probe failing (the kubelet's Unhealthy events)", async () => {
    const f = only(await look({ pods: named(all.pods, "api-unready"), events: all.events ?? [] }), "ProbeFailure");
    expect(f.evidence).toMatchObject({ probe: "readiness", failures: 14, message: expect.stringContaining("statuscode: 503") });
  });

  test("liveness probe failing", async () => {
    const live: KubeObject = { kind: "Pod", metadata: { name: "api-live", namespace: "shop", labels: { app: "api" } }, spec: { containers: [{ name: "app" }] }, status: { phase: "Running", containerStatuses: [{ name: "app", ready: true, restartCount: 1, state: { running: {} } }] } };
    const ev: KubeObject = { kind: "Event", metadata: { name: "api-live.1", namespace: "shop" }, type: "Warning", reason: "Unhealthy", message: "Liveness probe failed: Get \"http://10.0.0.7:8080/healthz\": context deadline exceeded", count: 4, involvedObject: { kind: "Pod", name: "api-live", namespace: "shop" } };
    const f = only(await look({ pods: [live], events: [ev] }), "ProbeFailure");
    expect(f.evidence).toMatchObject({ probe: "liveness", failures: 4 });
    expect(f.summary).toContain("liveness probe failing");
  });

  test("restart storm", async () => {
    const f = only(await look({ pods: named(all.pods, "api-storm") }), "RestartStorm");
    expect(f.evidence).toMatchObject({ restartCount: 12, threshold: 5, lastExitCode: 2 });
  });

  test("rollout stuck (ProgressDeadlineExceeded), naming the new ReplicaSet", async () => {
    const f = only(await look({ deployments: all.deployments ?? [], replicasets: all.replicasets ?? [] }), "RolloutStuck");
    expect(f).toMatchObject({ severity: "critical", object: { kind: "Deployment", name: "api" } });
    expect(f.evidence).toMatchObject({ reason: "ProgressDeadlineExceeded", desired: 3, updated: 1, ready: 1, newReplicaSet: "api-7d9", newReplicaSetReady: "0/1" });
  });

  test("CronJob that missed its schedules (not the fresh or suspended ones)", async () => {
    const f = only(await look({ cronjobs: all.cronjobs ?? [] }), "CronJobMissedSchedules");
    expect(f.object.name).toBe("report");
    expect(f.evidence).toMatchObject({ schedule: "*/5 * * * *", missedSchedules: 24, lastScheduleTime: "2026-12-01T23:00:00.000Z" });
  });

  test("a failed Job, naming its CronJob", async () => {
    const f = only(await look({ jobs: all.jobs ?? [] }), "JobFailed");
    expect(f.evidence).toMatchObject({ reason: "BackoffLimitExceeded", failedPods: 7, backoffLimit: 6, cronJob: "report" });
  });

  test("nodes: Memory/Disk/PID pressure and NotReady", async () => {
    const snap = await look({ nodes: all.nodes ?? [] });
    expect(snap.findings.map((f) => `${f.kind} ${f.object.name} ${f.evidence.condition}`).sort()).toEqual(["NodeNotReady node-b Ready", "NodePressure node-a MemoryPressure", "NodePressure node-c DiskPressure", "NodePressure node-c PIDPressure"]);
    expect(snap.findings.find((f) => f.kind === "NodeNotReady")).toMatchObject({ severity: "critical", evidence: { status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status." } });
  });

  test("--deployment D: its pods (by its matchLabels), itself, and their nodes only", async () => {
    const web: KubeObject = { kind: "Pod", metadata: { name: "web-1", namespace: "shop", labels: { app: "web" } }, spec: { nodeName: "node-c", containers: [{ name: "web" }] }, status: { phase: "Running", containerStatuses: [{ name: "web", restartCount: 9, state: { running: {} } }] } };
    const snap = await look({ ...all, pods: [...(all.pods ?? []), web] }, { deployment: "web" });
    expect(snap.findings.map((f) => `${f.kind} ${f.object.name}`).sort()).toEqual(["NodePressure node-c", "NodePressure node-c", "RestartStorm web-1"]);
    expect(kube?.requests.filter((r) => r.path === "/api/v1/namespaces/shop/pods").map((r) => r.query.labelSelector)).toEqual(["app=web"]);
  });

  test("--selector L: only matching pods, jobs and cronjobs", async () => {
    const snap = await look({ ...all, cronjobs: (all.cronjobs ?? []).map((c) => ({ ...c, metadata: { ...c.metadata, labels: { app: "batch" } } })) }, { selector: "app=api" });
    const kinds = new Set(snap.findings.map((f) => f.kind));
    expect(kinds.has("CrashLoopBackOff")).toBe(true);
    expect(kinds.has("CronJobMissedSchedules")).toBe(false);
    for (const path of ["/api/v1/namespaces/shop/pods", "/apis/batch/v1/namespaces/shop/cronjobs", "/apis/batch/v1/namespaces/shop/jobs"]) expect(kube?.requests.find((r) => r.path === path)?.query.labelSelector).toBe("app=api");
    // Nodes narrowed to those the selected pods run on.
    expect(snap.findings.filter((f) => f.object.kind === "Node").map((f) => f.object.name)).toEqual(["node-a"]);
  });

  test("a server that does not serve replicasets, jobs or cronjobs: no fault, the rest is reported", async () => {
    const snap = await look({ ...all }, {}, { unserved: ["replicasets", "jobs", "cronjobs"] });
    expect(snap.faults).toEqual([]);
    expect(snap.findings.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    expect(snap.counts).toMatchObject({ replicasets: 0, jobs: 0, cronjobs: 0 });
  });
});
