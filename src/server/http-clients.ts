/**
 * The clients of the HTTP transport other than WebSockets: a client named by `X-Chatcli-Client` sends its
 * requests as `POST /rpc` (one request per HTTP request, answered in order) and reads its sessions' events from
 * `GET /events` (SSE, `id:` = seq). Requests of one client are handled one at a time, so the response of each is
 * the one message without a `method` sent while it runs; notifications go to the client's open SSE streams
 * (one per session), or nowhere (the replay log keeps them for `afterSeq` / `Last-Event-ID`).
 */
import { OutboundQueue } from "./outbound-queue.ts";
import { RpcConnection } from "./rpc-connection.ts";
import type { SessionHost } from "./session-host.ts";
import type { SessionEventParams } from "./protocol.ts";

export interface HttpClientDeps {
  host: SessionHost;
  serverVersion: string;
  log(line: string): void;
  /** An event delivered on the stream `<clientId>/<sessionId>` (as /status lists SSE streams). */
  sent(streamId: string): void;
  /** One answered request. */
  answered(error: boolean): void;
}

interface Outgoing {
  method?: string;
  params?: unknown;
  error?: unknown;
}

/** One SSE stream: the frames of one session for one client. */
export interface EventStream {
  sessionId: string;
  push(message: Outgoing): void;
  close(reason?: { reason: "shutdown" | "slow_client"; message: string }): void;
}

export class HttpClient {
  readonly conn: RpcConnection;
  readonly streams = new Map<string, EventStream>();
  /** When it last sent a request or opened a stream (idle clients without a stream are forgotten). */
  lastUsed = Date.now();
  private chain: Promise<unknown> = Promise.resolve();
  private captured: Outgoing | undefined;

  constructor(
    readonly id: string,
    private readonly d: HttpClientDeps,
  ) {
    this.conn = new RpcConnection({ id, host: d.host, serverVersion: d.serverVersion, log: d.log, send: (m) => this.route(m as Outgoing) });
  }

  /** One request frame; resolves with its response (undefined for a client notification). */
  call(text: string): Promise<Outgoing | undefined> {
    this.lastUsed = Date.now();
    const next = this.chain.then(async () => {
      this.captured = undefined;
      await this.conn.receive(text);
      const r = this.captured;
      this.captured = undefined;
      return r;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private route(m: Outgoing): void {
    if (m.method === undefined) {
      this.d.answered(m.error !== undefined);
      this.captured ??= m;
      return;
    }
    const sessionId = (m.params as Partial<SessionEventParams> | undefined)?.sessionId;
    const stream = sessionId ? this.streams.get(sessionId) : undefined;
    if (!stream) return;
    this.d.sent(`${this.id}/${sessionId}`);
    stream.push(m);
  }
}

export interface SseOptions {
  sessionId: string;
  /** Frames waiting past this are a slow client: it is dropped with `server/closing {slow_client}`. */
  maxQueuedBytes: number;
  onClose(): void;
  onOverflow(): void;
  /** Keep-alive comment interval (proxies drop idle streams). */
  pingMs?: number;
}

const enc = new TextEncoder();

/** `id: <seq>` for session events, so a browser's EventSource resumes with `Last-Event-ID`. */
export function sseFrame(m: Outgoing): string {
  const seq = m.method === "session/event" ? (m.params as SessionEventParams).seq : undefined;
  return `${seq !== undefined ? `id: ${seq}\n` : ""}data: ${JSON.stringify(m)}\n\n`;
}

/** An SSE response body fed through a bounded OutboundQueue (the session never waits on the reader). */
export function openEventStream(o: SseOptions): { stream: EventStream; body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  let ping: ReturnType<typeof setInterval> | undefined;
  const finish = () => {
    if (done) return;
    done = true;
    if (ping) clearInterval(ping);
    queue.close();
    o.onClose();
  };
  const queue = new OutboundQueue({
    write: (frame) => {
      if (done) return true;
      controller.enqueue(enc.encode(frame));
      return (controller.desiredSize ?? 1) > 0;
    },
    maxBytes: o.maxQueuedBytes,
    onOverflow: () => {
      o.onOverflow();
      stream.close({ reason: "slow_client", message: "the client did not read its events fast enough" });
    },
  });
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        c.enqueue(enc.encode(": chatcli events\n\n"));
        ping = setInterval(() => {
          if (!done && (controller.desiredSize ?? 1) > 0) controller.enqueue(enc.encode(": ping\n\n"));
        }, o.pingMs ?? 15_000);
      },
      pull() {
        queue.drained();
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 256 },
  );
  const stream: EventStream = {
    sessionId: o.sessionId,
    push: (m) => queue.push(sseFrame(m)),
    close: (reason) => {
      if (done) return;
      // The closing notice goes past the queue (it may be the reason the queue is full).
      if (reason) controller.enqueue(enc.encode(sseFrame({ method: "server/closing", params: reason })));
      try {
        controller.close();
      } catch {
        // the reader is gone
      }
      finish();
    },
  };
  return { stream, body };
}
