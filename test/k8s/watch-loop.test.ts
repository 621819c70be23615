// The polling watch loop against the fake HTTPS API server, stepped through its injected sleep (no timing).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient } from "../../src/k8s/kube-client.ts";
import { takeSnapshot } from "../../src/k8s/snapshot.ts";
import { MAX_BACKOFF_MS, runWatchLoop, type WatchUpdate } from "../../src/k8s/watch-loop.ts";
import { hasOpenssl, makeKubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube } from "../support/fake-kube-api.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

describe.skipIf(!hasOpenssl())("watch loop (polling)", () => {
  let kube: FakeKube;
  let dir: string;
  beforeAll(() => {
    kube = startFakeKube({ pki: makeKubePki(), token: "tok", state: kubeFixtures() });
    dir = mkdtempSync(join(tmpdir(), "chatcli-kube-"));
  });
  afterAll(() => {
    kube.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("first check reports everything; later checks report what appeared and resolved; outages back off and are said once", async () => {
    const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) }));
    const updates: WatchUpdate[] = [];
    const waits: number[] = [];
    const ac = new AbortController();
    const original = [...kube.state.pods];
    let outage = false;
    // Each sleep is one step of the script: change the cluster, then let the loop look again.
    const steps: (() => void)[] = [
      () => (kube.state.pods = original.filter((p) => p.metadata.name !== "api-crash")), // the crash is fixed
      () => {}, // nothing changes: no update
      () => (outage = true), // the server becomes unreachable
      () => {}, // still down: no second notice, longer wait
      () => (outage = false), // back
      () => ac.abort(),
    ];
    await runWatchLoop(
      {
        snapshot: (now) => (outage ? Promise.reject(new Error("connect ECONNREFUSED")) : takeSnapshot(client, { namespace: "shop" }, now)),
        sleep: async (ms) => {
          waits.push(ms);
          steps.shift()?.();
        },
        now: () => NOW,
      },
      30_000,
      ac.signal,
      (u) => updates.push(u),
    );
    const types = updates.map((u) => u.type);
    expect(types).toEqual(["findings", "findings", "unreadable", "recovered"]);
    const [first, second] = updates as Extract<WatchUpdate, { type: "findings" }>[];
    expect(first?.appeared.length).toBe(first?.current.length);
    expect(first?.appeared.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    expect(second?.appeared).toEqual([]);
    expect(second?.resolved.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["CrashLoopBackOff api-crash"]);
    expect(waits).toEqual([30_000, 30_000, 30_000, 60_000, 120_000, 30_000]);
    expect(Math.min(30_000 * 2 ** 10, MAX_BACKOFF_MS)).toBe(MAX_BACKOFF_MS);
  });
});
