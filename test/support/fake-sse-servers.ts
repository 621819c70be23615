/**
 * A fake SSE server on 127.0.0.1 (port 0) for the OpenAI, Anthropic and Gemini wire protocols: every POST
 * takes the next scripted reply (FIFO; `defaultReply` when dry) and replays a recorded stream from
 * test/fixtures/streams/ event by event. Faults: an HTTP status with headers and body, a dropped
 * connection after N events, a malformed chunk at position N, a stall after N events.
 * JSON routes (`json`) answer GETs and form POSTs (device flow) from per-path FIFO scripts.
 * Every request is recorded with its path, headers and parsed body. `strict` refuses what strict servers
 * refuse (strict-wire.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strictWireError } from "./strict-wire.ts";

export interface FakeSseReply {
  /** A file in test/fixtures/streams/, events separated by blank lines. */
  fixture?: string;
  /** Raw event blocks, used instead of a fixture. */
  events?: string[];
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Close the connection abruptly after this many events. */
  dropAfter?: number;
  /** Stop sending (connection kept open) after this many events. */
  stallAfter?: number;
  /** Insert `data: {not json` before event N (0-based). */
  malformedAt?: number;
  /** Answer only a request whose body JSON contains this text; the first queued reply without one, or fitting, is taken. */
  match?: string;
  /** Delay before each event (default 1 ms). */
  eventDelayMs?: number;
}

export interface FakeJsonReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RecordedSseRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: unknown;
  /** When the request arrived and when its response stream ended. */
  at: number;
  endedAt?: number;
}

export interface FakeSseServer {
  url: string;
  requests: RecordedSseRequest[];
  /** Bodies of the streaming POSTs, in order. */
  streamBodies(): Array<Record<string, unknown>>;
  enqueue(...replies: FakeSseReply[]): void;
  stop(): void;
}

export interface FakeSseOptions {
  replies?: FakeSseReply[];
  defaultReply?: FakeSseReply;
  /** path → replies; the last one repeats. */
  json?: Record<string, FakeJsonReply[]>;
  /** Refuse (HTTP 400) what strict servers refuse: see strict-wire.ts. */
  strict?: boolean;
}

const FIXTURES = join(import.meta.dir, "..", "fixtures", "streams");

export function fixtureEvents(name: string): string[] {
  return readFileSync(join(FIXTURES, name), "utf8")
    .split(/\n\s*\n/)
    .map((e) => e.trim())
    .filter(Boolean);
}

export function startFakeSse(opts: FakeSseOptions = {}): FakeSseServer {
  const queue = [...(opts.replies ?? [])];
  const requests: RecordedSseRequest[] = [];
  const streamPaths = new Set<number>();
  const json = Object.fromEntries(Object.entries(opts.json ?? {}).map(([k, v]) => [k, [...v]]));
  const stalls: Array<ReadableStreamDefaultController<Uint8Array>> = [];
  const enc = new TextEncoder();

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "POST" ? await req.text() : "";
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        if (text.includes("=")) body = Object.fromEntries(new URLSearchParams(text));
      }
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      const recorded: RecordedSseRequest = { method: req.method, path: url.pathname, search: url.search, headers, body, at: Date.now() };
      requests.push(recorded);
      const scripted = json[url.pathname];
      if (scripted?.length) {
        const r = (scripted.length > 1 ? scripted.shift() : scripted[0]) as FakeJsonReply;
        return Response.json(r.body, { status: r.status ?? 200, ...(r.headers ? { headers: r.headers } : {}) });
      }
      if (req.method !== "POST") return Response.json({ error: { message: "not found" } }, { status: 404 });
      streamPaths.add(requests.length - 1);
      const refused = opts.strict ? strictWireError(url.pathname, body) : undefined;
      if (refused) return Response.json({ error: { type: "invalid_request_error", message: refused } }, { status: 400 });
      const matchIndex = queue.findIndex((r) => r.match === undefined || text.includes(r.match));
      const reply = (matchIndex >= 0 ? queue.splice(matchIndex, 1)[0] : undefined) ?? opts.defaultReply ?? { events: [] };
      if (reply.status && reply.status >= 400) {
        return new Response(reply.body ?? JSON.stringify({ error: { message: `HTTP ${reply.status}` } }), {
          status: reply.status,
          headers: { "content-type": "application/json", ...(reply.headers ?? {}) },
        });
      }
      const events = reply.events ?? (reply.fixture ? fixtureEvents(reply.fixture) : []);
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(c) {
          if (reply.malformedAt === i) {
            reply.malformedAt = -1;
            c.enqueue(enc.encode("data: {not json\n\n"));
            return;
          }
          if (reply.dropAfter !== undefined && i >= reply.dropAfter) {
            // Let the headers and the events before the drop reach the client first; erroring at once can
            // reset the socket before the response starts (a connect-time failure, which is retried).
            await Bun.sleep(30);
            c.error(new Error("fake drop"));
            return;
          }
          if (reply.stallAfter !== undefined && i >= reply.stallAfter) {
            stalls.push(c);
            return new Promise<void>(() => undefined);
          }
          const ev = events[i++];
          if (ev === undefined) {
            recorded.endedAt = Date.now();
            c.close();
            return;
          }
          c.enqueue(enc.encode(`${ev}\n\n`));
          await Bun.sleep(reply.eventDelayMs ?? 1);
        },
        cancel() {
          recorded.endedAt ??= Date.now();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...(reply.headers ?? {}) } });
    },
    error() {
      return new Response("fake server error", { status: 500 });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    streamBodies: () => requests.filter((_, i) => streamPaths.has(i)).map((r) => r.body as Record<string, unknown>),
    enqueue: (...r) => queue.push(...r),
    stop: () => {
      for (const c of stalls) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      server.stop(true);
    },
  };
}
