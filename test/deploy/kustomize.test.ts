// The kustomize base (deploy/kustomize) rendered by the real `kubectl kustomize`, every object checked against the
// Kubernetes API models and the deployment contract (manifest-policy.ts); broken variants must be caught.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkManifests, kubeconfigOf, parseManifests, type Obj } from "./manifest-policy.ts";

const root = join(import.meta.dir, "../..");
const kubectl = Bun.which("kubectl");

async function render(dir: string): Promise<Obj[]> {
  const r = Bun.spawnSync([kubectl!, "kustomize", join(root, dir)], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${r.stderr.toString()}`);
  return parseManifests(r.stdout.toString());
}

describe.skipIf(!kubectl)(`kustomize base (kubectl kustomize)${kubectl ? "" : " — skipped: no kubectl on PATH"}`, () => {
  test("the base renders the server: Deployment, Service, PVC, NetworkPolicy, all valid", async () => {
    const objs = await render("deploy/kustomize/base");
    expect(objs.map((o) => o.kind).sort()).toEqual(["Deployment", "NetworkPolicy", "PersistentVolumeClaim", "Service"]);
    expect(await checkManifests(objs, { tls: false, watcher: false, pvc: true })).toEqual([]);
    // The token is never in the manifests: the Deployment reads a Secret the operator creates.
    expect(objs.some((o) => o.kind === "Secret")).toBe(false);
  });

  test("the watcher overlay adds a ServiceAccount, read-only RBAC and an in-cluster kubeconfig", async () => {
    const objs = await render("deploy/kustomize/overlays/watcher");
    expect(objs.map((o) => o.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "NetworkPolicy", "PersistentVolumeClaim", "Service", "ServiceAccount"]);
    expect(await checkManifests(objs, { tls: false, watcher: true, pvc: true })).toEqual([]);
    expect(objs.every((o) => o.kind === "ClusterRole" || o.kind === "ClusterRoleBinding" || o.metadata.namespace === "chatcli")).toBe(true);
    expect(kubeconfigOf(objs)).toContain("tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token");
  });

  test("the checks catch what they claim to (each broken variant is reported)", async () => {
    const base = JSON.stringify(await render("deploy/kustomize/overlays/watcher"));
    const broken = async (edit: (objs: Obj[]) => void): Promise<string[]> => {
      const objs = JSON.parse(base) as Obj[];
      edit(objs);
      return checkManifests(objs, { tls: false, watcher: true, pvc: true });
    };
    type Pod = { spec: { template: { spec: { containers: Array<Record<string, unknown> & { securityContext: Record<string, unknown>; env: Array<Record<string, unknown>>; args: string[] }> } } } };
    const container = (objs: Obj[]) => (objs.find((o) => o.kind === "Deployment") as unknown as Pod).spec.template.spec.containers[0]!;
    const rules = (objs: Obj[]) => (objs.find((o) => o.kind === "ClusterRole") as unknown as { rules: Array<{ resources: string[]; verbs: string[] }> }).rules;

    expect(await broken((o) => (container(o).securityContext.readOnlyRootFileSystem = true))).toContainEqual(expect.stringContaining("unknown field of V1SecurityContext"));
    expect(await broken((o) => (container(o).securityContext.readOnlyRootFilesystem = false))).toContain("container: readOnlyRootFilesystem");
    expect(await broken((o) => rules(o)[0]!.resources.push("secrets"))).toContainEqual(expect.stringContaining("grants secrets"));
    expect(await broken((o) => rules(o)[0]!.resources.push("configmaps"))).toContainEqual(expect.stringContaining("grants configmaps"));
    expect(await broken((o) => rules(o)[0]!.verbs.push("delete"))).toContainEqual(expect.stringContaining("verb delete"));
    expect(await broken((o) => (container(o).env.find((e) => e.name === "CHATCLI_SERVER_TOKEN")!.value = "literal"))).toContainEqual(expect.stringContaining("CHATCLI_SERVER_TOKEN must come from a Secret"));
    expect(await broken((o) => (container(o).args = container(o).args.filter((a) => a !== "--insecure")))).toContainEqual(expect.stringContaining("--insecure"));
    expect(await broken((o) => delete container(o).readinessProbe)).toContainEqual(expect.stringContaining("readinessProbe"));
    expect(await broken((o) => ((o.find((x) => x.kind === "Deployment") as unknown as { spec: { strategy: unknown } }).spec.strategy = { type: "RollingUpdate" }))).toContain("Deployment: strategy must be Recreate");
    expect(await broken((o) => ((o.find((x) => x.kind === "Deployment") as unknown as { spec: { replicas: unknown } }).spec.replicas = "1"))).toContainEqual(expect.stringContaining("expected a number"));
    // kustomize's includeSelectors rewrites peer selectors to chatcli's own labels: caught.
    expect(
      await broken((o) => {
        const np = o.find((x) => x.kind === "NetworkPolicy") as unknown as { spec: { ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }> }> } };
        np.spec.ingress[0]!.from[0]!.podSelector.matchLabels["app.kubernetes.io/instance"] = "chatcli";
      }),
    ).toContainEqual(expect.stringContaining("peer selector was rewritten"));
    expect(await broken((o) => o.splice(o.findIndex((x) => x.kind === "PersistentVolumeClaim"), 1))).toContainEqual(expect.stringContaining("/data: claim chatcli-data is not among the objects"));
  });
});
