/**
 * The user's kubeconfig → what a request needs: server URL, TLS material and auth headers. `@kubernetes/client-node`
 * (loaded lazily) parses the kubeconfig and runs the credential logic — token, token file, client certificates,
 * exec credential plugins (EKS/GKE style) — but chatcli sends the requests itself with Bun's fetch and its `tls`
 * option: under Bun the client's own https.Agent path has been seen to ignore the kubeconfig's CA, and a token must
 * never go to a server whose certificate was not checked against it (test/k8s/kube-tls.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { KubeConfig as KubeConfigType } from "@kubernetes/client-node";

export interface KubeTls {
  ca?: string;
  cert?: string;
  key?: string;
  /** false only when the kubeconfig says insecure-skip-tls-verify. */
  rejectUnauthorized: boolean;
}

export interface KubeAccess {
  context: string;
  server: string;
  /** The context's namespace, else "default". */
  namespace: string;
  tls: KubeTls;
  /** Fresh auth headers for each request (an exec plugin's token expires; client-node caches it until then). */
  headers(): Promise<Record<string, string>>;
}

export class KubeConfigError extends Error {}

export interface KubeAccessOptions {
  env: Record<string, string | undefined>;
  home: string;
  /** `--kubeconfig`; else KUBECONFIG (a list), else ~/.kube/config. */
  kubeconfig?: string;
  context?: string;
  /** The service account mount read in a pod when there is no kubeconfig (tests point it at a temp dir). */
  serviceAccountDir?: string;
}

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * In a pod (no kubeconfig, KUBERNETES_SERVICE_HOST set): the mounted service account — its CA, its token file
 * (re-read as it rotates, by client-node's token-file provider) and its namespace — as kubectl does in-cluster.
 */
function loadInCluster(kc: KubeConfigType, o: KubeAccessOptions): void {
  const dir = o.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = o.env.KUBERNETES_SERVICE_HOST ?? "";
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${o.env.KUBERNETES_SERVICE_PORT ?? "443"}`;
  const nsFile = join(dir, "namespace");
  const namespace = existsSync(nsFile) ? readFileSync(nsFile, "utf8").trim() : undefined;
  kc.loadFromOptions({
    clusters: [{ name: "in-cluster", server, caFile: join(dir, "ca.crt"), skipTLSVerify: false }],
    users: [{ name: "service-account", authProvider: { name: "tokenFile", config: { tokenFile: join(dir, "token") } } }],
    contexts: [{ name: "in-cluster", cluster: "in-cluster", user: "service-account", ...(namespace ? { namespace } : {}) }],
    currentContext: "in-cluster",
  });
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : undefined);

export async function loadKubeAccess(o: KubeAccessOptions): Promise<KubeAccess> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  const files = (o.kubeconfig ?? o.env.KUBECONFIG ?? join(o.home, ".kube", "config")).split(delimiter).filter(Boolean);
  const inCluster = !o.kubeconfig && !o.env.KUBECONFIG && !!o.env.KUBERNETES_SERVICE_HOST && !existsSync(files[0] ?? "");
  if (inCluster) loadInCluster(kc, o);
  else try {
    const [first, ...rest] = files;
    if (!first) throw new KubeConfigError("no kubeconfig");
    kc.loadFromFile(first);
    for (const f of rest) {
      const more = new KubeConfig();
      more.loadFromFile(f);
      kc.mergeConfig(more);
    }
  } catch (err) {
    throw new KubeConfigError(`cannot read the kubeconfig ${files.join(delimiter)}: ${(err as Error).message}`);
  }
  if (o.context) {
    if (!kc.getContextObject(o.context)) throw new KubeConfigError(`no context "${o.context}" in the kubeconfig (contexts: ${kc.getContexts().map((c) => c.name).join(", ") || "none"})`);
    kc.setCurrentContext(o.context);
  }
  const context = kc.getCurrentContext();
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new KubeConfigError(`the context "${context || "(none)"}" has no cluster with a server`);
  const credentials = async () => {
    const opts: { ca?: unknown; cert?: unknown; key?: unknown; headers?: Record<string, unknown>; rejectUnauthorized?: boolean } = {};
    await kc.applyToHTTPSOptions(opts as Parameters<typeof kc.applyToHTTPSOptions>[0]);
    return opts;
  };
  // Runs an exec plugin once up front: a broken plugin fails here, clearly, not on the first request.
  const probe = await credentials();
  const tls: KubeTls = { rejectUnauthorized: !cluster.skipTLSVerify };
  const ca = text(probe.ca);
  const cert = text(probe.cert);
  const key = text(probe.key);
  if (ca) tls.ca = ca;
  if (cert) tls.cert = cert;
  if (key) tls.key = key;
  const ctx = kc.getContextObject(context);
  return {
    context,
    server: cluster.server.replace(/\/+$/, ""),
    namespace: ctx?.namespace || "default",
    tls,
    async headers() {
      const opts = await credentials();
      // A kubeconfig `token-file` is read verbatim (its trailing newline included), as kubectl would not send it.
      return Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k, String(v).trim()]));
    },
  };
}
