/**
 * The informer watch (src/k8s/watch-cluster.ts) on a large namespace, against the fake HTTPS API server: PODS pods
 * (every 10th crash-looping, with a previous log), the fixtures' other objects. Measures the time to the first
 * complete findings (7 lists + evaluation + log tails), the time from a pushed pod change to its update (minus the
 * 1 s debounce: the recompute itself), and the heap after. Budgets: first findings ≤ 3 s, recompute ≤ 250 ms at
 * 2,000 pods. Run: bun bench/k8s-informer.ts [--pods N]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../src/k8s/kube-access.ts";
import { KubeClient } from "../src/k8s/kube-client.ts";
import { watchCluster } from "../src/k8s/watch-cluster.ts";
import type { WatchUpdate } from "../src/k8s/watch-loop.ts";
import { makeKubePki } from "../test/support/kube-certs.ts";
import { startFakeKube, type KubeObject } from "../test/support/fake-kube-api.ts";
import { kubeFixtures } from "../test/support/kube-fixtures.ts";

const PODS = process.argv.includes("--pods") ? Number(process.argv[process.argv.indexOf("--pods") + 1]) : 2000;
const DEBOUNCE = 1000;
const now = Date.now();
const fx = kubeFixtures(now);
const logs: Record<string, { previous: string }> = {};
const pods: KubeObject[] = Array.from({ length: PODS }, (_, i) => {
  const crash = i % 10 === 0;
  if (crash) logs[`shop/p-${i}/app`] = { previous: Array.from({ length: 200 }, (_, j) => `log line ${j} of pod ${i}`).join("\n") };
  return {
    kind: "Pod",
    metadata: { name: `p-${i}`, namespace: "shop", labels: { app: "api" } },
    spec: { nodeName: "node-a", containers: [{ name: "app", image: "shop/api:1", resources: { limits: { memory: "256Mi" } } }] },
    status: crash
      ? { phase: "Running", containerStatuses: [{ name: "app", restartCount: 9, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 1, reason: "Error" } } }] }
      : { phase: "Running", conditions: [{ type: "Ready", status: "True" }], containerStatuses: [{ name: "app", ready: true, restartCount: 0, state: { running: {} } }] },
  };
});
const kube = startFakeKube({ pki: makeKubePki(), token: "tok", state: { ...fx, pods, logs } });
const dir = mkdtempSync(join(tmpdir(), "chatcli-bench-k8s-"));
const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) }));
const updates: { at: number; u: WatchUpdate }[] = [];
let wake: (() => void) | undefined;
const ac = new AbortController();
const t0 = performance.now();
const done = watchCluster(client, { namespace: "shop" }, { intervalMs: 60_000, debounceMs: DEBOUNCE }, ac.signal, (u) => {
  updates.push({ at: performance.now(), u });
  wake?.();
});
const waitFindings = async (n: number) => {
  while (updates.filter((x) => x.u.type === "findings").length < n) await new Promise<void>((r) => (wake = r));
  return updates.filter((x) => x.u.type === "findings")[n - 1] as { at: number; u: Extract<WatchUpdate, { type: "findings" }> };
};
const first = await waitFindings(1);
const firstMs = first.at - t0;
const healthy = pods[1] as KubeObject;
const t1 = performance.now();
kube.push("pods", "MODIFIED", { ...healthy, status: { phase: "Running", containerStatuses: [{ name: "app", restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 137, reason: "OOMKilled" } } }] } });
const second = await waitFindings(2);
const recomputeMs = second.at - t1 - DEBOUNCE;
Bun.gc(true);
const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
ac.abort();
await done;
kube.stop();
rmSync(dir, { recursive: true, force: true });
const line = (name: string, v: number, budget: number, unit: string) => console.log(`${name.padEnd(34)} ${v.toFixed(0).padStart(6)} ${unit}  (budget ${budget} ${unit}) ${v <= budget ? "ok" : "OVER"}`);
console.log(`k8s informer: ${PODS} pods, ${first.u.current.length} findings, ${kube.requests.length} requests`);
line("first complete findings", firstMs, 3000, "ms");
line("pushed change → update (− debounce)", recomputeMs, 250, "ms");
console.log(`${"heap while watching (informational)".padEnd(34)} ${heapMb.toFixed(0).padStart(6)} MB`);
console.log(`change seen: ${second.u.appeared.map((f) => `${f.kind} ${f.object.name}`).join(", ")}`);
