/**
 * Read-only GETs against the API server with the kubeconfig's TLS material (Bun fetch `tls`: the CA is honoured,
 * no request is sent unverified unless the kubeconfig says insecure-skip-tls-verify). Failures become a KubeError
 * whose `kind` says what to tell the user. Secrets are never requested: `get` refuses the path (fail closed).
 */
import type { z } from "zod";
import type { KubeAccess } from "./kube-access.ts";
import { KubeStatus } from "./kube-schemas.ts";

export type KubeErrorKind = "unreachable" | "tls" | "unauthorized" | "forbidden" | "notFound" | "http" | "invalid";

export class KubeError extends Error {
  constructor(
    readonly kind: KubeErrorKind,
    message: string,
    readonly path: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Paths that read Secret values: never sent, whatever asks. */
const SECRET_PATH = /\/secrets(\/|$|\?)/;

/** An encoded `..%2Fsecrets` must not slip past the check (a server may decode it). */
const safeDecode = (p: string): string => {
  try {
    return decodeURIComponent(p);
  } catch {
    return p.replace(/%2f/gi, "/");
  }
};

const TLS_ERROR = /certificate|self.signed|unable to verify|CERT_|SSL|TLS/i;

export class KubeClient {
  constructor(
    readonly access: KubeAccess,
    private readonly timeoutMs = 15_000,
  ) {}

  private async request(path: string, query: Record<string, string | number | boolean | undefined>, signal?: AbortSignal, accept = "application/json"): Promise<Response> {
    if (SECRET_PATH.test(path) || SECRET_PATH.test(safeDecode(path))) throw new KubeError("forbidden", "chatcli never reads Secrets", path);
    const url = new URL(this.access.server + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept, ...(await this.access.headers()) },
        tls: this.access.tls,
        signal: signal ?? AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const msg = (err as Error).message ?? String(err);
      throw new KubeError(TLS_ERROR.test(msg) ? "tls" : "unreachable", msg, path);
    }
    if (res.ok) return res;
    const body = await res.text();
    let message = body.slice(0, 500);
    try {
      const st = KubeStatus.safeParse(JSON.parse(body));
      if (st.success && st.data.message) message = st.data.message;
    } catch {
      // not JSON: keep the text
    }
    const kind: KubeErrorKind = res.status === 401 ? "unauthorized" : res.status === 403 ? "forbidden" : res.status === 404 ? "notFound" : "http";
    throw new KubeError(kind, message, path, res.status);
  }

  async get<T extends z.ZodType>(path: string, schema: T, query: Record<string, string | number | boolean | undefined> = {}): Promise<z.infer<T>> {
    const res = await this.request(path, query);
    const parsed = schema.safeParse(await res.json());
    if (!parsed.success) throw new KubeError("invalid", `unexpected answer: ${parsed.error.message.slice(0, 300)}`, path);
    return parsed.data;
  }

  /** Opens a watch stream (newline-delimited JSON events in the body, read by src/k8s/informer.ts); `signal` ends it. */
  async watch(path: string, query: Record<string, string | undefined>, signal: AbortSignal): Promise<Response> {
    return this.request(path, { ...query, watch: "1" }, signal);
  }

  /** A container's log, bounded by tailLines (and limitBytes as a second guard). */
  async logs(namespace: string, pod: string, o: { container?: string; previous?: boolean; tailLines?: number; sinceSeconds?: number; limitBytes?: number }): Promise<string> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
    const res = await this.request(path, { container: o.container, previous: o.previous ? "true" : undefined, tailLines: o.tailLines, sinceSeconds: o.sinceSeconds, limitBytes: o.limitBytes ?? 256 * 1024 });
    return res.text();
  }

  /** Any object or list as parsed JSON (the agent's k8s_* tools); `metadataOnly` asks for PartialObjectMetadata. */
  async getJson(path: string, query: Record<string, string | number | boolean | undefined> = {}, o: { metadataOnly?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
    const accept = o.metadataOnly ? "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json" : "application/json";
    const res = await this.request(path, query, o.signal, accept);
    try {
      return (await res.json()) as unknown;
    } catch (err) {
      throw new KubeError("invalid", `unexpected answer: ${(err as Error).message}`, path);
    }
  }
}
