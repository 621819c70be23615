// `chatcli watch --once` through the compiled binary against the fake HTTPS Kubernetes API server (issue 23).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube, type KubeObject } from "../support/fake-kube-api.ts";
import { kubeFixtures } from "../support/kube-fixtures.ts";

const TOKEN = "smoke-token";

interface Report {
  context: string;
  namespace: string;
  counts: { critical: number; warning: number };
  findings: { kind: string; severity: string; object: { name: string }; evidence: Record<string, unknown> }[];
  faults: { resource: string; kind: string }[];
}

describe.skipIf(!hasOpenssl())("chatcli watch --once (compiled binary)", () => {
  let b: BinaryEnv;
  let pki: KubePki;
  let kube: FakeKube;
  beforeAll(() => {
    b = isolatedBinary();
    pki = makeKubePki();
    kube = startFakeKube({ pki, token: TOKEN, state: kubeFixtures(Date.now()) });
  });
  afterAll(() => {
    kube.stop();
    b.cleanup();
  });

  test("reports the CrashLoopBackOff with the previous logs' tail as JSON and exits 1; no Secret is requested", async () => {
    const kc = kube.writeKubeconfig(b.home, { namespace: "shop" });
    const r = await run(b, ["watch", "--once", "--output-format", "json"], { KUBECONFIG: kc });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ context: "fake", namespace: "shop" });
    const crash = report.findings.find((f) => f.kind === "CrashLoopBackOff");
    expect(crash).toMatchObject({ severity: "critical", object: { name: "api-crash" }, evidence: { restartCount: 7, lastExitCode: 1 } });
    expect(String(crash?.evidence.previousLogTail)).toEndWith("panic: cannot connect to db at db:5432: connection refused");
    expect(report.counts.critical).toBeGreaterThan(0);
    expect(kube.requests.length).toBeGreaterThan(0);
    expect(kube.requests.every((q) => !q.path.includes("/secrets") && q.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  test("a healthy deployment: no findings, exit 0; text output by default", async () => {
    const kc = kube.writeKubeconfig(b.home, { namespace: "shop" });
    const json = await run(b, ["watch", "--once", "--deployment", "web", "--output-format=json"], { KUBECONFIG: kc });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as Report).findings).toEqual([]);
    const text = await run(b, ["watch", "--once", "-n", "shop", "--deployment", "api", "--kubeconfig", kc], {});
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("[critical] CrashLoopBackOff pod/api-crash");
  });

  test("a kubeconfig with the wrong CA: exit 3, the context named, nothing reaches the server", async () => {
    const kc = kube.writeKubeconfig(b.home, { namespace: "shop", ca: pki.otherCaPem });
    const before = kube.requests.length;
    const r = await run(b, ["watch", "--once", "--output-format", "json"], { KUBECONFIG: kc });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("context fake, namespace shop");
    expect(r.stderr).toContain("failed the TLS check");
    expect(kube.requests.length).toBe(before);
  });

  test("without --once it keeps watching: the first check, then what resolved; SIGINT ends it with 130", async () => {
    const kc = kube.writeKubeconfig(b.home, { namespace: "shop" });
    const proc = Bun.spawn([b.bin, "watch", "--interval", "1s", "--output-format", "json"], { cwd: b.dir, env: { ...b.env, KUBECONFIG: kc }, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    const lines: string[] = [];
    let buf = "";
    const nextLine = async (): Promise<string> => {
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout closed; got ${lines.join("|")}`);
        buf += new TextDecoder().decode(value);
      }
      const line = buf.slice(0, buf.indexOf("\n"));
      buf = buf.slice(buf.indexOf("\n") + 1);
      lines.push(line);
      return line;
    };
    const original = [...kube.state.pods];
    try {
      const first = JSON.parse(await nextLine()) as { appeared: { kind: string }[]; resolved: unknown[] };
      expect(first.appeared.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
      // An informer: the pods are watched from the list's resourceVersion, with bookmarks.
      while (!kube.requests.some((q) => q.path === "/api/v1/namespaces/shop/pods" && q.query.watch === "1")) await Bun.sleep(20);
      expect(kube.requests.find((q) => q.path === "/api/v1/namespaces/shop/pods" && q.query.watch === "1")?.query).toMatchObject({ allowWatchBookmarks: "true", resourceVersion: expect.any(String) });
      // A change pushed through the open watch is reported.
      const oomed = original.find((p) => p.metadata.name === "api-healthy") as KubeObject;
      kube.push("pods", "MODIFIED", { ...oomed, status: { phase: "Running", containerStatuses: [{ name: "app", restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 137, reason: "OOMKilled" } } }] } });
      const pushed = JSON.parse(await nextLine()) as { appeared: { kind: string; object: { name: string } }[] };
      expect(pushed.appeared.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["OOMKilled api-healthy"]);
      // A change the watch did not carry is found at the next resync (the interval).
      kube.state.pods = kube.state.pods.filter((p) => p.metadata.name !== "api-crash");
      const second = JSON.parse(await nextLine()) as { appeared: unknown[]; resolved: { kind: string; object: { name: string } }[] };
      expect(second.appeared).toEqual([]);
      expect(second.resolved.map((f) => `${f.kind} ${f.object.name}`)).toEqual(["CrashLoopBackOff api-crash"]);
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(130);
    } finally {
      kube.state.pods = original;
      proc.kill();
    }
  }, 30_000);

  test("usage: --help is 0, an unknown flag or both scopes is 2", async () => {
    const help = await run(b, ["watch", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--deployment");
    expect((await run(b, ["watch", "--once", "--bogus"])).code).toBe(2);
    expect((await run(b, ["watch", "--once", "--deployment", "a", "--selector", "x=y"])).code).toBe(2);
  });
});

describe.skipIf(!hasOpenssl())("chatcli watch --once with an RBAC denial (compiled binary)", () => {
  test("a 403 on nodes is said once on stderr with the missing permission; the pods are still reported", async () => {
    const b = isolatedBinary();
    const kube = startFakeKube({ pki: makeKubePki(), token: TOKEN, state: kubeFixtures(Date.now()), forbidden: ["nodes"] });
    try {
      const r = await run(b, ["watch", "--once", "--output-format", "json"], { KUBECONFIG: kube.writeKubeconfig(b.home, { namespace: "shop" }) });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("permission denied: cannot list nodes at cluster scope (context fake). Check with: kubectl auth can-i list nodes --context fake");
      expect(r.stderr).toContain('User "system:serviceaccount:test:watcher" cannot list resource "nodes"');
      const report = JSON.parse(r.stdout) as Report;
      expect(report.faults).toEqual([expect.objectContaining({ resource: "nodes", kind: "forbidden" })]);
      expect(report.findings.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
    } finally {
      kube.stop();
      b.cleanup();
    }
  });
});

describe.skipIf(!hasOpenssl())("chatcli watch (continuous) with an RBAC denial (compiled binary)", () => {
  test("the 403 on nodes is said once on stderr while the watcher keeps retrying it; SIGINT → 130", async () => {
    const b = isolatedBinary();
    const kube = startFakeKube({ pki: makeKubePki(), token: TOKEN, state: kubeFixtures(Date.now()), forbidden: ["nodes"] });
    const proc = Bun.spawn([b.bin, "watch", "--interval", "1s", "--output-format", "json"], { cwd: b.dir, env: { ...b.env, KUBECONFIG: kube.writeKubeconfig(b.home, { namespace: "shop" }) }, stdout: "pipe", stderr: "pipe" });
    try {
      while (kube.requests.filter((q) => q.path === "/api/v1/nodes").length < 3) await Bun.sleep(50);
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(130);
      const stderr = await new Response(proc.stderr).text();
      expect(stderr.trim().split("\n")).toEqual([expect.stringContaining("permission denied: cannot list nodes at cluster scope (context fake). Check with: kubectl auth can-i list nodes --context fake")]);
      const first = JSON.parse((await new Response(proc.stdout).text()).split("\n")[0] ?? "") as { appeared: { kind: string }[] };
      expect(first.appeared.some((f) => f.kind === "CrashLoopBackOff")).toBe(true);
      expect(kube.requests.some((q) => q.path.includes("/secrets"))).toBe(false);
    } finally {
      proc.kill();
      kube.stop();
      b.cleanup();
    }
  }, 30_000);
});

describe.skipIf(!hasOpenssl())("chatcli watch --once, more variants (compiled binary)", () => {
  let b: BinaryEnv;
  beforeAll(() => {
    b = isolatedBinary();
  });
  afterAll(() => b.cleanup());
  const withKube = async (o: Partial<Parameters<typeof startFakeKube>[0]>, body: (kube: FakeKube, kc: string) => Promise<void>) => {
    const kube = startFakeKube({ pki: makeKubePki(), token: TOKEN, state: kubeFixtures(Date.now()), ...o });
    try {
      await body(kube, kube.writeKubeconfig(b.home, { namespace: "shop" }));
      expect(kube.requests.some((q) => /\/(secrets|configmaps)(\/|$)/.test(q.path))).toBe(false);
    } finally {
      kube.stop();
    }
  };

  test("OOMKilled carries the limit and metrics-server's usage", async () => {
    await withKube({ metricsServer: true }, async (_kube, kc) => {
      const r = await run(b, ["watch", "--once", "--output-format", "json"], { KUBECONFIG: kc });
      expect(r.code).toBe(1);
      const oom = (JSON.parse(r.stdout) as Report).findings.find((f) => f.kind === "OOMKilled");
      expect(oom?.evidence).toMatchObject({ memoryLimit: "256Mi", memoryUsage: "250880Ki", memoryUsagePercentOfLimit: 96 });
    });
  });

  test("RBAC 403 on pods: exit 3, said once with the can-i line; the JSON report lists the fault", async () => {
    await withKube({ forbidden: ["pods"], state: { ...kubeFixtures(Date.now()), deployments: [], nodes: [] } }, async (_kube, kc) => {
      const r = await run(b, ["watch", "--once", "--output-format", "json"], { KUBECONFIG: kc });
      expect(r.code).toBe(3);
      expect(r.stderr.trim().split("\n")).toEqual([expect.stringContaining("kubectl auth can-i list pods -n shop --context fake")]);
      expect((JSON.parse(r.stdout) as Report).faults).toEqual([expect.objectContaining({ resource: "pods", kind: "forbidden" })]);
    });
  });

  test("expired credentials: exit 3, 'log in again'", async () => {
    await withKube({}, async (kube) => {
      const kc = kube.writeKubeconfig(b.home, { namespace: "shop", user: { token: "expired" } });
      const r = await run(b, ["watch", "--once"], { KUBECONFIG: kc });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("rejected the credentials (401: expired or invalid) (context fake, namespace shop)");
    });
  });

  test("--selector narrows the pods (and exits by what is left)", async () => {
    await withKube({}, async (kube, kc) => {
      const r = await run(b, ["watch", "--once", "--selector", "app=web", "--output-format", "json"], { KUBECONFIG: kc });
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as Report).findings).toEqual([]);
      expect(kube.requests.find((q) => q.path === "/api/v1/namespaces/shop/pods")?.query.labelSelector).toBe("app=web");
    });
  });
});
