/**
 * `chatcli serve` over HTTP/WebSocket/SSE (the default transport): the bind policy, the token (random, or
 * CHATCLI_SERVER_TOKEN / --token-file) and its 0600 file, TLS, then serve-http.ts until SIGTERM/SIGINT, which end
 * every turn, save every session, close every connection with `server/closing {shutdown}` and remove the token
 * file. `--probe [URL]` checks a running server's /status (Kubernetes exec probes). Exit codes: 0, 1 failure, 2 usage.
 */
import { readFileSync } from "node:fs";
import { chatcliHome } from "../../config/paths.ts";
import { loadConfig } from "../../config/load-config.ts";
import { t } from "../../i18n/i18n.ts";
import { checkBind, newToken, readTokenFile, removeTokenFile, tokenFilePath, writeTokenFile } from "../../server/auth.ts";
import { ServerMetrics } from "../../server/metrics.ts";
import { serveHttp, type HttpServer } from "../../server/serve-http.ts";
import { queueBytesFromEnv } from "../../server/limits.ts";
import type { SessionHost } from "../../server/session-host.ts";
import { VERSION } from "../../version.ts";

interface Out {
  write(s: string): unknown;
}

export const DEFAULT_PORT = 7433;
export const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

export interface HttpArgs {
  host: string;
  port: number;
  allowRemote: boolean;
  tlsCert?: string;
  tlsKey?: string;
  insecure: boolean;
  allowOrigins: string[];
  tokenFile?: string;
}

/** The token the operator supplied (env first, then --token-file), or undefined for a random one. Throws a message. */
function suppliedToken(env: Record<string, string | undefined>, tokenFile: string | undefined): string | undefined {
  const fromEnv = env.CHATCLI_SERVER_TOKEN;
  if (fromEnv !== undefined) {
    if (!fromEnv.trim()) throw new Error(t("serve.http.emptyToken", { source: "CHATCLI_SERVER_TOKEN" }));
    return fromEnv.trim();
  }
  if (tokenFile === undefined) return undefined;
  try {
    return readTokenFile(tokenFile);
  } catch (e) {
    throw new Error(t("serve.http.cannotRead", { file: tokenFile, error: (e as Error).message }));
  }
}

export async function serveHttpCommand(a: HttpArgs, host: SessionHost, err: Out, env: Record<string, string | undefined> = process.env): Promise<number> {
  const verdict = checkBind({ host: a.host, allowRemote: a.allowRemote, insecure: a.insecure, ...(a.tlsCert ? { tlsCert: a.tlsCert } : {}), ...(a.tlsKey ? { tlsKey: a.tlsKey } : {}) });
  if (!verdict.ok) {
    const key = verdict.reason === "tlsPair" ? "serve.http.tlsPair" : verdict.reason === "needsAllowRemote" ? "serve.http.needsAllowRemote" : "serve.http.needsTls";
    err.write(`chatcli: ${t(key, { host: a.host })}\n${t("serve.runHelp")}\n`);
    return 2;
  }
  let token: string;
  let tls: { cert: string; key: string } | undefined;
  try {
    token = suppliedToken(env, a.tokenFile) ?? newToken();
    if (a.tlsCert && a.tlsKey) tls = { cert: readPem(a.tlsCert), key: readPem(a.tlsKey) };
  } catch (e) {
    err.write(`chatcli: ${(e as Error).message}\n`);
    return 2;
  }
  const home = chatcliHome(env);
  const scrub = (s: string) => s.split(token).join("[REDACTED]");
  const log = (line: string) => err.write(`${scrub(t("serve.log.request", { line }))}\n`);
  let server: HttpServer;
  try {
    server = serveHttp({ host, hostname: a.host, port: a.port, token, allowedOrigins: [...a.allowOrigins, ...settingsOrigins(env)], ...(tls ? { tls } : {}), serverVersion: VERSION, metrics: new ServerMetrics(), log, ...queueLimit(env) });
  } catch (e) {
    err.write(`chatcli: ${t("serve.http.cannotListen", { host: a.host, port: String(a.port), error: (e as Error).message })}\n`);
    return 1;
  }
  const file = tokenFilePath(home, server.port);
  try {
    writeTokenFile(home, server.port, token);
  } catch (e) {
    err.write(`chatcli: ${t("serve.http.tokenFileFailed", { file, error: (e as Error).message })}\n`);
    await server.shutdown();
    return 1;
  }
  const cleanup = () => removeTokenFile(file, token);
  process.on("exit", cleanup);
  err.write(`${t("serve.http.listening", { url: server.url })}\n`);
  if (verdict.warnInsecure) err.write(`${t("serve.http.insecure", { url: server.url })}\n`);
  const signal = await new Promise<string>((resolve) => {
    const on = (s: string) => () => resolve(s);
    process.once("SIGTERM", on("SIGTERM"));
    process.once("SIGINT", on("SIGINT"));
  });
  err.write(`${t("serve.http.stopping", { signal, count: host.size })}\n`);
  await server.shutdown();
  cleanup();
  process.off("exit", cleanup);
  return 0;
}

function readPem(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(t("serve.http.cannotRead", { file, error: (e as Error).message }));
  }
}

/** settings `server.allowedOrigins` (user and project); unreadable settings add none (fail closed). */
function settingsOrigins(env: Record<string, string | undefined>): string[] {
  try {
    return loadConfig({ cwd: process.cwd(), env, flags: {} }).settings.server?.allowedOrigins ?? [];
  } catch {
    return [];
  }
}

export interface ProbeArgs {
  url?: string;
  tokenFile?: string;
  tlsCert?: string;
}

/** GET URL/status with the token; 0 on 200, 1 otherwise (one line on stderr says why). */
export async function probeCommand(p: ProbeArgs, out: Out, err: Out, env: Record<string, string | undefined> = process.env): Promise<number> {
  const base = (p.url ?? DEFAULT_URL).replace(/\/+$/, "");
  const fail = (error: string) => {
    err.write(`${t("serve.probe.failed", { url: base, error })}\n`);
    return 1;
  };
  let url: URL;
  try {
    url = new URL(`${base}/status`);
  } catch (e) {
    return fail((e as Error).message);
  }
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const localFile = tokenFilePath(chatcliHome(env), port);
  let token: string | undefined;
  try {
    token = suppliedToken(env, p.tokenFile);
    if (token === undefined) token = readTokenFile(localFile);
  } catch (e) {
    return fail(p.tokenFile || env.CHATCLI_SERVER_TOKEN !== undefined ? (e as Error).message : t("serve.probe.noToken", { file: localFile }));
  }
  let ca: string | undefined;
  try {
    if (p.tlsCert) ca = readPem(p.tlsCert);
  } catch (e) {
    return fail((e as Error).message);
  }
  try {
    const status = await getStatus(url, token, ca);
    if (status !== 200) return fail(t("serve.probe.status", { status: String(status) }));
  } catch (e) {
    return fail((e as Error).message.split(token).join("[REDACTED]"));
  }
  out.write(`${t("serve.probe.ok", { url: base })}\n`);
  return 0;
}

/**
 * GET /status. With `ca` (the `--tls-cert` file) the server must chain to it, or — when the file is the server's
 * own certificate signed by a CA we were not given — present exactly that certificate (checked on a raw TLS
 * connection before the token is sent).
 */
async function getStatus(url: URL, token: string, ca: string | undefined): Promise<number> {
  const headers = { authorization: `Bearer ${token}` };
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000), ...(ca ? { tls: { ca } } : {}) });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch (e) {
    if (!ca || url.protocol !== "https:" || !/certificate|verify/i.test((e as Error).message)) throw e;
    return pinnedStatus(url, token, ca);
  }
}

async function pinnedStatus(url: URL, token: string, certPem: string): Promise<number> {
  const { X509Certificate } = await import("node:crypto");
  const tls = await import("node:tls");
  const pinned = new X509Certificate(certPem).fingerprint256;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise<number>((resolve, reject) => {
    const sock = tls.connect({ host, port: Number(url.port || 443), rejectUnauthorized: false, ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => sock.destroy(new Error("timeout")), 10_000);
    let data = "";
    sock.once("secureConnect", () => {
      if (sock.getPeerCertificate().fingerprint256 !== pinned) {
        sock.destroy(new Error("the server's certificate is not the one in --tls-cert"));
        return;
      }
      sock.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    sock.on("data", (d: Buffer) => {
      data += d.toString("latin1");
    });
    sock.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.once("close", () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m) resolve(Number(m[1]));
      else reject(new Error("no HTTP response"));
    });
  });
}

/** CHATCLI_SERVE_QUEUE_BYTES (server/limits.ts), as serveHttp's option. */
function queueLimit(env: Record<string, string | undefined>): { queueMaxBytes?: number } {
  const bytes = queueBytesFromEnv(env);
  return bytes ? { queueMaxBytes: bytes } : {};
}
