// The informer watch (src/k8s/watch-cluster.ts) against the fake HTTPS API server: list → watch from the list's
// resourceVersion with bookmarks, pushed changes reported with evidence, a dropped stream resumed from the BOOKMARK,
// 410 Gone (in the stream and as HTTP) → re-list, polling where watch is refused, outages said once. The request log
// is the witness; no Secret is ever asked for. No timing is asserted: the tests wait for updates or requests.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient } from "../../src/k8s/kube-client.ts";
import { watchCluster } from "../../src/k8s/watch-cluster.ts";
import type { WatchUpdate } from "../../src/k8s/watch-loop.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube, type FakeKubeOptions, type KubeObject, type RequestRecord } from "../support/fake-kube-api.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

type Findings = Extract<WatchUpdate, { type: "findings" }>;

const pki: KubePki | undefined = hasOpenssl() ? makeKubePki() : undefined;
let running: { kube: FakeKube; stop(): Promise<void>; dir: string } | undefined;

afterEach(async () => {
  if (!running) return;
  await running.stop();
  running.kube.stop();
  rmSync(running.dir, { recursive: true, force: true });
  // Every scenario: Secrets (and ConfigMaps) are never requested.
  expect(running.kube.requests.some((r) => /\/(secrets|configmaps)(\/|$)/.test(r.path))).toBe(false);
  running = undefined;
});

async function start(o: Partial<FakeKubeOptions> = {}, scope: { deployment?: string; selector?: string } = {}) {
  const kube = startFakeKube({ pki: pki as KubePki, token: "tok", state: kubeFixtures(), ...o });
  const dir = mkdtempSync(join(tmpdir(), "chatcli-informer-"));
  const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) }));
  const updates: WatchUpdate[] = [];
  const waiters: (() => void)[] = [];
  const ac = new AbortController();
  const done = watchCluster(client, { namespace: "shop", ...scope }, { intervalMs: 50, resyncMs: 60_000, debounceMs: 10, now: () => NOW }, ac.signal, (u) => {
    updates.push(u);
    for (const w of waiters.splice(0)) w();
  });
  running = { kube, dir, stop: async () => (ac.abort(), await done) };
  /** Resolves with the first update from index `from` on that matches. */
  const next = async <T extends WatchUpdate>(pred: (u: WatchUpdate) => u is T, from = 0): Promise<T> => {
    for (;;) {
      const hit = updates.slice(from).find(pred);
      if (hit) return hit;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { kube, updates, next };
}

const isFindings = (u: WatchUpdate): u is Findings => u.type === "findings";
const podRequests = (kube: FakeKube, from = 0): RequestRecord[] => kube.requests.slice(from).filter((r) => r.path === "/api/v1/namespaces/shop/pods");
const isWatch = (r: RequestRecord) => r.query.watch === "1";

/** Waits until the request log satisfies `pred` (the informer acts on its own schedule). */
async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await Bun.sleep(5);
}

describe.skipIf(!pki)("informer watch", () => {
  test("lists, then watches from the list's resourceVersion with bookmarks; a pushed crash loop is reported with its log tail", async () => {
    const { kube, updates, next } = await start();
    const first = await next(isFindings);
    expect(first.appeared.map((f) => f.kind)).toContain("CrashLoopBackOff");
    expect(first.appeared.find((f) => f.kind === "CrashLoopBackOff")?.evidence.previousLogTail).toEndWith("connection refused");
    await until(() => kube.openWatches() === 7);
    for (const path of ["/api/v1/namespaces/shop/pods", "/api/v1/namespaces/shop/events", "/apis/apps/v1/namespaces/shop/deployments", "/apis/apps/v1/namespaces/shop/replicasets", "/apis/batch/v1/namespaces/shop/jobs", "/apis/batch/v1/namespaces/shop/cronjobs", "/api/v1/nodes"]) {
      const [list, watch] = kube.requests.filter((r) => r.path === path);
      expect(list?.query.watch).toBeUndefined();
      expect(watch?.query).toMatchObject({ watch: "1", resourceVersion: kube.resourceVersion, allowWatchBookmarks: "true" });
    }
    const healthy = kube.state.pods.find((p) => p.metadata.name === "api-healthy") as KubeObject;
    kube.state.logs["shop/api-healthy/app"] = { previous: "starting\nFATAL: config key missing\n" };
    const mark = updates.length;
    kube.push("pods", "MODIFIED", { ...healthy, status: { phase: "Running", containerStatuses: [{ name: "app", restartCount: 3, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 78, reason: "Error" } } }] } });
    const change = await next(isFindings, mark);
    expect(change.resolved).toEqual([]);
    expect(change.appeared).toHaveLength(1);
    expect(change.appeared[0]).toMatchObject({ kind: "CrashLoopBackOff", object: { name: "api-healthy" }, evidence: { lastExitCode: 78, previousLogTail: "starting\nFATAL: config key missing" } });
    // No re-list: the change came through the open watch.
    expect(podRequests(kube).filter((r) => !isWatch(r))).toHaveLength(1);
  });

  test("a dropped stream is re-watched from the last BOOKMARK's resourceVersion, without a re-list", async () => {
    const { kube, next } = await start();
    await next(isFindings);
    await until(() => kube.openWatches() === 7);
    // Writes elsewhere move the cluster's resourceVersion on; the bookmark tells the pods watch where it is.
    kube.push("events", "ADDED", { kind: "Event", metadata: { name: "unrelated.1", namespace: "other" }, reason: "Scheduled" });
    kube.push("events", "ADDED", { kind: "Event", metadata: { name: "unrelated.2", namespace: "other" }, reason: "Scheduled" });
    const bookmark = kube.resourceVersion;
    const mark = kube.requests.length;
    kube.bookmark();
    kube.dropWatches();
    await until(() => podRequests(kube, mark).length >= 1 && kube.openWatches() === 7);
    expect(podRequests(kube, mark).map((r) => ({ watch: r.query.watch, rv: r.query.resourceVersion }))).toEqual([{ watch: "1", rv: bookmark }]);
  });

  for (const as of ["event", "http"] as const) {
    test(`410 Gone ${as === "event" ? "as an ERROR event in the stream" : "as an HTTP 410"} → a fresh list, then a watch from its version; what changed meanwhile is found`, async () => {
      const { kube, updates, next } = await start();
      await next(isFindings);
      await until(() => kube.openWatches() === 7);
      const stale = podRequests(kube).find(isWatch)?.query.resourceVersion;
      // Changed while the history was compacted: only a re-list can see it.
      kube.state.pods = kube.state.pods.filter((p) => p.metadata.name !== "api-crash");
      const mark = kube.requests.length;
      const at = updates.length;
      kube.expire(as);
      const change = await next(isFindings, at);
      expect(change.resolved.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["CrashLoopBackOff api-crash"]);
      await until(() => podRequests(kube, mark).length >= 3);
      const seq = podRequests(kube, mark).slice(0, 3).map((r) => (isWatch(r) ? `watch@${r.query.resourceVersion}` : "list"));
      expect(seq).toEqual([`watch@${stale}`, "list", `watch@${kube.resourceVersion}`]);
    });
  }

  test("watch forbidden by RBAC → that resource is polled; its changes are still found", async () => {
    const { kube, updates, next } = await start({ forbidden: ["watch:pods"] });
    await next(isFindings);
    expect(updates.some((u) => u.type === "fault")).toBe(false);
    const at = updates.length;
    kube.state.pods = kube.state.pods.filter((p) => p.metadata.name !== "api-oom");
    const change = await next(isFindings, at);
    expect(change.resolved.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["OOMKilled api-oom"]);
    expect(podRequests(kube).filter(isWatch)).toHaveLength(1);
    expect(podRequests(kube).filter((r) => !isWatch(r)).length).toBeGreaterThanOrEqual(2);
    expect(kube.requests.filter((r) => r.path === "/api/v1/nodes" && isWatch(r)).length).toBeGreaterThanOrEqual(1);
  });

  test("a server that answers watch with a plain list → polling", async () => {
    const { kube, updates, next } = await start({ watchUnsupported: true });
    await next(isFindings);
    const at = updates.length;
    kube.state.nodes = kube.state.nodes.filter((n) => n.metadata.name !== "node-b");
    const change = await next(isFindings, at);
    expect(change.resolved.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["NodeNotReady node-b"]);
  });

  test("an RBAC denial on nodes is one fault (verb, resource); the rest is watched", async () => {
    const { kube, updates, next } = await start({ forbidden: ["nodes"] });
    const first = await next(isFindings);
    expect(first.current.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    const faults = updates.filter((u) => u.type === "fault");
    expect(faults).toEqual([{ type: "fault", fault: expect.objectContaining({ resource: "nodes", kind: "forbidden", verb: "list", status: 403 }) }]);
    expect((faults[0] as Extract<WatchUpdate, { type: "fault" }>).fault.namespace).toBeUndefined();
    // Retried with backoff, and still said once.
    await until(() => kube.requests.filter((r) => r.path === "/api/v1/nodes").length >= 3);
    kube.push("pods", "DELETED", kube.state.pods.find((p) => p.metadata.name === "api-crash") as KubeObject);
    await next((u): u is Findings => isFindings(u) && u.resolved.length > 0);
    expect(updates.filter((u) => u.type === "fault")).toHaveLength(1);
  });

  test("expired credentials: 'unreadable' once (unauthorized), retried with backoff, then 'recovered' and the findings", async () => {
    const { kube, updates, next } = await start();
    await next(isFindings);
    await until(() => kube.openWatches() === 7);
    kube.setToken("rotated");
    kube.dropWatches();
    const down = await next((u): u is Extract<WatchUpdate, { type: "unreadable" }> => u.type === "unreadable");
    expect(down).toMatchObject({ kind: "unauthorized" });
    expect(down.retryInMs).toBeGreaterThan(0);
    const mark = kube.requests.length;
    await until(() => kube.requests.slice(mark).filter((r) => r.path === "/api/v1/namespaces/shop/pods").length >= 2);
    expect(updates.filter((u) => u.type === "unreadable")).toHaveLength(1);
    kube.setToken("tok");
    await next((u): u is Extract<WatchUpdate, { type: "recovered" }> => u.type === "recovered");
    expect(updates.filter((u) => u.type === "fault")).toEqual([]);
  });

  test("--deployment scopes every watch by its matchLabels", async () => {
    const { kube, next } = await start({}, { deployment: "web" });
    const first = await next(isFindings);
    expect(first.current).toEqual([]);
    await until(() => kube.openWatches() === 7);
    for (const path of ["/api/v1/namespaces/shop/pods", "/apis/apps/v1/namespaces/shop/replicasets", "/apis/batch/v1/namespaces/shop/jobs", "/apis/batch/v1/namespaces/shop/cronjobs"]) {
      expect(kube.requests.filter((r) => r.path === path).every((r) => r.query.labelSelector === "app=web")).toBe(true);
    }
  });

  test("resources the server does not serve (404) are not faults; they are looked at again each interval", async () => {
    const { kube, updates, next } = await start({ unserved: ["jobs", "replicasets"] });
    const first = await next(isFindings);
    expect(first.current.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    await until(() => kube.requests.filter((r) => r.path === "/apis/batch/v1/namespaces/shop/jobs").length >= 2);
    expect(kube.requests.filter((r) => r.path === "/apis/batch/v1/namespaces/shop/jobs" && isWatch(r))).toEqual([]);
    expect(updates.filter((u) => u.type !== "findings")).toEqual([]);
  });
});
