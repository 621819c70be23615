// The Helm chart (deploy/helm/chatcli). Always: every `.Values` path a template reads exists in values.yaml and
// every value is read by some template. With a `helm` binary on PATH (.ci/run installs one when it can): `helm lint`,
// and `helm template` with several value sets, each rendering checked against the Kubernetes API models and the
// deployment contract (manifest-policy.ts), the refused combinations, and parity with the kustomize base.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { V1ConfigMap, V1Deployment, V1Secret } from "@kubernetes/client-node";
import { checkManifests, parseManifests, type Obj } from "./manifest-policy.ts";

const root = join(import.meta.dir, "../..");
const chart = join(root, "deploy/helm/chatcli");
const helm = Bun.which("helm");
const kubectl = Bun.which("kubectl");

const templates = readdirSync(join(chart, "templates")).map((f) => ({ file: f, text: readFileSync(join(chart, "templates", f), "utf8") }));

async function values(): Promise<Record<string, unknown>> {
  const { parse } = await import("yaml");
  return parse(readFileSync(join(chart, "values.yaml"), "utf8")) as Record<string, unknown>;
}

/** Every `.Values.a.b` (or `$.Values.a.b`) path in the templates. */
function referencedPaths(): Map<string, string> {
  const refs = new Map<string, string>();
  for (const t of templates) for (const m of t.text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) refs.set(m[1]!.slice(1), t.file);
  return refs;
}

function has(obj: unknown, path: string[]): boolean {
  let cur = obj;
  for (const k of path) {
    if (cur === null || typeof cur !== "object" || !(k in cur)) return false;
    cur = (cur as Record<string, unknown>)[k];
  }
  return true;
}

/** The leaves of values.yaml: scalars, lists and empty maps (free-form maps such as podAnnotations). */
function leaves(obj: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(obj).flatMap(([k, v]) => {
    const p = prefix ? `${prefix}.${k}` : k;
    return v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length ? leaves(v as Record<string, unknown>, p) : [p];
  });
}

describe("Helm chart values and templates", () => {
  test("every .Values path a template reads exists in values.yaml", async () => {
    const v = await values();
    const refs = referencedPaths();
    expect(refs.size).toBeGreaterThan(20);
    const missing = [...refs].filter(([p]) => !has(v, p.split("."))).map(([p, f]) => `${f}: .Values.${p}`);
    expect(missing).toEqual([]);
  });

  test("every value in values.yaml is read by a template (no dead settings)", async () => {
    const refs = [...referencedPaths().keys()];
    const unused = leaves(await values()).filter((leaf) => !refs.some((r) => leaf === r || leaf.startsWith(`${r}.`)));
    expect(unused).toEqual([]);
  });

  test("the chart runs one replica with Recreate whatever the values (not a value)", () => {
    const dep = templates.find((t) => t.file === "deployment.yaml")!.text;
    expect(dep).toMatch(/^\s+replicas: 1$/m);
    expect(dep).toMatch(/strategy:\s+type: Recreate/);
    expect(dep).not.toContain(".Values.replicaCount");
  });
});

function template(args: string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync([helm!, "template", "team", chart, "--namespace", "ai", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, HELM_CACHE_HOME: join(process.env.HOME ?? "/tmp", ".helm-cache"), HELM_CONFIG_HOME: join(process.env.HOME ?? "/tmp", ".helm-config"), HELM_DATA_HOME: join(process.env.HOME ?? "/tmp", ".helm-data") } });
  return { ok: r.exitCode === 0, out: r.stdout.toString(), err: r.stderr.toString() };
}

async function rendered(args: string[]): Promise<Obj[]> {
  const r = template(args);
  if (!r.ok) throw new Error(`helm template ${args.join(" ")}: ${r.err}`);
  return parseManifests(r.out);
}

const find = <T>(objs: Obj[], kind: string, name?: string) => objs.find((o) => o.kind === kind && (!name || o.metadata.name === name)) as unknown as T;

describe.skipIf(!helm)(`helm template${helm ? "" : " — skipped: no helm binary on PATH"}`, () => {
  test("helm lint passes", () => {
    const r = Bun.spawnSync([helm!, "lint", chart], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString()).toContain("0 chart(s) failed");
    expect(r.exitCode).toBe(0);
  });

  test("default values: plain HTTP behind the NetworkPolicy, a generated token Secret, a PVC", async () => {
    const objs = await rendered([]);
    expect(objs.map((o) => o.kind).sort()).toEqual(["Deployment", "NetworkPolicy", "PersistentVolumeClaim", "Secret", "Service"]);
    expect(await checkManifests(objs, { tls: false, watcher: false, pvc: true })).toEqual([]);
    const dep = find<V1Deployment>(objs, "Deployment");
    const ref = dep.spec!.template.spec!.containers[0]!.env!.find((e) => e.name === "CHATCLI_SERVER_TOKEN")!.valueFrom!.secretKeyRef!;
    const secret = find<V1Secret>(objs, "Secret", ref.name);
    const token = Buffer.from(secret.data![ref.key]!, "base64").toString();
    expect(token).toMatch(/^[A-Za-z0-9]{43}$/); // ≈ 256 bits
    // A fresh install gets a fresh token (an upgrade reuses the cluster's through `lookup`).
    const again = find<V1Secret>(await rendered([]), "Secret", ref.name);
    expect(again.data![ref.key]).not.toBe(secret.data![ref.key]);
  });

  test("TLS from a Secret, the watcher with cluster-wide read-only RBAC, settings and k8s.watch", async () => {
    const objs = await rendered(["--set", "tls.secretName=chatcli-tls,serviceAccount.create=true,rbac.create=true,k8s.watch.namespace=shop,k8s.watch.deployment=api,settings.model=qwen3", "--set", "allowedOrigins[0]=https://ide.example.com", "--set", "llm.apiKeysSecret=llm-keys"]);
    expect(await checkManifests(objs, { tls: true, watcher: true, pvc: true })).toEqual([]);
    const c = find<V1Deployment>(objs, "Deployment").spec!.template.spec!.containers[0]!;
    expect(c.args).toEqual(expect.arrayContaining(["--allow-origin", "https://ide.example.com"]));
    expect(c.readinessProbe!.exec!.command).toEqual(["chatcli", "serve", "--probe", "https://127.0.0.1:7433", "--tls-cert", "/etc/chatcli/tls/tls.crt"]);
    const withCa = find<V1Deployment>(await rendered(["--set", "tls.secretName=chatcli-tls,tls.probeCaKey=ca.crt"]), "Deployment").spec!.template.spec!.containers[0]!;
    expect(withCa.livenessProbe!.exec!.command!.slice(-2)).toEqual(["--tls-cert", "/etc/chatcli/tls/ca.crt"]);
    expect(c.envFrom).toEqual([{ secretRef: { name: "llm-keys" } }]);
    const cm = find<V1ConfigMap>(objs, "ConfigMap");
    expect(JSON.parse(cm.data!["settings.json"]!)).toEqual({ model: "qwen3", k8s: { watch: { namespace: "shop", deployment: "api" } } });
    expect(c.volumeMounts).toContainEqual({ name: "config", mountPath: "/data/.chatcli/settings.json", subPath: "settings.json", readOnly: true });
    const role = find<{ rules: Array<{ resources: string[] }> }>(objs, "ClusterRole");
    expect(role.rules.flatMap((r) => r.resources)).toEqual(expect.arrayContaining(["pods", "pods/log", "events", "deployments", "replicasets", "jobs", "cronjobs", "nodes"]));
  });

  test("namespace-scoped RBAC: a Role per listed namespace, and no nodes", async () => {
    const objs = await rendered(["--set", "serviceAccount.create=true,rbac.create=true,rbac.scope=namespace", "--set", "rbac.namespaces={shop,billing}"]);
    expect(await checkManifests(objs, { tls: false, watcher: true, pvc: true })).toEqual([]);
    const roles = objs.filter((o) => o.kind === "Role") as unknown as Array<{ metadata: { namespace: string }; rules: Array<{ resources: string[] }> }>;
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(["billing", "shop"]);
    expect(roles.flatMap((r) => r.rules.flatMap((x) => x.resources))).not.toContain("nodes");
    expect(objs.some((o) => o.kind === "ClusterRole")).toBe(false);
  });

  test("an existing token Secret and an existing claim: neither is created", async () => {
    const objs = await rendered(["--set", "token.existingSecret=team-token,token.key=value,persistence.existingClaim=old-sessions"]);
    expect(await checkManifests(objs, { tls: false, watcher: false, pvc: false })).toEqual([]);
    expect(objs.some((o) => o.kind === "Secret" || o.kind === "PersistentVolumeClaim")).toBe(false);
    const pod = find<V1Deployment>(objs, "Deployment").spec!.template.spec!;
    expect(pod.containers[0]!.env!.find((e) => e.name === "CHATCLI_SERVER_TOKEN")!.valueFrom!.secretKeyRef).toEqual({ name: "team-token", key: "value" });
    expect(pod.volumes!.find((v) => v.name === "data")!.persistentVolumeClaim!.claimName).toBe("old-sessions");
  });

  test("the ingress variant renders a valid Ingress to the Service's port", async () => {
    const objs = await rendered(["--set", "ingress.enabled=true,ingress.host=chat.example.com,ingress.tlsSecretName=chat-tls"]);
    expect(await checkManifests(objs, { tls: false, watcher: false, pvc: true })).toEqual([]);
    const ing = find<{ spec: { rules: Array<{ host: string; http: { paths: Array<{ backend: { service: { name: string; port: { number: number } } } }> } }> } }>(objs, "Ingress");
    expect(ing.spec.rules[0]!.host).toBe("chat.example.com");
    expect(ing.spec.rules[0]!.http.paths[0]!.backend.service).toEqual({ name: "team-chatcli", port: { number: 7433 } });
  });

  test("weakening combinations are refused (fail closed)", () => {
    const plain = template(["--set", "networkPolicy.enabled=false"]);
    expect(plain.ok).toBe(false);
    expect(plain.err).toContain("needs networkPolicy.enabled");
    const watch = template(["--set", "k8s.watch.namespace=shop"]);
    expect(watch.ok).toBe(false);
    expect(watch.err).toContain("k8s.watch needs serviceAccount.create and rbac.create");
    // TLS in the pod may go without the NetworkPolicy.
    expect(template(["--set", "networkPolicy.enabled=false,tls.secretName=x"]).ok).toBe(true);
  });

  test.skipIf(!kubectl)("the chart's defaults and the kustomize base describe the same pod", async () => {
    const h = find<V1Deployment>(await rendered(["--set", "fullnameOverride=chatcli"]), "Deployment").spec!.template.spec!;
    const k = Bun.spawnSync([kubectl!, "kustomize", join(root, "deploy/kustomize/base")], { stdout: "pipe" });
    const kd = find<V1Deployment>(await parseManifests(k.stdout.toString()), "Deployment").spec!.template.spec!;
    const view = (p: typeof h) => {
      const c = p.containers[0]!;
      return { pod: p.securityContext, automount: p.automountServiceAccountToken, command: c.command, args: c.args, env: c.env!.map((e) => e.name), probes: [c.readinessProbe, c.livenessProbe], security: c.securityContext, resources: c.resources, mounts: c.volumeMounts };
    };
    expect(view(h)).toEqual(view(kd));
  });
});
