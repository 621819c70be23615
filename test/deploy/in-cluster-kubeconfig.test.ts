// The kubeconfig the deploy manifests give the watcher in the pod (the API server's service name, the pod's CA file,
// the ServiceAccount token through the tokenFile auth provider) really works with chatcli's kube access: pointed at
// the fake HTTPS API server (its URL, a CA file and a token file standing in for the pod's), the token goes out as
// a bearer header over the checked TLS connection, and a rejected token is an `unauthorized` fault.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeAccess } from "../../src/k8s/kube-access.ts";
import { KubeClient, KubeError } from "../../src/k8s/kube-client.ts";
import { listOf, Pod } from "../../src/k8s/kube-schemas.ts";
import { hasOpenssl, makeKubePki, type KubePki } from "../support/kube-certs.ts";
import { startFakeKube, type FakeKube } from "../support/fake-kube-api.ts";
import { kubeFixtures } from "../support/kube-fixtures.ts";
import { parseManifests } from "./manifest-policy.ts";

const root = join(import.meta.dir, "../..");
const TOKEN = "eyJhbGciOiJSUzI1NiJ9.projected-service-account-token";
const SA = "/var/run/secrets/kubernetes.io/serviceaccount";

interface Kubeconfig {
  clusters: Array<{ cluster: { server: string; "certificate-authority"?: string } }>;
  users: Array<{ user: { "auth-provider"?: { name: string; config: { tokenFile: string } } } }>;
}

async function kustomizeKubeconfig(): Promise<string> {
  const objs = await parseManifests(readFileSync(join(root, "deploy/kustomize/components/watcher/kubeconfig.yaml"), "utf8"));
  return (objs[0] as unknown as { data: { kubeconfig: string } }).data.kubeconfig;
}

const helm = Bun.which("helm");

async function helmKubeconfig(): Promise<string | undefined> {
  if (!helm) return undefined;
  const r = Bun.spawnSync([helm, "template", "team", join(root, "deploy/helm/chatcli"), "-n", "ai", "--set", "serviceAccount.create=true,rbac.create=true"], { stdout: "pipe" });
  const cm = (await parseManifests(r.stdout.toString())).find((o) => o.kind === "ConfigMap") as unknown as { data: { kubeconfig: string } };
  return cm.data.kubeconfig;
}

describe.skipIf(!hasOpenssl())("the in-cluster kubeconfig of the deploy manifests", () => {
  let pki: KubePki;
  let kube: FakeKube;
  let dir: string;
  beforeAll(() => {
    pki = makeKubePki();
    kube = startFakeKube({ pki, token: TOKEN, state: kubeFixtures() });
    dir = mkdtempSync(join(tmpdir(), "chatcli-incluster-"));
  });
  afterAll(() => {
    kube.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The pod's view, moved to this machine: the fake server's URL, its CA as ca.crt, the token file. */
  const relocate = async (text: string, token: string): Promise<string> => {
    const { parse, stringify } = await import("yaml");
    const kc = parse(text) as Kubeconfig;
    const cluster = kc.clusters[0]!.cluster;
    const provider = kc.users[0]!.user["auth-provider"]!;
    expect(cluster.server).toBe("https://kubernetes.default.svc");
    expect(cluster["certificate-authority"]).toBe(`${SA}/ca.crt`);
    expect(provider).toEqual({ name: "tokenFile", config: { tokenFile: `${SA}/token` } });
    const sa = mkdtempSync(join(dir, "sa-"));
    writeFileSync(join(sa, "ca.crt"), pki.caPem);
    writeFileSync(join(sa, "token"), token); // projected tokens have no trailing newline
    cluster.server = kube.url;
    cluster["certificate-authority"] = join(sa, "ca.crt");
    provider.config.tokenFile = join(sa, "token");
    const file = join(sa, "kubeconfig");
    writeFileSync(file, stringify(kc));
    return file;
  };

  const sendsTheToken = async (text: string) => {
    const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: await relocate(text, TOKEN) }));
    const before = kube.requests.length;
    const pods = await client.get("/api/v1/namespaces/shop/pods", listOf(Pod));
    expect(pods.items.length).toBeGreaterThan(0);
    expect(kube.requests.slice(before).map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`]);
  };

  test("kustomize watcher component: the ServiceAccount token is sent as a bearer over the pod CA's TLS", async () => {
    await sendsTheToken(await kustomizeKubeconfig());
  });

  test.skipIf(!helm)(`helm chart: the same${helm ? "" : " — skipped: no helm binary on PATH"}`, async () => {
    await sendsTheToken((await helmKubeconfig())!);
  });

  test("a token the API server rejects is an unauthorized fault, not a crash", async () => {
    const client = new KubeClient(await loadKubeAccess({ env: {}, home: dir, kubeconfig: await relocate(await kustomizeKubeconfig(), "expired") }));
    const err = await client.get("/api/v1/namespaces/shop/pods", listOf(Pod)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).kind).toBe("unauthorized");
  });
});
