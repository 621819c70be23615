/**
 * `chatcli serve --stdio`: one client on stdin/stdout, newline-delimited JSON-RPC (line-framer.ts). Frames are
 * handled in arrival order (a request's response is written before the next frame is read), so a client may
 * pipeline requests. stdout carries protocol frames only; logs go to stderr. Resolves when stdin ends or `signal`
 * aborts, once the frames read so far are answered and the host is shut down (turns end, sessions saved) while the
 * client is still attached, so it reads every session's last events.
 */
import { encodeFrame, LineFramer } from "./line-framer.ts";
import { RpcConnection } from "./rpc-connection.ts";
import type { SessionHost } from "./session-host.ts";

/** Per-frame cap (a prompt with pasted files stays well below it). */
export const STDIO_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface StdioServeOptions {
  host: SessionHost;
  input: ReadableStream<Uint8Array>;
  /** Stop reading (SIGTERM): resolves as if stdin had ended. */
  signal?: AbortSignal;
  write(text: string): void;
  serverVersion: string;
  log?: (line: string) => void;
  /** Before the host shuts down, with the number of live sessions (a log line). */
  onShutdown?: (sessions: number) => void;
  maxFrameBytes?: number;
}

export async function serveStdio(o: StdioServeOptions): Promise<void> {
  const conn = new RpcConnection({ id: "stdio", host: o.host, send: (m) => o.write(encodeFrame(m)), serverVersion: o.serverVersion, ...(o.log ? { log: o.log } : {}) });
  let chain: Promise<void> = Promise.resolve();
  const framer = new LineFramer(o.maxFrameBytes ?? STDIO_MAX_FRAME_BYTES, (f) => {
    chain = chain.then(() => (f.kind === "line" ? conn.receive(f.text) : conn.oversize(f.bytes)));
  });
  const reader = o.input.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
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
  o.onShutdown?.(o.host.size);
  await o.host.shutdown();
  conn.closed();
}
