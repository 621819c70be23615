// The read-only agent tools (k8s_get, k8s_logs, k8s_events, k8s_describe) against the fake HTTPS API server: what the
// model gets back, the bounds, and that Secrets (and ConfigMap values) are never requested (the server's request log).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient } from "../../src/k8s/kube-client.ts";
import { createK8sTools } from "../../src/k8s/tools/index.ts";
import { MAX_TAIL } from "../../src/k8s/tools/k8s-logs.ts";
import type { ToolContext, ToolDefinition } from "../../src/tool/tool.ts";
import { createPathPolicy } from "../../src/tool/workspace.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube } from "../support/fake-kube-api.ts";
import { kubeFixtures } from "../support/kube-fixtures.ts";

describe.skipIf(!hasOpenssl())("k8s_* tools", () => {
  let kube: FakeKube;
  let pki: KubePki;
  let dir: string;
  let tools: ToolDefinition[];
  let active = true;
  const tool = (name: string) => tools.find((x) => x.name === name)!;
  const ctx = (): ToolContext => ({ projectRoot: dir, cwd: dir, paths: createPathPolicy({ projectRoot: dir, extraReadPaths: [] }), signal: new AbortController().signal, callId: "c1", env: {} });
  const call = (name: string, args: Record<string, unknown>) => tool(name).run(args, ctx());

  beforeAll(async () => {
    const state = kubeFixtures();
    state.configmaps = [{ kind: "ConfigMap", metadata: { name: "api-config", namespace: "shop", labels: { app: "api" } }, data: { DATABASE_URL: "postgres://user:hunter2@db/shop" } }];
    pki = makeKubePki();
    kube = startFakeKube({ pki, token: "tok", state });
    dir = mkdtempSync(join(tmpdir(), "chatcli-k8s-tools-"));
    const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: kube.writeKubeconfig(dir, { namespace: "shop" }) }));
    tools = createK8sTools({ client: () => (active ? client : undefined), namespace: () => "shop", now: Date.now });
  }, 60_000);
  afterAll(() => {
    kube?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test("k8s_logs returns the previous container's log lines, bounded by tail", async () => {
    const r = await call("k8s_logs", { pod: "api-crash", previous: true, tail: 3 });
    expect(r.isError).toBeUndefined();
    const lines = r.text.split("\n");
    expect(lines[0]).toContain("pod api-crash");
    expect(lines.slice(1)).toEqual(["line 79", "line 80", "panic: cannot connect to db at db:5432: connection refused"]);
    const q = kube.requests.at(-1)!;
    expect(q.path).toBe("/api/v1/namespaces/shop/pods/api-crash/log");
    expect(q.query).toMatchObject({ previous: "true", tailLines: "3" });
    expect(Number(q.query.limitBytes)).toBeGreaterThan(0);
  }, 30_000);

  test("k8s_logs caps tail at MAX_TAIL and reads `since` durations as seconds; models' argument names work", async () => {
    const r = await call("k8s_logs", { name: "api-crash", tailLines: 100_000, since: "10m" });
    expect(r.isError).toBeUndefined();
    expect(r.text).toContain("starting api v1.2");
    expect(kube.requests.at(-1)!.query).toMatchObject({ tailLines: String(MAX_TAIL), sinceSeconds: "600" });
  }, 30_000);

  test("k8s_logs of a missing previous container is an error the model can read", async () => {
    const r = await call("k8s_logs", { pod: "api-healthy", previous: true });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("previous terminated container");
  }, 30_000);

  test("k8s_get by name: compact YAML without managedFields; a list by selector", async () => {
    const one = await call("k8s_get", { kind: "po", name: "api-crash" });
    expect(one.isError).toBeUndefined();
    expect(one.text).toContain("name: api-crash");
    expect(one.text).toContain("CrashLoopBackOff");
    expect(one.text).not.toContain("managedFields");
    const list = await call("k8s_get", { kind: "deployments", selector: "app=web" });
    expect(list.text).toContain("# 1 deployments in namespace shop (selector app=web)");
    expect(list.text).toContain("name: web");
    expect(list.text).not.toContain("name: api\n");
    expect(kube.requests.at(-1)!.query.labelSelector).toBe("app=web");
  }, 30_000);

  test("ConfigMaps: names and labels only, never the data; Secrets: refused without a request", async () => {
    const before = kube.requests.length;
    const cm = await call("k8s_get", { kind: "configmap" });
    expect(cm.text).toContain("name: api-config");
    expect(cm.text).not.toContain("hunter2");
    expect(cm.text).not.toContain("DATABASE_URL");
    const cmOne = await call("k8s_describe", { kind: "cm", name: "api-config" });
    expect(cmOne.text).not.toContain("hunter2");
    for (const kind of ["secret", "secrets", "Secret"]) {
      const s = await call("k8s_get", { kind });
      expect(s.isError).toBe(true);
      expect(s.errorCode).toBe("secrets_refused");
    }
    expect((await call("k8s_describe", { kind: "secret", name: "db-password" })).errorCode).toBe("secrets_refused");
    // Names that try to reach the secrets path through another kind never leave the process either.
    await call("k8s_get", { kind: "pod", name: "../secrets/db-password" });
    const asked = kube.requests.slice(before);
    expect(asked.some((q) => q.path.includes("configmaps"))).toBe(true);
    expect(kube.requests.every((q) => !q.path.includes("/secrets") && !decodeURIComponent(q.path).includes("/secrets"))).toBe(true);
  }, 30_000);

  test("k8s_events: newest first, filtered to one object, bounded by limit", async () => {
    const all = await call("k8s_events", {});
    const lines = all.text.split("\n").slice(1);
    expect(lines[0]).toContain("pod/api-crash");
    expect(lines.at(-1)).toContain("pod/api-healthy");
    const one = await call("k8s_events", { kind: "Pod", name: "api-unready" });
    expect(one.text).toContain("Readiness probe failed");
    expect(one.text).not.toContain("api-crash");
    const limited = await call("k8s_events", { limit: 1 });
    expect(limited.text.split("\n")).toHaveLength(3);
    expect(limited.text).toContain("older events not shown");
  }, 30_000);

  test("k8s_describe pod: YAML, container states with the last termination, and its events", async () => {
    const r = await call("k8s_describe", { kind: "pod", name: "api-crash" });
    expect(r.isError).toBeUndefined();
    expect(r.text).toContain("# Containers");
    expect(r.text).toMatch(/container app: Waiting \(CrashLoopBackOff\)/);
    expect(r.text).toMatch(/last state: Terminated \(Error, exit code 1\)/);
    expect(r.text).toContain("restarts: 7");
    expect(r.text).toContain("Back-off restarting failed container");
  }, 30_000);

  test("a 403 names the missing permission; no watch → an error, no request", async () => {
    const rbac = startFakeKube({ pki, token: "tok", state: kubeFixtures(), forbidden: ["pods"] });
    try {
      const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: rbac.writeKubeconfig(dir, { namespace: "shop" }) }));
      const denied = createK8sTools({ client: () => client, namespace: () => "shop", now: Date.now }).find((x) => x.name === "k8s_get")!;
      const r = await denied.run({ kind: "pods" }, ctx());
      expect(r.isError).toBe(true);
      expect(r.errorCode).toBe("k8s_forbidden");
      expect(r.text).toContain('cannot list resource "pods"');
      expect(r.text).toContain("RBAC");
    } finally {
      rbac.stop();
    }
    active = false;
    const before = kube.requests.length;
    const r = await call("k8s_logs", { pod: "api-crash" });
    expect(r.errorCode).toBe("no_watch");
    expect(kube.requests.length).toBe(before);
    active = true;
  }, 30_000);
});
