/**
 * A fake Kubernetes API server on 127.0.0.1 for tests: HTTPS with its own CA (test/support/kube-certs.ts), bearer-token
 * auth (or mutual TLS), list + watch, pod logs (`previous`, `tailLines`), metrics.k8s.io pod metrics, RBAC 403s and a
 * request log so tests can assert what was (never) asked for — Secrets above all.
 *
 * Watch follows the API server's contract: without `resourceVersion` it sends ADDED for every object, then a BOOKMARK
 * (when `allowWatchBookmarks`); with one it replays only the changes after it; a version older than the last
 * `expire()` is 410 Gone — an ERROR event in the stream (what servers do) or an HTTP 410 (`expire("http")`).
 * `push` changes the state and tells the open watches in scope; `dropWatches`/`dropWatchAfterMs` end streams mid-way.
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
  /** metrics.k8s.io PodMetrics (`containers[].usage.memory`); served only with `metricsServer: true`. */
  podmetrics: KubeObject[];
  /** `ns/pod/container` → { current, previous } log text. */
  logs: Record<string, { current?: string; previous?: string }>;
}

type Resource = Exclude<keyof KubeState, "logs">;

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
  /** `pods` → every verb on pods is 403; `watch:pods` → only watching them is (list still works). */
  forbidden?: string[];
  /** Require a client certificate signed by the CA (mutual TLS) instead of the bearer token. */
  clientCertAuth?: boolean;
  /** Close a watch stream this long after its BOOKMARK (a dropped watch). */
  dropWatchAfterMs?: number;
  /** metrics-server installed: /apis/metrics.k8s.io answers; otherwise it is a 404 as on a cluster without it. */
  metricsServer?: boolean;
  /** Listen on this port (a server that "comes back" after an outage); default: any free one. */
  port?: number;
  /** Resources this server does not serve at all (404, as for an API group a cluster lacks). */
  unserved?: string[];
  /** A server (or proxy) that ignores `watch=1` and answers the plain list. */
  watchUnsupported?: boolean;
}

export interface FakeKube {
  url: string;
  requests: RequestRecord[];
  state: KubeState;
  /** The current resourceVersion (what a list now returns). */
  readonly resourceVersion: string;
  /** Changes the state (a new resourceVersion) and sends the event to every open watch on `resource` in scope. */
  push(resource: Resource, type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject): void;
  /** Sends a BOOKMARK with the current resourceVersion to every open watch that allowed bookmarks. */
  bookmark(): void;
  /** Ends every open watch stream, as an API server does on its timeout or a restart. */
  dropWatches(): void;
  /** Compacts the history: watches from any earlier resourceVersion get 410 Gone (as an ERROR event, or HTTP 410). */
  expire(as?: "event" | "http"): void;
  /** The token the server accepts from now on (the old one is then "expired": 401). */
  setToken(token: string): void;
  /** Open watch streams (for tests waiting on a re-watch). */
  openWatches(): number;
  /** Writes a kubeconfig for this server; `ca` overrides the CA (a wrong one must fail), `user` the user entry. */
  writeKubeconfig(dir: string, o?: { ca?: string; user?: Record<string, unknown>; namespace?: string; context?: string; server?: string }): string;
  stop(): void;
}

// Path → resource: core (/api/v1) and group (/apis/g/v) resources, namespaced or cluster-wide.
const ROUTE = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?(?:\/(log))?$/;

function status(code: number, reason: string, message: string): Response {
  return Response.json(statusBody(code, reason, message), { status: code });
}

function statusBody(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

interface Watcher {
  resource: string;
  ns?: string;
  selector?: string;
  bookmarks: boolean;
  send(line: string): void;
  close(): void;
}

export function startFakeKube(o: FakeKubeOptions): FakeKube {
  const state: KubeState = { pods: [], events: [], deployments: [], replicasets: [], jobs: [], cronjobs: [], nodes: [], secrets: [], configmaps: [], podmetrics: [], logs: {}, ...o.state };
  const requests: RequestRecord[] = [];
  const watchers = new Set<Watcher>();
  const history: { rv: number; resource: string; type: string; object: KubeObject }[] = [];
  let rv = 1000;
  let compacted = 0;
  let goneAs: "event" | "http" = "event";
  let token = o.token;

  const inScope = (obj: KubeObject, ns: string | undefined, selector: string | undefined): boolean => {
    if (ns && obj.metadata.namespace !== ns) return false;
    if (!selector) return true;
    return selector.split(",").every((term) => {
      const [k, v] = term.split("=");
      return obj.metadata.labels?.[k ?? ""] === v;
    });
  };
  const bookmarkLine = () => JSON.stringify({ type: "BOOKMARK", object: { kind: "Bookmark", metadata: { resourceVersion: String(rv) } } });

  const watch = (resource: string, ns: string | undefined, query: Record<string, string>, items: KubeObject[]): Response => {
    const from = query.resourceVersion && query.resourceVersion !== "0" ? Number(query.resourceVersion) : undefined;
    if (from !== undefined && from < compacted && goneAs === "http") return status(410, "Expired", `too old resource version: ${from} (${compacted})`);
    const bookmarks = query.allowWatchBookmarks === "true";
    let watcher: Watcher | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const enc = new TextEncoder();
        const send = (line: string) => controller.enqueue(enc.encode(`${line}\n`));
        const close = () => {
          if (watcher) watchers.delete(watcher);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        if (from !== undefined && from < compacted) {
          send(JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", `too old resource version: ${from} (${compacted})`) }));
          close();
          return;
        }
        if (from === undefined) for (const item of items) send(JSON.stringify({ type: "ADDED", object: item }));
        else for (const h of history) if (h.rv > from && h.resource === resource && inScope(h.object, ns, query.labelSelector)) send(JSON.stringify({ type: h.type, object: h.object }));
        if (bookmarks) send(bookmarkLine());
        watcher = { resource, bookmarks, send, close, ...(ns ? { ns } : {}), ...(query.labelSelector ? { selector: query.labelSelector } : {}) };
        watchers.add(watcher);
        if (o.dropWatchAfterMs !== undefined) setTimeout(close, o.dropWatchAfterMs);
      },
      cancel() {
        if (watcher) watchers.delete(watcher);
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  };

  const denied = (resource: string, verb: string, ns: string | undefined, group: string | undefined): Response | undefined => {
    if (!o.forbidden?.includes(resource) && !o.forbidden?.includes(`${verb}:${resource}`)) return undefined;
    const scope = ns ? `in the namespace "${ns}"` : "at the cluster scope";
    return status(403, "Forbidden", `${resource} is forbidden: User "system:serviceaccount:test:watcher" cannot ${verb} resource "${resource}" in API group "${group ?? ""}" ${scope}`);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: o.port ?? 0,
    idleTimeout: 0,
    tls: { cert: o.pki.certPem, key: o.pki.keyPem, ...(o.clientCertAuth ? { ca: o.pki.caPem, requestCert: true, rejectUnauthorized: true } : {}) },
    fetch(req) {
      const url = new URL(req.url);
      const query = Object.fromEntries(url.searchParams);
      requests.push({ method: req.method, path: url.pathname, query, authorization: req.headers.get("authorization") });
      // With mutual TLS the handshake already refused a connection without a certificate signed by the CA.
      if (!o.clientCertAuth && req.headers.get("authorization") !== `Bearer ${token}`) return status(401, "Unauthorized", "Unauthorized");
      if (req.method !== "GET") return status(405, "MethodNotAllowed", "the fake API server is read-only");
      const m = ROUTE.exec(url.pathname);
      if (!m) return status(404, "NotFound", `the server could not find the requested resource (${url.pathname})`);
      const [, group, ns, kind = "", name, sub] = m;
      const isMetrics = group === "metrics.k8s.io";
      if (isMetrics && !o.metricsServer) return status(404, "NotFound", "the server could not find the requested resource");
      const resource = isMetrics ? "podmetrics" : kind;
      if (o.unserved?.includes(kind)) return status(404, "NotFound", "the server could not find the requested resource");
      const watching = query.watch === "1" || query.watch === "true";
      const forbidden = denied(kind, name ? "get" : watching ? "watch" : "list", ns, group);
      if (forbidden) return forbidden;
      if (!(resource in state) || resource === "logs" || resource === "podmetrics" && !isMetrics) return status(404, "NotFound", `no resource ${resource}`);
      const all = state[resource as Resource];
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
      if (watching && !o.watchUnsupported) return watch(resource, ns, query, items);
      return Response.json({ kind: "List", apiVersion: "v1", metadata: { resourceVersion: String(rv) }, items });
    },
  });
  const url = `https://127.0.0.1:${server.port}`;

  return {
    url,
    requests,
    state,
    get resourceVersion() {
      return String(rv);
    },
    push(resource, type, obj) {
      rv++;
      const object = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
      const same = (x: KubeObject) => x.metadata.name === object.metadata.name && x.metadata.namespace === object.metadata.namespace;
      const rest = state[resource].filter((x) => !same(x));
      state[resource] = type === "DELETED" ? rest : [...rest, object];
      history.push({ rv, resource, type, object });
      const line = JSON.stringify({ type, object });
      for (const w of watchers) if (w.resource === resource && inScope(object, w.ns, w.selector)) w.send(line);
    },
    bookmark() {
      for (const w of watchers) if (w.bookmarks) w.send(bookmarkLine());
    },
    dropWatches() {
      for (const w of [...watchers]) w.close();
    },
    expire(as = "event") {
      rv++;
      compacted = rv;
      goneAs = as;
      for (const w of [...watchers]) w.close();
    },
    setToken(t) {
      token = t;
    },
    openWatches: () => watchers.size,
    writeKubeconfig(dir, k = {}) {
      const file = join(dir, "kubeconfig.yaml");
      const ca = Buffer.from(k.ca ?? o.pki.caPem).toString("base64");
      const user = k.user ?? { token: o.token };
      const ctx = k.context ?? "fake";
      const cfg = {
        apiVersion: "v1",
        kind: "Config",
        "current-context": ctx,
        clusters: [{ name: "fake-cluster", cluster: { server: k.server ?? url, "certificate-authority-data": ca } }],
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
