// The kubeconfig → request path against the fake HTTPS API server: the kubeconfig's CA is honoured under Bun (a wrong
// CA fails before any request is sent), token and exec-plugin credentials, RBAC 403s as faults, Secrets never asked
// for, the CrashLoopBackOff's previous log tail, and the watch stream (BOOKMARK, dropped watch).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient, KubeError } from "../../src/k8s/kube-client.ts";
import { listOf, Pod } from "../../src/k8s/kube-schemas.ts";
import { takeSnapshot } from "../../src/k8s/snapshot.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube } from "../support/fake-kube-api.ts";
import { kubeFixtures, NOW } from "../support/kube-fixtures.ts";

const TOKEN = "t0ken-for-the-fake";

describe.skipIf(!hasOpenssl())("kube access against the fake HTTPS API server", () => {
  let pki: KubePki;
  let kube: FakeKube;
  let dir: string;
  beforeAll(() => {
    pki = makeKubePki();
    kube = startFakeKube({ pki, token: TOKEN, state: kubeFixtures() });
    dir = mkdtempSync(join(tmpdir(), "chatcli-kube-"));
  });
  afterAll(() => {
    kube.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const clientFor = async (o: Parameters<FakeKube["writeKubeconfig"]>[1] = {}) => {
    const file = kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { namespace: "shop", ...o });
    return new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: file }));
  };

  test("the kubeconfig's CA is trusted, and a token goes out as a bearer header", async () => {
    const c = await clientFor();
    expect(c.access).toMatchObject({ context: "fake", server: kube.url, namespace: "shop" });
    const pods = await c.get("/api/v1/namespaces/shop/pods", listOf(Pod));
    expect(pods.items.length).toBe(8);
  });

  test("a kubeconfig with a different CA fails the TLS check and sends nothing", async () => {
    const c = await clientFor({ ca: pki.otherCaPem });
    const before = kube.requests.length;
    const err = await c.get("/api/v1/namespaces/shop/pods", listOf(Pod)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).kind).toBe("tls");
    expect(kube.requests.length).toBe(before);
  });

  test("KUBECONFIG from the environment and --context select the cluster", async () => {
    const file = kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { context: "prod", namespace: "shop" });
    const a = await loadKubeAccess({ env: { KUBECONFIG: file }, home: dir, context: "prod" });
    expect(a.context).toBe("prod");
    await expect(loadKubeAccess({ env: { KUBECONFIG: file }, home: dir, context: "nope" })).rejects.toThrow('no context "nope"');
  });

  test("an exec credential plugin (a script) supplies the token", async () => {
    const plugin = join(dir, "cred-plugin.sh");
    writeFileSync(plugin, `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`);
    chmodSync(plugin, 0o755);
    const c = await clientFor({ user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" } } });
    const pods = await c.get("/api/v1/namespaces/shop/pods", listOf(Pod));
    expect(pods.items.length).toBe(8);
    expect(kube.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  test("in a pod without a kubeconfig: the mounted service account (CA, token file, namespace)", async () => {
    const sa = mkdtempSync(join(dir, "sa-"));
    writeFileSync(join(sa, "ca.crt"), pki.caPem);
    writeFileSync(join(sa, "token"), `${TOKEN}\n`);
    writeFileSync(join(sa, "namespace"), "shop");
    const port = new URL(kube.url).port;
    const a = await loadKubeAccess({ env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port }, home: mkdtempSync(join(dir, "nohome-")), serviceAccountDir: sa });
    expect(a).toMatchObject({ context: "in-cluster", server: kube.url, namespace: "shop" });
    const c = new KubeClient(a);
    expect((await c.get("/api/v1/namespaces/shop/pods", listOf(Pod))).items.length).toBe(8);
    expect(kube.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    // A kubeconfig, when there is one, still wins.
    const file = kube.writeKubeconfig(mkdtempSync(join(dir, "kc-")), { context: "prod", namespace: "shop" });
    expect((await loadKubeAccess({ env: { KUBECONFIG: file, KUBERNETES_SERVICE_HOST: "127.0.0.1" }, home: dir, serviceAccountDir: sa })).context).toBe("prod");
  });

  test("a wrong token is 'unauthorized'", async () => {
    const c = await clientFor({ user: { token: "expired" } });
    const err = await c.get("/api/v1/nodes", listOf(Pod)).catch((e: unknown) => e);
    expect((err as KubeError).kind).toBe("unauthorized");
  });

  test("snapshot: every finding, the CrashLoopBackOff's previous log tail, and never a Secret", async () => {
    const c = await clientFor();
    const snap = await takeSnapshot(c, { namespace: "shop" }, NOW);
    const kinds = new Set(snap.findings.map((f) => f.kind));
    for (const k of ["CrashLoopBackOff", "OOMKilled", "ImagePullBackOff", "PendingUnschedulable", "ProbeFailure", "RestartStorm", "RolloutStuck", "CronJobMissedSchedules", "NodePressure", "NodeNotReady"]) expect(kinds.has(k as never)).toBe(true);
    const crash = snap.findings.find((f) => f.kind === "CrashLoopBackOff");
    const tail = String(crash?.evidence.previousLogTail);
    expect(tail.split("\n").length).toBe(20);
    expect(tail).toEndWith("panic: cannot connect to db at db:5432: connection refused");
    const logReq = kube.requests.find((r) => r.path.endsWith("/api-crash/log"));
    expect(logReq?.query).toMatchObject({ previous: "true", tailLines: "20", container: "app" });
    expect(snap.faults).toEqual([]);
    expect(kube.requests.some((r) => /secrets|configmaps/.test(r.path))).toBe(false);
  });

  test("the client refuses a Secrets path itself", async () => {
    const c = await clientFor();
    const before = kube.requests.length;
    await expect(c.get("/api/v1/namespaces/shop/secrets", listOf(Pod))).rejects.toThrow("never reads Secrets");
    expect(kube.requests.length).toBe(before);
  });

  test("--deployment narrows to its pods and their nodes", async () => {
    const c = await clientFor();
    const snap = await takeSnapshot(c, { namespace: "shop", deployment: "web" }, NOW);
    expect(snap.counts.deployments).toBe(1);
    expect(snap.counts.pods).toBe(0);
    expect(kube.requests.find((r) => r.path === "/api/v1/namespaces/shop/pods" && r.query.labelSelector === "app=web")).toBeDefined();
  });
});

describe.skipIf(!hasOpenssl())("RBAC denial and the watch stream", () => {
  let kube: FakeKube;
  let dir: string;
  beforeAll(() => {
    kube = startFakeKube({ pki: makeKubePki(), token: TOKEN, state: kubeFixtures(), forbidden: ["nodes"], dropWatchAfterMs: 50 });
    dir = mkdtempSync(join(tmpdir(), "chatcli-kube-"));
  });
  afterAll(() => {
    kube.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a 403 on nodes is a fault naming the permission; the pods are still checked", async () => {
    const c = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) }));
    const snap = await takeSnapshot(c, { namespace: "shop" }, NOW);
    expect(snap.faults).toHaveLength(1);
    expect(snap.faults[0]).toMatchObject({ resource: "nodes", kind: "forbidden", status: 403 });
    expect(snap.faults[0]?.message).toContain('cannot list resource "nodes"');
    expect(snap.findings.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    expect(snap.findings.some((f) => f.kind === "NodePressure")).toBe(false);
  });

  test("the fake's watch: ADDED per object, a BOOKMARK, a pushed MODIFIED, then the server drops it", async () => {
    const a = await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) });
    const res = await fetch(`${a.server}/api/v1/namespaces/shop/pods?watch=1&allowWatchBookmarks=true&labelSelector=app%3Dapi`, { headers: await a.headers(), tls: a.tls });
    setTimeout(() => kube.push("pods", "MODIFIED", { metadata: { name: "api-healthy", namespace: "shop", labels: { app: "api" } } }), 10);
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    expect(lines.slice(0, 8).every((e) => e.type === "ADDED")).toBe(true);
    expect(lines[8]?.type).toBe("BOOKMARK");
    expect(lines[9]?.type).toBe("MODIFIED");
  });
});

describe.skipIf(!hasOpenssl())("client-certificate kubeconfig (mutual TLS)", () => {
  test("the kubeconfig's client certificate and key are presented; without them the handshake fails", async () => {
    const pki = makeKubePki();
    const kube = startFakeKube({ pki, token: TOKEN, state: kubeFixtures(), clientCertAuth: true });
    const dir = mkdtempSync(join(tmpdir(), "chatcli-kube-"));
    try {
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      const withCert = kube.writeKubeconfig(mkdtempSync(join(dir, "a-")), { namespace: "shop", user: { "client-certificate-data": b64(pki.clientCertPem), "client-key-data": b64(pki.clientKeyPem) } });
      const c = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: withCert }));
      expect((await c.get("/api/v1/namespaces/shop/pods", listOf(Pod))).items.length).toBe(8);
      expect(kube.requests.at(-1)?.authorization).toBeNull();
      const noCert = kube.writeKubeconfig(mkdtempSync(join(dir, "b-")), { namespace: "shop", user: {} });
      const before = kube.requests.length;
      const err = await new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: noCert })).get("/api/v1/namespaces/shop/pods", listOf(Pod)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeError);
      expect(kube.requests.length).toBe(before);
    } finally {
      kube.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
