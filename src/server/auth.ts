/**
 * Security of the HTTP transport (docs/server.md "Security"); every rule fails closed.
 * - the bearer token: 32 random bytes per start (or one the operator supplies), compared in constant time;
 * - the token file `<home>/server/<port>.token`: directory 0700, file 0600, written atomically through a temp file
 *   created with O_EXCL|O_NOFOLLOW and renamed over the old one (never opened through a symlink), removed on exit;
 * - the Origin allowlist (browsers), the Host check (DNS rebinding) and the bind policy (loopback unless
 *   `--allow-remote`, and then TLS or an explicit `--insecure`).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.ts";

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Constant-time comparison (both sides hashed first, so lengths leak nothing either). */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && expected.length > 0;
}

const WS_TOKEN_PROTOCOL = "chatcli.token.";

/**
 * The token a request carries: `Authorization: Bearer <token>`, or on a WebSocket upgrade the subprotocol form
 * `Sec-WebSocket-Protocol: chatcli.token.<token>` (then `protocol` is the value to echo). Never a query string.
 */
export function tokenOf(headers: Headers): { token: string; protocol?: string } | undefined {
  const auth = headers.get("authorization");
  const m = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (m) return { token: m[1]! };
  const protos = (headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const p = protos.find((x) => x.startsWith(WS_TOKEN_PROTOCOL));
  return p ? { token: p.slice(WS_TOKEN_PROTOCOL.length), protocol: p } : undefined;
}

export function isAuthorized(headers: Headers, token: string): boolean {
  const got = tokenOf(headers);
  return got !== undefined && tokensEqual(got.token, token);
}

export function tokenDir(home: string): string {
  return join(home, "server");
}

export function tokenFilePath(home: string, port: number): string {
  return join(tokenDir(home), `${port}.token`);
}

/** The directory 0700 (created, or tightened when it exists; a symlink in its place is refused). */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.isSymbolicLink()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  chmodSync(dir, 0o700);
}

/** Writes the token file atomically (temp file O_EXCL|O_NOFOLLOW 0600, then rename over the old). Returns its path. */
export function writeTokenFile(home: string, port: number, token: string): string {
  const dir = tokenDir(home);
  ensurePrivateDir(dir);
  const file = tokenFilePath(home, port);
  writeFileAtomic(file, `${token}\n`);
  return file;
}

/** Removes the token file if it still holds our token (a later server on the same port owns its own). */
export function removeTokenFile(file: string, token: string): void {
  try {
    if (readTokenFile(file) === token) unlinkSync(file);
  } catch {
    // already gone
  }
}

/** A token file's token (first line, trimmed); throws when missing or empty. */
export function readTokenFile(file: string): string {
  const text = readFileSync(file, "utf8").split("\n")[0]!.trim();
  if (!text) throw new Error(`${file} is empty`);
  return text;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

export interface BindRequest {
  host: string;
  allowRemote: boolean;
  tlsCert?: string;
  tlsKey?: string;
  insecure: boolean;
}

/** Why a bind is refused (an i18n key), or what to warn about. */
export type BindVerdict = { ok: true; warnInsecure: boolean } | { ok: false; reason: "tlsPair" | "needsAllowRemote" | "needsTls" };

export function checkBind(r: BindRequest): BindVerdict {
  if (Boolean(r.tlsCert) !== Boolean(r.tlsKey)) return { ok: false, reason: "tlsPair" };
  if (isLoopbackHost(r.host)) return { ok: true, warnInsecure: false };
  if (!r.allowRemote) return { ok: false, reason: "needsAllowRemote" };
  if (r.tlsCert) return { ok: true, warnInsecure: false };
  if (!r.insecure) return { ok: false, reason: "needsTls" };
  return { ok: true, warnInsecure: true };
}

/** `scheme://host[:port]` in canonical form, or undefined for something that is not an origin. */
export function normalizeOrigin(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

/** No Origin header (not a browser): allowed. An Origin: only when allowlisted (exact, after normalizing). */
export function originAllowed(origin: string | null, allowlist: readonly string[]): boolean {
  if (origin === null) return true;
  const o = normalizeOrigin(origin);
  if (!o) return false;
  return allowlist.some((a) => normalizeOrigin(a) === o);
}

/**
 * The browser guard: the Origin allowlist, and for requests without an Origin the Fetch Metadata a browser adds
 * (`Sec-Fetch-Site`): `cross-site`/`same-site` is a page of another site (an `<img>`, a navigation, a form) even when
 * no Origin was sent; refused unless an allowlisted Origin came with it. Clients that are not browsers send neither.
 */
export function browserAllowed(headers: Headers, allowlist: readonly string[]): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return originAllowed(origin, allowlist);
  const site = headers.get("sec-fetch-site");
  return site === null || site === "none" || site === "same-origin";
}

/**
 * The DNS-rebinding guard: on a loopback bind the Host header must name the bound address or a loopback name
 * (any port: port forwards change it). On a non-loopback bind (`--allow-remote`) the names a remote client uses
 * cannot be known here, so the token alone guards it.
 */
export function hostAllowed(hostHeader: string | null, boundHost: string): boolean {
  if (!isLoopbackHost(boundHost)) return true;
  if (!hostHeader) return false;
  const name = hostnameOf(hostHeader);
  if (name === undefined) return false;
  return name === boundHost.replace(/^\[|\]$/g, "").toLowerCase() || isLoopbackHost(name);
}

function hostnameOf(hostHeader: string): string | undefined {
  const h = hostHeader.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(h);
  if (v6) return v6[1];
  const m = /^([a-z0-9.-]+)(?::\d+)?$/.exec(h);
  return m ? m[1] : undefined;
}
