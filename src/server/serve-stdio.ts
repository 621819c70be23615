/**
 * `chatcli serve --stdio`: one client on stdin/stdout, newline-delimited JSON-RPC (line-framer.ts). Frames are
 * handled in arrival order (a request's response is written before the next frame is read), so a client may
 * pipeline requests. stdout carries protocol frames only; logs go to stderr. Ends when stdin ends: every session's
 * turn is interrupted and every session saved before it resolves.
 */
import { encodeFrame, LineFramer } from "./line-framer.ts";
import { RpcConnection } from "./rpc-connection.ts";
import type { SessionHost } from "./session-host.ts";

/** Per-frame cap (a prompt with pasted files stays well below it). */
export const STDIO_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface StdioServeOptions {
  host: SessionHost;
  input: AsyncIterable<Uint8Array>;
  write(text: string): void;
  serverVersion: string;
  log?: (line: string) => void;
  maxFrameBytes?: number;
}

export async function serveStdio(o: StdioServeOptions): Promise<void> {
  const conn = new RpcConnection({ id: "stdio", host: o.host, send: (m) => o.write(encodeFrame(m)), serverVersion: o.serverVersion, ...(o.log ? { log: o.log } : {}) });
  let chain: Promise<void> = Promise.resolve();
  const framer = new LineFramer(o.maxFrameBytes ?? STDIO_MAX_FRAME_BYTES, (f) => {
    chain = chain.then(() => (f.kind === "line" ? conn.receive(f.text) : conn.oversize(f.bytes)));
  });
  for await (const chunk of o.input) framer.push(chunk);
  framer.end();
  await chain;
  conn.closed();
}
