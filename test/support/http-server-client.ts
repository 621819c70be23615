/**
 * Drives `chatcli serve` (HTTP transport) from tests: starts the compiled binary on a free port, reads the
 * listening URL from stderr and the token from its 0600 file; a WebSocket JSON-RPC client and a tiny SSE reader.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BinaryEnv } from "./binary.ts";

export type RpcMsg = {
  jsonrpc: string;
  id?: number | string | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  params?: { sessionId: string; seq: number; event: { type: string } & Record<string, unknown> } & Record<string, unknown>;
};

export interface RunningServer {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  port: number;
  token: string;
  tokenFile: string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `chatcli serve --port 0 …`; resolves once the listening line is out (rejects with stderr if it exits). */
export async function startServer(b: BinaryEnv, args: string[], env: Record<string, string> = {}): Promise<RunningServer> {
  const proc = Bun.spawn([b.bin, "serve", "--port", "0", ...args], { cwd: b.dir, env: { ...b.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let err = "";
  const dec = new TextDecoder();
  const listening = (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      err += dec.decode(chunk, { stream: true });
    }
  })();
  const deadline = Date.now() + 15_000;
  let url: string | undefined;
  while (!url) {
    const m = /listening on (\S+)/.exec(err);
    if (m) url = m[1];
    else if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start (exit ${proc.exitCode}): ${err}`);
    else await Bun.sleep(30);
  }
  const port = Number(new URL(url).port);
  const tokenFile = join(b.env.CHATCLI_HOME!, "server", `${port}.token`);
  const token = readFileSync(tokenFile, "utf8").trim();
  return {
    proc,
    url,
    port,
    token,
    tokenFile,
    stderr: () => err,
    stop: async (signal = "SIGTERM") => {
      proc.kill(signal);
      const code = await proc.exited;
      await listening;
      return code;
    },
  };
}

/** A WebSocket JSON-RPC client. */
export class WsClient {
  readonly messages: RpcMsg[] = [];
  closeCode: number | undefined;
  private nextId = 1;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.onmessage = (e) => {
      this.messages.push(JSON.parse(String(e.data)) as RpcMsg);
      for (const w of this.waiters.splice(0)) w();
    };
    ws.onclose = (e) => {
      this.closeCode = e.code;
      for (const w of this.waiters.splice(0)) w();
    };
  }

  static async open(url: string, token: string, extra: { headers?: Record<string, string>; ca?: string } = {}): Promise<WsClient> {
    const wsUrl = url.replace(/^http/, "ws") + "/ws";
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${token}`, ...extra.headers }, ...(extra.ca ? { tls: { ca: extra.ca } } : {}) } as unknown as string[]);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("websocket failed to open"));
    });
    return new WsClient(ws);
  }

  async request(method: string, params: unknown = {}): Promise<RpcMsg> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((m) => m.id === id);
  }

  async waitFor(pred: (m: RpcMsg) => boolean, timeoutMs = 20_000): Promise<RpcMsg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.messages.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(this.messages.slice(-4))}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  events(sessionId: string): Array<{ seq: number; type: string; event: Record<string, unknown> }> {
    return this.messages.filter((m) => m.method === "session/event" && m.params?.sessionId === sessionId).map((m) => ({ seq: m.params!.seq, type: m.params!.event.type, event: m.params!.event }));
  }

  close(): void {
    this.ws.close();
  }
}

/** POST /rpc with the token (and a client id). */
export async function postRpc(url: string, token: string, method: string, params: unknown = {}, o: { client?: string; id?: number; headers?: Record<string, string> } = {}): Promise<{ status: number; body: RpcMsg | undefined }> {
  const res = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(o.client ? { "x-chatcli-client": o.client } : {}), ...o.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: o.id ?? 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as RpcMsg) : undefined };
}

/** Reads an SSE response: `{id, data}` per event, until `until` matches or the stream ends. */
export async function readSse(res: Response, until: (e: { id?: number; data: RpcMsg }) => boolean, timeoutMs = 20_000): Promise<Array<{ id?: number; data: RpcMsg }>> {
  const out: Array<{ id?: number; data: RpcMsg }> = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data === undefined) continue;
        const e = { ...(id ? { id: Number(id) } : {}), data: JSON.parse(data) as RpcMsg };
        out.push(e);
        if (until(e)) return out;
      }
    }
    return out;
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}
