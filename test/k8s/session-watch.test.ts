// The watch inside a session (issue 23): `/watch` through the slot main.ts wires (src/cli/wire-k8s.ts), the events a
// TUI draws, the tools offered only while active, faults said once in fault-text's words, `/watch status` from the
// findings the watch holds, pushed changes arriving through the informer — against the fake HTTPS API server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { createK8sSlot, intervalMs, mergeDynamicTools } from "../../src/cli/wire-k8s.ts";
import { watchSlash, withWatchCommand } from "../../src/cli/watch-slash.ts";
import type { SlashHandler } from "../../src/cli/slash-commands.ts";
import { SessionWatch } from "../../src/k8s/session-watch.ts";
import { hasOpenssl, makeKubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube, type KubeObject } from "../support/fake-kube-api.ts";
import { kubeFixtures } from "../support/kube-fixtures.ts";

type Findings = Extract<AgentEvent, { type: "k8s.findings" }>;

describe.skipIf(!hasOpenssl())("the watch in a session", () => {
  let kube: FakeKube;
  let dir: string;
  let kc: string;
  beforeAll(() => {
    kube = startFakeKube({ pki: makeKubePki(), token: "tok", state: kubeFixtures(Date.now()), forbidden: ["nodes", "cronjobs"] });
    dir = mkdtempSync(join(tmpdir(), "chatcli-k8s-session-"));
    kc = kube.writeKubeconfig(dir, { namespace: "shop" });
  }, 60_000);
  afterAll(() => {
    kube?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const collect = () => {
    const events: AgentEvent[] = [];
    const waiters: { pred: (e: AgentEvent) => boolean; resolve: (e: AgentEvent) => void }[] = [];
    const publish = (e: AgentEvent) => {
      events.push(e);
      for (const w of [...waiters]) if (w.pred(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
    };
    const next = (pred: (e: AgentEvent) => boolean) => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise<AgentEvent>((resolve) => waiters.push({ pred, resolve }));
    };
    return { events, publish, next };
  };

  test("/watch starts it: tools and prompt part appear, the first check is published; status and stop", async () => {
    const c = collect();
    const slot = createK8sSlot({ settings: undefined, env: { KUBECONFIG: kc }, home: dir, publish: c.publish });
    expect(slot.configured).toBe(false);
    expect(slot.dynamicTools.tools()).toEqual([]);
    expect(await watchSlash(slot, "status")).toContain("No Kubernetes watch is active");
    const started = await watchSlash(slot, "--deployment api --interval 1m");
    expect(started).toContain("Watching fake/shop (deployment api) every 60s");
    expect(slot.dynamicTools.tools().map((x) => x.name)).toEqual(["k8s_get", "k8s_logs", "k8s_events", "k8s_describe"]);
    expect(slot.promptPart()).toContain('deployment "api"');
    const first = (await c.next((e) => e.type === "k8s.findings" && e.checkedAt !== undefined)) as Findings;
    expect(first).toMatchObject({ active: true, context: "fake", namespace: "shop" });
    expect(first.counts.critical).toBeGreaterThan(0);
    expect(first.appeared.map((f) => f.object)).toContain("pod/api-crash");
    // The 403s are said in chatcli watch's words: what is missing, where, and the can-i line to check it.
    const fault = await c.next((e) => e.type === "notice" && e.text.includes("nodes"));
    expect(fault).toMatchObject({ level: "warn" });
    expect((fault as { text: string }).text).toContain("⎈ permission denied: cannot list nodes at cluster scope (context fake). Check with: kubectl auth can-i list nodes --context fake");
    const cron = (await c.next((e) => e.type === "notice" && e.text.includes("cronjobs"))) as { text: string };
    expect(cron.text).toContain("cannot list cronjobs in namespace shop (context fake). Check with: kubectl auth can-i list cronjobs -n shop --context fake");
    // /watch status is the held summary of the last check (its time), not a new look at the cluster.
    const lists = () => kube.requests.filter((q) => q.path === "/api/v1/namespaces/shop/pods" && q.query.watch === undefined).length;
    const before = lists();
    const status = await watchSlash(slot, "status");
    expect(lists()).toBe(before);
    const last = c.events.filter((e): e is Findings => e.type === "k8s.findings" && e.checkedAt !== undefined).at(-1) as Findings;
    expect(status).toContain(`fake · shop · ${last.counts.critical} critical, ${last.counts.warning} warning · checked ${new Date(last.checkedAt as number).toISOString()}`);
    expect(status).toContain("[critical] CrashLoopBackOff pod/api-crash");
    expect(status).toContain("| panic: cannot connect to db");
    expect(status).toContain("permission denied: cannot list nodes at cluster scope (context fake)");
    expect(status).toContain("kubectl auth can-i list cronjobs -n shop --context fake");
    expect(await watchSlash(slot, "stop")).toContain("stopped");
    expect(c.events.at(-1)).toMatchObject({ type: "k8s.findings", active: false });
    expect(slot.dynamicTools.tools()).toEqual([]);
    expect(slot.promptPart()).toBeUndefined();
    expect(await watchSlash(slot, "stop")).toContain("No Kubernetes watch is active");
    expect(kube.requests.every((q) => !q.path.includes("/secrets"))).toBe(true);
  }, 30_000);

  test("bad arguments and a bad kubeconfig are answers, not throws; the command is listed", async () => {
    const c = collect();
    const slot = createK8sSlot({ settings: undefined, env: { KUBECONFIG: join(dir, "nope.yaml") }, home: dir, publish: c.publish });
    expect(await watchSlash(slot, "--deployment a --selector b=c")).toContain("not both");
    expect(await watchSlash(slot, "--interval soon")).toContain("--interval");
    expect(await watchSlash(slot, "bogus")).toContain("Usage: /watch");
    expect(await watchSlash(slot, "")).toContain("could not start");
    expect(slot.dynamicTools.tools()).toEqual([]);
    const inner: SlashHandler = { commands: [{ name: "x", description: "" }], handle: () => undefined };
    const handler = withWatchCommand(inner, slot);
    expect(handler.commands.map((x) => x.name)).toEqual(["x", "watch"]);
    expect(await handler.handle("watch", "status")).toContain("No Kubernetes watch is active");
    expect(handler.handle("other", "")).toBeUndefined();
  }, 30_000);

  test("settings k8s.watch: start() starts it once; every recompute publishes k8s.findings, each 403 said once in faultText's words", async () => {
    const c = collect();
    const slot = createK8sSlot({ settings: { watch: { namespace: "shop", interval: "2m" } }, env: { KUBECONFIG: kc }, home: dir, publish: c.publish });
    expect(slot.configured).toBe(true);
    await Promise.all([slot.start(), slot.start()]);
    expect(c.events.filter((e) => e.type === "notice" && e.text.includes("Watching")).length).toBe(1);
    expect(slot.dynamicTools.tools().length).toBe(4);
    slot.current()?.stop();
    // Every recompute (here: each resync of a short interval) publishes; the standing 403s are said once each.
    const d = collect();
    const watch = new SessionWatch({ env: { KUBECONFIG: kc }, home: dir, publish: d.publish });
    await watch.start({ intervalMs: 200, namespace: "shop" });
    const checks = () => d.events.filter((e): e is Findings => e.type === "k8s.findings" && e.checkedAt !== undefined);
    await d.next(() => checks().length >= 4);
    watch.stop();
    await watch.settled();
    const published = checks();
    expect(published[0]!.appeared.length).toBeGreaterThan(0);
    expect(published.at(-1)!.appeared).toEqual([]);
    const nodes = d.events.filter((e): e is Extract<AgentEvent, { type: "notice" }> => e.type === "notice" && e.text.includes("nodes"));
    expect(nodes.map((n) => n.text)).toEqual([expect.stringContaining("permission denied: cannot list nodes at cluster scope (context fake)")]);
    expect(d.events.filter((e) => e.type === "notice" && e.text.includes("cronjobs")).length).toBe(1);
    expect(d.events.at(-1)).toMatchObject({ type: "k8s.findings", active: false });
  }, 30_000);

  test("a change pushed on the API server reaches k8s.findings through the watch, long before the interval", async () => {
    const c = collect();
    const slot = createK8sSlot({ settings: undefined, env: { KUBECONFIG: kc }, home: dir, publish: c.publish });
    expect(await watchSlash(slot, "--interval 10m")).toContain("every 600s");
    const isCheck = (e: AgentEvent): e is Findings => e.type === "k8s.findings" && e.checkedAt !== undefined;
    await c.next(isCheck);
    while (kube.openWatches() < 5) await Bun.sleep(5); // pods, events, deployments, replicasets, jobs (cronjobs, nodes: 403)
    const healthy = kube.state.pods.find((p) => p.metadata.name === "api-healthy") as KubeObject;
    kube.state.logs["shop/api-healthy/app"] = { previous: "starting\nFATAL: config key missing\n" };
    const pods = () => kube.requests.filter((q) => q.path === "/api/v1/namespaces/shop/pods").length;
    const asked = pods();
    kube.push("pods", "MODIFIED", { ...healthy, status: { phase: "Running", containerStatuses: [{ name: "app", restartCount: 3, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 78, reason: "Error" } } }] } });
    const change = (await c.next((e) => isCheck(e) && e.appeared.some((f) => f.object === "pod/api-healthy"))) as Findings;
    expect(change.appeared).toEqual([expect.objectContaining({ kind: "CrashLoopBackOff", severity: "critical", object: "pod/api-healthy" })]);
    // It came over the open watch: the pods were not listed again.
    expect(pods()).toBe(asked);
    const status = await watchSlash(slot, "status");
    expect(status).toContain("[critical] CrashLoopBackOff pod/api-healthy");
    expect(status).toContain("| FATAL: config key missing");
    slot.current()?.stop();
    kube.push("pods", "MODIFIED", healthy);
  }, 30_000);

  test("an unreachable API server: said once in faultText's words while the watch retries; status before any check says it too", async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused.
    const server = "https://127.0.0.1:1";
    const kcGone = kube.writeKubeconfig(mkdtempSync(join(dir, "gone-")), { namespace: "shop", server });
    const c = collect();
    let waits = 0;
    let enough: () => void = () => undefined;
    const retried = new Promise<void>((r) => (enough = r));
    // The informers' backoff waits, counted and shortened: each retry fails again, the notice must not repeat.
    const sleep = async (_ms: number, signal: AbortSignal) => {
      if (++waits >= 30) enough();
      if (!signal.aborted) await Bun.sleep(1);
    };
    const watch = new SessionWatch({ env: { KUBECONFIG: kcGone }, home: dir, publish: c.publish, sleep });
    await watch.start({ intervalMs: 1000, namespace: "shop" });
    const notice = (await c.next((e) => e.type === "notice")) as { level: string; text: string };
    expect(notice.level).toBe("warn");
    expect(notice.text).toStartWith(`⎈ cannot reach the Kubernetes API server ${server} (context fake, namespace shop)`);
    expect(notice.text).toMatch(/retrying in \d+s$/);
    await retried;
    expect(await watch.statusText()).toContain(`cannot reach the Kubernetes API server ${server} (context fake, namespace shop)`);
    watch.stop();
    await watch.settled();
    expect(c.events.filter((e) => e.type === "notice").length).toBe(1);
    expect(c.events.some((e) => e.type === "k8s.findings" && e.checkedAt !== undefined)).toBe(false);
  }, 30_000);

  test("intervals and merged tool sources", () => {
    expect(intervalMs("30s")).toBe(30_000);
    expect(intervalMs("2m")).toBe(120_000);
    expect(intervalMs(45)).toBe(45_000);
    expect(intervalMs(undefined)).toBe(30_000);
    const a = { tools: () => [], find: (n: string) => (n === "mcp__x" ? ({ name: "mcp__x" } as never) : undefined) };
    const merged = mergeDynamicTools(a, { tools: () => [], find: (n) => (n === "k8s_get" ? ({ name: "k8s_get" } as never) : undefined) });
    expect(merged.find("mcp__x")).toMatchObject({ name: "mcp__x" });
    expect(merged.find("k8s_get")).toMatchObject({ name: "k8s_get" });
  }, 30_000);
});
