/**
 * The client's WebSocket channel to `chatcli serve` (GET /ws, one JSON-RPC message per text frame) and the
 * pre-flight that turns the failures a WebSocket cannot tell apart (it only says "error") into reasons a person
 * can act on: nothing listening, a token the server refuses (401), a certificate we do not trust.
 * The token travels in the Authorization header, never in the URL.
 */
import type { RpcChannel } from "./rpc-client.ts";

export interface ServerTarget {
  /** http(s)://host:port (no path): /ws and /status are derived from it. */
  base: string;
  token?: string;
  /** PEM of a CA (or the self-signed certificate) to trust for https/wss. */
  ca?: string;
  /** Accept any certificate (self-signed servers; the person asked for it). */
  insecureTls?: boolean;
}

export type ProbeResult = { ok: true } | { ok: false; kind: "refused" | "unauthorized" | "tls" | "http"; detail: string };

function tlsOptions(t: ServerTarget): { tls?: { ca?: string; rejectUnauthorized?: boolean } } {
  if (!t.base.startsWith("https:")) return {};
  return { tls: { ...(t.ca ? { ca: t.ca } : {}), ...(t.insecureTls ? { rejectUnauthorized: false } : {}) } };
}

function authHeaders(t: ServerTarget): Record<string, string> {
  return t.token ? { Authorization: `Bearer ${t.token}` } : {};
}

/** GET /status with the token: is a chatcli server there, and does it take our token? */
export async function probeServer(t: ServerTarget, timeoutMs = 5_000): Promise<ProbeResult> {
  try {
    const res = await fetch(`${t.base}/status`, { headers: authHeaders(t), signal: AbortSignal.timeout(timeoutMs), ...tlsOptions(t) });
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 401) return { ok: false, kind: "unauthorized", detail: "401" };
    if (!res.ok) return { ok: false, kind: "http", detail: `HTTP ${res.status}` };
    return { ok: true };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    const detail = `${err.code ?? ""} ${err.message ?? String(e)}`.trim();
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS|SSL|certificate/i.test(detail)) return { ok: false, kind: "tls", detail };
    return { ok: false, kind: "refused", detail };
  }
}

/** Opens the WebSocket; resolves once it is open, rejects when it closes or fails first. */
export function openWsChannel(t: ServerTarget, timeoutMs = 10_000): Promise<RpcChannel> {
  const url = `${t.base.replace(/^http/, "ws")}/ws`;
  return new Promise<RpcChannel>((resolve, reject) => {
    const ws = new WebSocket(url, { headers: authHeaders(t), ...tlsOptions(t) });
    let onMessage: (text: string) => void = () => undefined;
    let onClose: (reason: string) => void = () => undefined;
    let open = false;
    let closed = false;
    const timer = setTimeout(() => {
      if (open) return;
      ws.close();
      reject(new Error(`no WebSocket answer from ${url} in ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (reason: string) => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      if (!open) reject(new Error(reason));
      else onClose(reason);
    };
    ws.addEventListener("open", () => {
      open = true;
      clearTimeout(timer);
      resolve({
        send: (text) => {
          if (!closed && ws.readyState === WebSocket.OPEN) ws.send(text);
        },
        onMessage: (l) => (onMessage = l),
        onClose: (l) => (onClose = l),
        close: () => {
          ws.close(1000, "client closed");
          finish("closed by the client");
        },
      });
    });
    ws.addEventListener("message", (ev) => {
      if (typeof ev.data === "string") onMessage(ev.data);
      else onMessage(new TextDecoder().decode(ev.data as ArrayBuffer));
    });
    ws.addEventListener("error", () => finish(`WebSocket error on ${url}`));
    ws.addEventListener("close", (ev) => finish(`WebSocket closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ""})`));
  });
}
