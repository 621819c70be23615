// Item 8 of docs/k8s.md: what the user is told when the cluster cannot be read — an unreachable server, expired
// credentials (401), an RBAC denial (403: the verb/resource/namespace and a `kubectl auth can-i` line), a wrong CA —
// each said once, with the context and namespace, through `chatcli watch` in-process against the fake HTTPS server;
// and the continuous watch riding out an outage with backoff until the server comes back. Secrets never requested.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchCommand } from "../../src/cli/commands/watch.ts";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient } from "../../src/k8s/kube-client.ts";
import { watchCluster } from "../../src/k8s/watch-cluster.ts";
import type { WatchUpdate } from "../../src/k8s/watch-loop.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube, type FakeKubeOptions } from "../support/fake-kube-api.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

const pki: KubePki | undefined = hasOpenssl() ? makeKubePki() : undefined;
const dir = mkdtempSync(join(tmpdir(), "chatcli-k8s-faults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noSecrets = (kube: FakeKube) => expect(kube.requests.some((r) => /\/(secrets|configmaps)(\/|$)/.test(r.path))).toBe(false);

async function watchOnce(kube: FakeKube, kc: Parameters<FakeKube["writeKubeconfig"]>[1], extra: string[] = []) {
  let stdout = "";
  let stderr = "";
  const file = kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { namespace: "shop", ...kc });
  const code = await watchCommand(["--once", "--output-format", "json", ...extra], { write: (s: string) => (stdout += s) }, { write: (s: string) => (stderr += s) }, { KUBECONFIG: file, HOME: dir }, () => NOW);
  return { code, stdout, stderr, lines: stderr.trim().split("\n").filter(Boolean) };
}

function withKube<T>(o: Partial<FakeKubeOptions>, body: (kube: FakeKube) => Promise<T>): Promise<T> {
  const kube = startFakeKube({ pki: pki as KubePki, token: "tok", state: kubeFixtures(), ...o });
  return body(kube).finally(() => {
    noSecrets(kube);
    kube.stop();
  });
}

describe.skipIf(!pki)("faults, said once and clearly", () => {
  test("unreachable API server: exit 3, the server URL, context and namespace", async () => {
    await withKube({}, async (kube) => {
      const port = new URL(kube.url).port;
      kube.stop();
      const r = await watchOnce(kube, { server: `https://127.0.0.1:${port}` });
      expect(r.code).toBe(3);
      expect(r.lines).toHaveLength(1);
      expect(r.stderr).toContain(`cannot reach the Kubernetes API server https://127.0.0.1:${port} (context fake, namespace shop)`);
      expect(JSON.parse(r.stdout).faults).toEqual([expect.objectContaining({ kind: "unreachable" })]);
    });
  });

  test("expired credentials (401): exit 3, 'log in again', no findings claimed", async () => {
    await withKube({}, async (kube) => {
      const r = await watchOnce(kube, { user: { token: "expired-token" } });
      expect(r.code).toBe(3);
      expect(r.lines).toHaveLength(1);
      expect(r.stderr).toContain(`the API server ${kube.url} rejected the credentials (401: expired or invalid) (context fake, namespace shop). Log in again`);
      const report = JSON.parse(r.stdout);
      expect(report.findings).toEqual([]);
      expect(report.faults[0]).toMatchObject({ kind: "unauthorized", status: 401 });
    });
  });

  test("RBAC 403 on pods (nothing else critical): exit 3, the missing verb/resource/namespace and the can-i line", async () => {
    await withKube({ forbidden: ["pods"], state: { ...kubeFixtures(), deployments: [], nodes: [] } }, async (kube) => {
      const r = await watchOnce(kube, {});
      expect(r.code).toBe(3);
      expect(r.lines).toHaveLength(1);
      expect(r.stderr).toContain("permission denied: cannot list pods in namespace shop (context fake). Check with: kubectl auth can-i list pods -n shop --context fake");
      expect(r.stderr).toContain('User "system:serviceaccount:test:watcher"');
      expect(JSON.parse(r.stdout).faults).toEqual([{ resource: "pods", kind: "forbidden", status: 403, verb: "list", namespace: "shop", message: expect.any(String) }]);
    });
  });

  test("RBAC 403 on nodes (cluster scope): the findings still decide the exit code", async () => {
    await withKube({ forbidden: ["nodes"] }, async (kube) => {
      const r = await watchOnce(kube, {});
      expect(r.code).toBe(1);
      expect(r.lines).toEqual([expect.stringContaining("permission denied: cannot list nodes at cluster scope (context fake). Check with: kubectl auth can-i list nodes --context fake")]);
      const clean = await watchOnce(kube, {}, ["--deployment", "web"]);
      expect(clean.code).toBe(0);
      expect(clean.lines).toHaveLength(1);
    });
  });

  test("--deployment that does not exist: exit 3, not found, named", async () => {
    await withKube({}, async (kube) => {
      const r = await watchOnce(kube, {}, ["--deployment", "nope"]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('deployments: not found in namespace shop (context fake): deployments "nope" not found');
    });
  });

  test("a URL that is not a Kubernetes API server (pods 404): exit 3, not a clean report", async () => {
    await withKube({ unserved: ["pods", "events", "nodes", "deployments", "replicasets", "jobs", "cronjobs"] }, async (kube) => {
      const r = await watchOnce(kube, {});
      expect(r.code).toBe(3);
      expect(r.lines[0]).toContain("pods: not found in namespace shop (context fake)");
      expect(r.lines.map((l) => l.split(":")[1]?.trim())).toEqual(["pods", "events", "nodes"]);
    });
  });

  test("wrong CA: exit 3, the TLS check named, nothing (no token) reaches the server", async () => {
    await withKube({}, async (kube) => {
      const r = await watchOnce(kube, { ca: (pki as KubePki).otherCaPem });
      expect(r.code).toBe(3);
      expect(r.lines).toHaveLength(1);
      expect(r.stderr).toContain(`the API server ${kube.url} failed the TLS check against the kubeconfig's certificate authority (context fake, namespace shop)`);
      expect(kube.requests).toEqual([]);
    });
  });

  test("a token-file (with its trailing newline) authenticates", async () => {
    await withKube({}, async (kube) => {
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, "tok\n");
      const r = await watchOnce(kube, { user: { "token-file": tokenFile } });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe("");
      expect(kube.requests.every((q) => q.authorization === "Bearer tok")).toBe(true);
    });
  });

  test("continuous watch: the server goes away and comes back — 'unreadable' once, retried with backoff, 'recovered'", async () => {
    let kube = startFakeKube({ pki: pki as KubePki, token: "tok", state: kubeFixtures() });
    const port = Number(new URL(kube.url).port);
    const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { namespace: "shop" }) }));
    const updates: WatchUpdate[] = [];
    const sleeps: number[] = [];
    let wake: (() => void) | undefined;
    const ac = new AbortController();
    const done = watchCluster(client, { namespace: "shop" }, { intervalMs: 20, resyncMs: 60_000, debounceMs: 5, now: () => NOW, sleep: (ms, signal) => (sleeps.push(ms), Bun.sleep(Math.min(ms, 50)).then(() => void signal)) }, ac.signal, (u) => {
      updates.push(u);
      wake?.();
    });
    const waitFor = async (type: WatchUpdate["type"]) => {
      while (!updates.some((u) => u.type === type)) await new Promise<void>((r) => (wake = r));
    };
    try {
      await waitFor("findings");
      kube.stop();
      await waitFor("unreadable");
      expect(updates.find((u) => u.type === "unreadable")).toMatchObject({ kind: "unreachable" });
      while (sleeps.filter((ms) => ms >= 80).length < 7) await Bun.sleep(10); // every resource has backed off at least twice
      kube = startFakeKube({ pki: pki as KubePki, token: "tok", state: kubeFixtures(), port });
      await waitFor("recovered");
      expect(updates.filter((u) => u.type === "unreadable")).toHaveLength(1);
      expect(updates.filter((u) => u.type === "fault")).toEqual([]);
      expect(sleeps.filter((ms) => ms === 40)).toHaveLength(7); // each resource's first retry: 2 × interval
      expect(sleeps.filter((ms) => ms === 80).length).toBeGreaterThanOrEqual(7); // then doubled
    } finally {
      ac.abort();
      await done;
      noSecrets(kube);
      kube.stop();
    }
  }, 30_000);
});
