/**
 * `chatcli serve --stdio`: one client on stdin/stdout, newline-delimited JSON-RPC (line-framer.ts). Frames are
 * handled in arrival order (a request's response is written before the next frame is read), so a client may
 * pipeline requests. stdout carries protocol frames only; logs go to stderr. Resolves when stdin ends or `signal`
 * aborts, once the frames read so far are answered and the host is shut down (turns end, sessions saved) while the
 * client is still attached, so it reads every session's last events.
 *
 * Backpressure: everything for the client goes through an OutboundQueue around `output`. Bun's stdout never blocks
 * the event loop, it buffers without bound; so once `write` returns false frames wait in the queue (bounded by
 * bytes) until `drain`. A reader that stops reading never stalls a session's bus: past the bound it is dropped with
 * `server/closing {reason: slow_client}` and the server ends as on stdin's end (turns end, sessions saved, so a new
 * server resumes them with session/load).
 */
import { t } from "../i18n/i18n.ts";
import { encodeFrame, LineFramer } from "./line-framer.ts";
import { OutboundQueue } from "./outbound-queue.ts";
import { RpcConnection } from "./rpc-connection.ts";
import type { SessionHost } from "./session-host.ts";

/** Per-frame cap (a prompt with pasted files stays well below it). */
export const STDIO_MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** Bytes that may wait for a reader that does not keep up before it is dropped. */
export const STDIO_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** process.stdout's shape: `write` false = its buffer is full; "drain" = it can take more; "error" = the reader is gone (EPIPE). */
export interface StdioOutput {
  write(text: string): boolean;
  once(event: "drain", listener: () => void): unknown;
  on(event: "error", listener: () => void): unknown;
  off(event: "error", listener: () => void): unknown;
}

export interface StdioServeOptions {
  host: SessionHost;
  input: ReadableStream<Uint8Array>;
  output: StdioOutput;
  /** Stop reading (SIGTERM): resolves as if stdin had ended. */
  signal?: AbortSignal;
  serverVersion: string;
  log?: (line: string) => void;
  /** A line for the operator about the connection itself (a dropped or vanished client); complete, not a request line. */
  warn?: (line: string) => void;
  /** Before the host shuts down, with the number of live sessions (a log line). */
  onShutdown?: (sessions: number) => void;
  maxFrameBytes?: number;
  maxQueuedBytes?: number;
}

export interface StdioServeResult {
  /** The client was dropped for reading too slowly. */
  dropped: boolean;
  /** stdout broke (the reader closed it): the client is gone. */
  outputLost: boolean;
}

export async function serveStdio(o: StdioServeOptions): Promise<StdioServeResult> {
  const reader = o.input.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  let dropped = false;
  let outputLost = false;
  let awaitingDrain = false;
  const queue: OutboundQueue = new OutboundQueue({
    write: (frame) => {
      const ok = o.output.write(frame);
      if (!ok && !awaitingDrain) {
        awaitingDrain = true;
        o.output.once("drain", () => {
          awaitingDrain = false;
          queue.drained();
        });
      }
      return ok;
    },
    maxBytes: o.maxQueuedBytes ?? STDIO_MAX_QUEUED_BYTES,
    onOverflow: (bytes) => {
      dropped = true;
      // Past the queue on purpose: the reader finds why the stream ended right after the last frame it got.
      o.output.write(encodeFrame({ jsonrpc: "2.0", method: "server/closing", params: { reason: "slow_client", message: t("serve.slowClient", { bytes }) } }));
      o.warn?.(t("serve.log.slowClient", { client: "stdio", bytes }));
      stop();
    },
  });
  // A reader that closed stdout is a client that left: without this listener the EPIPE would surface inside a
  // session's event emit and stall its turn. The server ends as on stdin's end.
  const lost = () => {
    if (outputLost) return;
    outputLost = true;
    queue.close();
    o.warn?.(t("serve.log.outputLost", { client: "stdio" }));
    stop();
  };
  o.output.on("error", lost);
  const conn = new RpcConnection({ id: "stdio", host: o.host, send: (m) => queue.push(encodeFrame(m)), serverVersion: o.serverVersion, ...(o.log ? { log: o.log } : {}) });
  let chain: Promise<void> = Promise.resolve();
  const framer = new LineFramer(o.maxFrameBytes ?? STDIO_MAX_FRAME_BYTES, (f) => {
    chain = chain.then(() => (dropped || outputLost ? undefined : f.kind === "line" ? conn.receive(f.text) : conn.oversize(f.bytes)));
  });
  o.signal?.addEventListener("abort", stop, { once: true });
  if (o.signal?.aborted) stop();
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    framer.push(value);
  }
  o.signal?.removeEventListener("abort", stop);
  framer.end();
  await chain;
  // The one client may still read after closing stdin (or on SIGTERM): it gets every session's last events.
  if (dropped || outputLost) conn.closed();
  o.onShutdown?.(o.host.size);
  await o.host.shutdown();
  conn.closed();
  // What still waits is handed to stdout, which the process flushes before it exits (cli/exit-when-flushed.ts).
  queue.flush();
  o.output.off("error", lost);
  return { dropped, outputLost };
}
