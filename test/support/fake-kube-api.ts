/**
 * A fake Kubernetes API server on 127.0.0.1 for tests: HTTPS with its own CA (test/support/kube-certs.ts), bearer-token
 * auth, list + watch (`?watch=1`: newline-delimited JSON events, ADDED per object then a BOOKMARK; `dropWatchAfterMs`
 * closes the stream mid-way, as an API server does on a timeout), pod logs (`previous`, `tailLines`), a 403 Status for
 * resources named in `forbidden`, and a request log so tests can assert what was (never) asked for — Secrets above all.
 * The objects come from test/support/kube-fixtures.ts or the test itself.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubePki } from "./kube-certs.ts";

export type KubeObject = Record<string, unknown> & { metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string>; [field: string]: unknown } };

export interface KubeState {
  pods: KubeObject[];
  events: KubeObject[];
  deployments: KubeObject[];
  replicasets: KubeObject[];
  jobs: KubeObject[];
  cronjobs: KubeObject[];
  nodes: KubeObject[];
  secrets: KubeObject[];
  configmaps: KubeObject[];
  /** `ns/pod/container` → { current, previous } log text. */
  logs: Record<string, { current?: string; previous?: string }>;
}

export interface RequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
}

export interface FakeKubeOptions {
  pki: KubePki;
  token: string;
  state: Partial<KubeState>;
  /** Resource names (`pods`, `nodes`, `events`, …) answered with 403 Forbidden. */
  forbidden?: string[];
  /** Require a client certificate signed by the CA (mutual TLS) instead of the bearer token. */
  clientCertAuth?: boolean;
  /** Close a watch stream this long after its BOOKMARK (a dropped watch). */
  dropWatchAfterMs?: number;
}

export interface FakeKube {
  url: string;
  requests: RequestRecord[];
  state: KubeState;
  /** Sends an event to every open watch on `resource` (e.g. a pod turning into CrashLoopBackOff). */
  push(resource: keyof KubeState, type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject): void;
  /** Writes a kubeconfig for this server; `ca` overrides the CA (a wrong one must fail), `user` the user entry. */
  writeKubeconfig(dir: string, o?: { ca?: string; user?: Record<string, unknown>; namespace?: string; context?: string }): string;
  stop(): void;
}

// Path → resource: core (/api/v1) and group (/apis/g/v) resources, namespaced or cluster-wide.
const ROUTE = /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?(?:\/(log))?$/;

function status(code: number, reason: string, message: string): Response {
  return Response.json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code }, { status: code });
}

let rv = 1000;

export function startFakeKube(o: FakeKubeOptions): FakeKube {
  const state: KubeState = { pods: [], events: [], deployments: [], replicasets: [], jobs: [], cronjobs: [], nodes: [], secrets: [], configmaps: [], logs: {}, ...o.state };
  const requests: RequestRecord[] = [];
  const watchers = new Map<string, Set<(line: string) => void>>();

  const inScope = (obj: KubeObject, ns: string | undefined, selector: string | undefined): boolean => {
    if (ns && obj.metadata.namespace !== ns) return false;
    if (!selector) return true;
    return selector.split(",").every((term) => {
      const [k, v] = term.split("=");
      return obj.metadata.labels?.[k ?? ""] === v;
    });
  };

  const watch = (resource: string, items: KubeObject[]): Response => {
    let close: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const enc = new TextEncoder();
        const send = (line: string) => controller.enqueue(enc.encode(`${line}\n`));
        for (const item of items) send(JSON.stringify({ type: "ADDED", object: item }));
        send(JSON.stringify({ type: "BOOKMARK", object: { kind: "Bookmark", metadata: { resourceVersion: String(++rv) } } }));
        const set = watchers.get(resource) ?? new Set();
        watchers.set(resource, set);
        set.add(send);
        close = () => {
          set.delete(send);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        if (o.dropWatchAfterMs !== undefined) setTimeout(() => close?.(), o.dropWatchAfterMs);
      },
      cancel() {
        close?.();
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: o.pki.certPem, key: o.pki.keyPem, ...(o.clientCertAuth ? { ca: o.pki.caPem, requestCert: true, rejectUnauthorized: true } : {}) },
    fetch(req) {
      const url = new URL(req.url);
      const query = Object.fromEntries(url.searchParams);
      requests.push({ method: req.method, path: url.pathname, query, authorization: req.headers.get("authorization") });
      // With mutual TLS the handshake already refused a connection without a certificate signed by the CA.
      if (!o.clientCertAuth && req.headers.get("authorization") !== `Bearer ${o.token}`) return status(401, "Unauthorized", "Unauthorized");
      if (req.method !== "GET") return status(405, "MethodNotAllowed", "the fake API server is read-only");
      const m = ROUTE.exec(url.pathname);
      if (!m) return status(404, "NotFound", `the server could not find the requested resource (${url.pathname})`);
      const [, ns, resource = "", name, sub] = m;
      if (o.forbidden?.includes(resource)) {
        const scope = ns ? `in the namespace "${ns}"` : "at the cluster scope";
        return status(403, "Forbidden", `${resource} is forbidden: User "system:serviceaccount:test:watcher" cannot list resource "${resource}" in API group "" ${scope}`);
      }
      if (!(resource in state) || resource === "logs") return status(404, "NotFound", `no resource ${resource}`);
      const all = state[resource as Exclude<keyof KubeState, "logs">];
      if (sub === "log") {
        const container = query.container ?? "";
        const entry = state.logs[`${ns}/${name}/${container}`] ?? Object.entries(state.logs).find(([k]) => k.startsWith(`${ns}/${name}/`))?.[1];
        const text = query.previous === "true" ? entry?.previous : entry?.current;
        if (text === undefined) return status(400, "BadRequest", `previous terminated container "${container}" in pod "${name}" not found`);
        const lines = text.replace(/\n$/, "").split("\n");
        const tail = query.tailLines ? lines.slice(-Number(query.tailLines)) : lines;
        return new Response(`${tail.join("\n")}\n`, { headers: { "content-type": "text/plain" } });
      }
      if (name) {
        const found = all.find((x) => x.metadata.name === name && (!ns || x.metadata.namespace === ns));
        return found ? Response.json(found) : status(404, "NotFound", `${resource} "${name}" not found`);
      }
      const items = all.filter((x) => inScope(x, ns, query.labelSelector));
      if (query.watch === "1" || query.watch === "true") return watch(resource, items);
      return Response.json({ kind: "List", apiVersion: "v1", metadata: { resourceVersion: String(++rv) }, items });
    },
  });
  const url = `https://127.0.0.1:${server.port}`;

  return {
    url,
    requests,
    state,
    push(resource, type, obj) {
      for (const send of watchers.get(resource) ?? []) send(JSON.stringify({ type, object: obj }));
    },
    writeKubeconfig(dir, k = {}) {
      const file = join(dir, "kubeconfig.yaml");
      const ca = Buffer.from(k.ca ?? o.pki.caPem).toString("base64");
      const user = k.user ?? { token: o.token };
      const ctx = k.context ?? "fake";
      const cfg = {
        apiVersion: "v1",
        kind: "Config",
        "current-context": ctx,
        clusters: [{ name: "fake-cluster", cluster: { server: url, "certificate-authority-data": ca } }],
        users: [{ name: "fake-user", user }],
        contexts: [{ name: ctx, context: { cluster: "fake-cluster", user: "fake-user", namespace: k.namespace ?? "default" } }],
      };
      // JSON is YAML: the kubeconfig loader reads either.
      writeFileSync(file, JSON.stringify(cfg, null, 2));
      return file;
    },
    stop() {
      server.stop(true);
    },
  };
}
