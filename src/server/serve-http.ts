/**
 * `chatcli serve` over HTTP (docs/server.md "Transports" 2): one Bun.serve with
 *   POST /rpc   one JSON-RPC request per HTTP request (client id: `X-Chatcli-Client`, default "http")
 *   GET  /ws    WebSocket, one JSON-RPC message per text frame both ways (the full protocol)
 *   GET  /events?sessionId=…&afterSeq=…   SSE of that session's events (`id:` = seq, `Last-Event-ID` resumes)
 *   GET  /status JSON counters (metrics.ts)
 * Every request passes, in order: the Host check (421), the Origin allowlist (403), the bearer token (401). Log
 * lines carry the client id, method, outcome and duration — never params, tokens or headers.
 */
import type { Server, ServerWebSocket } from "bun";
import { browserAllowed, hostAllowed, isAuthorized, tokenOf } from "./auth.ts";
import { HttpClient, openEventStream, type EventStream } from "./http-clients.ts";
import type { ServerMetrics } from "./metrics.ts";
import { OutboundQueue } from "./outbound-queue.ts";
import { RPC_ERROR, SERVER_PROTOCOL_VERSION } from "./protocol.ts";
import { RpcConnection } from "./rpc-connection.ts";
import { RpcFailure, type SessionHost } from "./session-host.ts";

export const HTTP_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Per client: bytes waiting in our queue before it is dropped as slow. */
export const CLIENT_QUEUE_MAX_BYTES = 8 * 1024 * 1024;
/** WebSocket: we hand frames to the socket while its own buffer is below this. */
export const WS_HIGH_WATER_BYTES = 1024 * 1024;
/** A POST/SSE client with no open stream and no request for this long is detached and forgotten. */
export const IDLE_HTTP_CLIENT_MS = 15 * 60_000;
/** The close code of a slow client (4000-4999: private use). */
export const CLOSE_SLOW_CLIENT = 4008;

export interface HttpServeOptions {
  host: SessionHost;
  hostname: string;
  port: number;
  token: string;
  allowedOrigins: readonly string[];
  tls?: { cert: string; key: string };
  serverVersion: string;
  metrics: ServerMetrics;
  log(line: string): void;
  maxMessageBytes?: number;
  queueMaxBytes?: number;
  wsHighWaterBytes?: number;
}

export interface HttpServer {
  readonly url: string;
  readonly port: number;
  /** Ends every turn, saves every session, tells every client `server/closing {shutdown}`, stops listening. */
  shutdown(): Promise<void>;
}

interface WsData {
  id: string;
  protocol?: string;
  opened: number;
  conn?: RpcConnection;
  queue?: OutboundQueue;
  chain: Promise<void>;
  poll?: ReturnType<typeof setInterval>;
}

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function serveHttp(o: HttpServeOptions): HttpServer {
  const maxBytes = o.maxMessageBytes ?? HTTP_MAX_MESSAGE_BYTES;
  const queueMax = o.queueMaxBytes ?? CLIENT_QUEUE_MAX_BYTES;
  const hwm = o.wsHighWaterBytes ?? WS_HIGH_WATER_BYTES;
  const sockets = new Set<ServerWebSocket<WsData>>();
  const httpClients = new Map<string, HttpClient>();
  let seq = 0;
  const nextId = (kind: string) => `${kind}-${++seq}`;
  o.host.observer = (event) => o.metrics.observe(event);

  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => Response.json(body, { status, headers });
  const deny = (status: 401 | 403 | 421, what: string, t0: number) => {
    o.metrics.refused(status);
    o.log(`- ${what} ${status} ${ms(t0)}ms`);
    return new Response(null, { status, headers: status === 401 ? { "www-authenticate": "Bearer" } : {} });
  };

  const httpClient = (id: string) => {
    let c = httpClients.get(id);
    if (!c) {
      // Clients come and go by header: one idle past IDLE_HTTP_CLIENT_MS with no open stream is detached and forgotten.
      const now = Date.now();
      for (const [k, old] of httpClients) {
        if (old.streams.size > 0 || now - old.lastUsed < IDLE_HTTP_CLIENT_MS) continue;
        o.host.detach(old.conn);
        httpClients.delete(k);
      }
      c = new HttpClient(id, { host: o.host, serverVersion: o.serverVersion, log: o.log, sent: (cid) => o.metrics.sent(cid), answered: (err) => o.metrics.request(err ? "error" : "ok") });
      httpClients.set(id, c);
    }
    return c;
  };

  const rpc = async (req: Request, cors: Record<string, string>): Promise<Response> => {
    const rawId = req.headers.get("x-chatcli-client");
    if (rawId !== null && !CLIENT_ID.test(rawId)) return json({ jsonrpc: "2.0", id: null, error: { code: RPC_ERROR.invalidRequest, message: "bad X-Chatcli-Client header" } }, 400, cors);
    const declared = Number(req.headers.get("content-length") ?? "0");
    const tooLarge = () => json({ jsonrpc: "2.0", id: null, error: { code: RPC_ERROR.messageTooLarge, message: `message too large (limit ${maxBytes} bytes)` } }, 413, cors);
    if (declared > maxBytes) return tooLarge();
    const body = await req.arrayBuffer().catch(() => undefined);
    if (body === undefined || body.byteLength > maxBytes) return tooLarge();
    const client = httpClient(rawId ?? "http");
    const answer = await client.call(new TextDecoder().decode(body));
    return answer === undefined ? new Response(null, { status: 204, headers: cors }) : json(answer, 200, { ...cors, "x-chatcli-client": client.id });
  };

  const events = async (req: Request, url: URL, cors: Record<string, string>): Promise<Response> => {
    const rawId = req.headers.get("x-chatcli-client");
    if (rawId !== null && !CLIENT_ID.test(rawId)) return new Response("bad X-Chatcli-Client header\n", { status: 400, headers: cors });
    const sessionId = url.searchParams.get("sessionId");
    if (!sessionId) return new Response("sessionId is required\n", { status: 400, headers: cors });
    const resume = req.headers.get("last-event-id") ?? url.searchParams.get("afterSeq");
    const afterSeq = resume === null ? undefined : Number(resume);
    if (afterSeq !== undefined && !(Number.isInteger(afterSeq) && afterSeq >= 0)) return new Response("afterSeq must be a non-negative integer\n", { status: 400, headers: cors });
    const client = httpClient(rawId ?? nextId("sse"));
    client.lastUsed = Date.now();
    const t0 = performance.now();
    client.streams.get(sessionId)?.close();
    let stream: EventStream | undefined;
    const opened = openEventStream({
      sessionId,
      maxQueuedBytes: queueMax,
      onOverflow: () => {
        o.metrics.droppedClient();
        o.log(`${client.id} events slow_client`);
      },
      onClose: () => {
        if (client.streams.get(sessionId) === stream) client.streams.delete(sessionId);
        o.metrics.disconnected(`${client.id}/${sessionId}`);
        // A reader that went away detaches (a ghost must not keep the driver's seat); it resumes with Last-Event-ID.
        if (client.streams.size === 0) o.host.detach(client.conn);
        o.log(`${client.id} events closed ${ms(t0)}ms`);
      },
    });
    stream = opened.stream;
    client.streams.set(sessionId, stream);
    o.metrics.connected(`${client.id}/${sessionId}`, "sse");
    try {
      // Without a resume point the stream starts at the oldest event kept (nothing is missed between an attach
      // over POST /rpc and this request); a saved session is resumed.
      const attached = await o.host.load(client.conn, sessionId, afterSeq ?? 0).catch((e: unknown) => {
        if (afterSeq === undefined && e instanceof RpcFailure && e.code === RPC_ERROR.invalidParams) return o.host.load(client.conn, sessionId);
        throw e;
      });
      attached.afterResponse();
    } catch (e) {
      stream.close();
      const code = e instanceof RpcFailure ? e.code : RPC_ERROR.internalError;
      o.log(`${client.id} events error ${code} ${ms(t0)}ms`);
      return json({ jsonrpc: "2.0", id: null, error: { code, message: e instanceof Error ? e.message : String(e) } }, code === RPC_ERROR.sessionNotFound ? 404 : 400, cors);
    }
    o.log(`${client.id} events open`);
    return new Response(opened.body, { headers: { ...cors, "content-type": "text/event-stream", "cache-control": "no-store", "x-chatcli-client": client.id } });
  };

  const server: Server<WsData> = Bun.serve<WsData>({
    hostname: o.hostname,
    port: o.port,
    ...(o.tls ? { tls: { cert: o.tls.cert, key: o.tls.key } } : {}),
    maxRequestBodySize: maxBytes + 1024,
    idleTimeout: 120,
    async fetch(req, srv) {
      const t0 = performance.now();
      // The Host check comes before anything reads the URL (a Host Bun cannot parse must not become a 500).
      if (!hostAllowed(req.headers.get("host"), o.hostname)) return deny(421, req.method, t0);
      const url = URL.canParse(req.url) ? new URL(req.url) : undefined;
      if (!url) return deny(421, req.method, t0);
      const what = `${req.method} ${url.pathname}`;
      const origin = req.headers.get("origin");
      if (!browserAllowed(req.headers, o.allowedOrigins)) return deny(403, what, t0);
      const cors: Record<string, string> = origin ? { "access-control-allow-origin": origin, vary: "Origin" } : {};
      if (req.method === "OPTIONS" && origin) {
        return new Response(null, { status: 204, headers: { ...cors, "access-control-allow-methods": "GET, POST", "access-control-allow-headers": "authorization, content-type, x-chatcli-client, last-event-id", "access-control-max-age": "600" } });
      }
      if (!isAuthorized(req.headers, o.token)) return deny(401, what, t0);
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /rpc") return rpc(req, cors);
      if (route === "GET /events") {
        srv.timeout(req, 0);
        return events(req, url, cors);
      }
      if (route === "GET /status") {
        o.log(`- ${what} 200 ${ms(t0)}ms`);
        return json({ protocolVersion: SERVER_PROTOCOL_VERSION, version: o.serverVersion, ...o.metrics.snapshot(o.host.size) }, 200, cors);
      }
      if (route === "GET /ws") {
        const protocol = tokenOf(req.headers)?.protocol;
        const data: WsData = { id: nextId("ws"), opened: performance.now(), chain: Promise.resolve(), ...(protocol ? { protocol } : {}) };
        if (srv.upgrade(req, { data, ...(protocol ? { headers: { "sec-websocket-protocol": protocol } } : {}) })) return undefined;
        o.log(`- ${what} 400 ${ms(t0)}ms`);
        return new Response("expected a WebSocket upgrade\n", { status: 400 });
      }
      const known = ["/rpc", "/events", "/status", "/ws"].includes(url.pathname);
      o.log(`- ${what} ${known ? 405 : 404} ${ms(t0)}ms`);
      return new Response(null, { status: known ? 405 : 404, headers: cors });
    },
    websocket: {
      maxPayloadLength: maxBytes,
      backpressureLimit: 64 * 1024 * 1024,
      idleTimeout: 120,
      open(ws) {
        sockets.add(ws);
        const d = ws.data;
        const stopPoll = () => {
          if (d.poll) clearInterval(d.poll);
          d.poll = undefined;
        };
        const queue = new OutboundQueue({
          write: (frame) => {
            const r = ws.send(frame);
            const ok = r > 0 && ws.getBufferedAmount() < hwm;
            // Bun signals `drain` only after send() returned -1; a buffer over our mark is polled instead.
            if (!ok && r !== -1 && !d.poll) d.poll = setInterval(() => ws.getBufferedAmount() < hwm && (stopPoll(), queue.drained()), 25);
            return ok;
          },
          maxBytes: queueMax,
          onOverflow: () => {
            stopPoll();
            o.metrics.droppedClient();
            o.log(`${d.id} ws slow_client`);
            ws.send(JSON.stringify({ jsonrpc: "2.0", method: "server/closing", params: { reason: "slow_client", message: "the client did not read its events fast enough" } }));
            ws.close(CLOSE_SLOW_CLIENT, "slow_client");
          },
        });
        d.queue = queue;
        d.conn = new RpcConnection({
          id: d.id,
          host: o.host,
          serverVersion: o.serverVersion,
          log: o.log,
          send: (m) => {
            const msg = m as { method?: string; error?: unknown };
            if (msg.method === "session/event") o.metrics.sent(d.id);
            else if (msg.method === undefined) o.metrics.request(msg.error !== undefined ? "error" : "ok");
            queue.push(JSON.stringify(m));
          },
        });
        o.metrics.connected(d.id, "ws");
        o.log(`${d.id} ws open`);
      },
      message(ws, message) {
        const d = ws.data;
        const text = typeof message === "string" ? message : new TextDecoder().decode(message);
        d.chain = d.chain.then(() => d.conn?.receive(text)).catch(() => undefined);
      },
      drain(ws) {
        ws.data.queue?.drained();
      },
      close(ws, code) {
        sockets.delete(ws);
        const d = ws.data;
        if (d.poll) clearInterval(d.poll);
        d.queue?.close();
        d.conn?.closed();
        o.metrics.disconnected(d.id);
        o.log(`${d.id} ws closed ${code} ${ms(d.opened)}ms`);
      },
    },
  });

  const scheme = o.tls ? "https" : "http";
  const shownHost = o.hostname.includes(":") ? `[${o.hostname}]` : o.hostname;
  return {
    url: `${scheme}://${shownHost}:${server.port}`,
    port: server.port ?? o.port,
    shutdown: async () => {
      void server.stop(false); // no new connections; the open ones get their sessions' last events
      await o.host.shutdown();
      const bye = { reason: "shutdown" as const, message: "the server is shutting down" };
      for (const ws of sockets) {
        ws.data.queue?.drained();
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "server/closing", params: bye }));
        ws.close(1001, "shutdown");
      }
      for (const c of httpClients.values()) for (const s of [...c.streams.values()]) s.close(bye);
      await server.stop(true);
    },
  };
}

function ms(t0: number): number {
  return Math.round(performance.now() - t0);
}
