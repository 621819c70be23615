/**
 * An HTTP GET that cannot be pointed into the user's network (request forgery), for the fetch tool.
 *
 * Direct connections: the host name is resolved first, every answer is checked (address-policy.ts; one non-public
 * answer refuses the whole name), and the request goes to the checked address itself (the URL's host is replaced
 * by the IP; `Host` and the TLS server name keep the name, so certificates are still verified against it). There is
 * no second resolution to rebind. Redirects are followed by hand, at most `maxRedirects`, and every hop is checked
 * the same way.
 *
 * Through a proxy (HTTPS_PROXY / HTTP_PROXY, minus NO_PROXY) the proxy resolves the name, so what it connects to
 * cannot be pinned from here: literal addresses and local names are still refused, and a name that resolves locally
 * to a non-public address is refused too; a name only the proxy can resolve goes through. The proxy is the user's
 * choice of egress and is trusted with that.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isLocalName, nonPublicReason } from "./address-policy.ts";

export interface SafeFetchOptions {
  allowPrivateNetworks: boolean;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** Every address of a name (the DNS boundary; node:dns by default). */
  lookup?: (host: string) => Promise<string[]>;
  maxBytes?: number;
  maxRedirects?: number;
  timeoutMs?: number;
}

export type SafeFetchResult =
  | { ok: true; url: string; status: number; contentType: string; body: Uint8Array; truncated: boolean; totalBytes?: number; viaProxy: boolean }
  | { ok: false; code: "refused" | "bad_url" | "network" | "redirects" | "timeout" | "canceled"; message: string };

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

export async function safeFetch(rawUrl: string, o: SafeFetchOptions): Promise<SafeFetchResult> {
  const lookup = o.lookup ?? defaultLookup;
  const maxRedirects = o.maxRedirects ?? 5;
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs ?? 30_000)]);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, code: "bad_url", message: `Not a valid URL: ${rawUrl}` };
  }
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, code: "bad_url", message: `Only http and https URLs can be fetched (got ${url.protocol}).` };
    const proxy = proxyFor(url, o.env);
    const target = await checkTarget(url, proxy !== undefined, o.allowPrivateNetworks, lookup);
    if (!target.ok) return target;
    let res: Response;
    try {
      res = await fetch(target.connectUrl, {
        method: "GET",
        redirect: "manual",
        signal,
        proxy: proxy ?? false,
        headers: { ...(target.hostHeader ? { host: target.hostHeader } : {}), accept: "text/html, text/markdown, text/plain, application/json, */*;q=0.5", "user-agent": "chatcli-fetch" },
        ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
      });
    } catch (err) {
      if (o.signal.aborted) return { ok: false, code: "canceled", message: "Canceled." };
      if (signal.aborted) return { ok: false, code: "timeout", message: `Timed out fetching ${url.href}.` };
      return { ok: false, code: "network", message: `Could not fetch ${url.href}: ${(err as Error).message}` };
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) return { ok: false, code: "redirects", message: `Too many redirects (more than ${maxRedirects}) starting at ${rawUrl}.` };
      try {
        url = new URL(location, url);
      } catch {
        return { ok: false, code: "bad_url", message: `The server redirected to an invalid URL: ${location}` };
      }
      continue;
    }
    const read = await readCapped(res, o.maxBytes ?? DEFAULT_MAX_BYTES);
    return { ok: true, url: url.href, status: res.status, contentType: res.headers.get("content-type") ?? "", ...read, viaProxy: proxy !== undefined };
  }
}

type Target = { ok: true; connectUrl: string; hostHeader?: string; serverName?: string } | { ok: false; code: "refused" | "network"; message: string };

async function checkTarget(url: URL, viaProxy: boolean, allowPrivate: boolean, lookup: (h: string) => Promise<string[]>): Promise<Target> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const refuse = (why: string): Target => ({
    ok: false,
    code: "refused",
    message: `Refused: ${url.href} points at ${why}. Fetching local and private network addresses is off (settings "webFetch": {"allowPrivateNetworks": true} turns it on).`,
  });
  if (isIP(host)) {
    const why = nonPublicReason(host);
    if (why && !allowPrivate) return refuse(`${host}, ${why}`);
    return { ok: true, connectUrl: url.href };
  }
  if (isLocalName(host) && !allowPrivate) return refuse(`${host}, this machine`);
  if (viaProxy) {
    if (allowPrivate) return { ok: true, connectUrl: url.href };
    // Best effort: the proxy resolves the name; a local answer that is not public still refuses.
    const local = await lookup(host).catch(() => [] as string[]);
    const bad = local.map((a) => [a, nonPublicReason(a)] as const).find(([, r]) => r);
    return bad ? refuse(`${host} → ${bad[0]}, ${bad[1]}`) : { ok: true, connectUrl: url.href };
  }
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch (err) {
    return { ok: false, code: "network", message: `Could not resolve ${host}: ${(err as Error).message}` };
  }
  if (!addresses.length) return { ok: false, code: "network", message: `Could not resolve ${host}: no addresses.` };
  if (!allowPrivate) {
    const bad = addresses.map((a) => [a, nonPublicReason(a)] as const).find(([, r]) => r);
    if (bad) return refuse(`${host} → ${bad[0]}, ${bad[1]}`);
  }
  // Connect to the address just checked: the name is not resolved again.
  const pinned = new URL(url.href);
  const address = addresses[0]!;
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { ok: true, connectUrl: pinned.href, hostHeader: url.host, ...(url.protocol === "https:" ? { serverName: host } : {}) };
}

async function defaultLookup(host: string): Promise<string[]> {
  const r = await dnsLookup(host, { all: true, verbatim: true });
  return r.map((x) => x.address);
}

/** The proxy for a URL from HTTPS_PROXY / HTTP_PROXY (either case), unless NO_PROXY names its host. */
export function proxyFor(url: URL, env: Record<string, string | undefined>): string | undefined {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v.trim() !== "");
  const proxy = url.protocol === "https:" ? pick("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy") : pick("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy");
  if (!proxy) return undefined;
  const noProxy = (pick("NO_PROXY", "no_proxy") ?? "").split(/[,\s]+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  for (const entry of noProxy) {
    if (entry === "*") return undefined;
    const name = entry.replace(/:\d+$/, "").replace(/^\*?\./, "");
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return proxy;
}

async function readCapped(res: Response, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean; totalBytes?: number }> {
  const declared = Number(res.headers.get("content-length"));
  const reader = res.body?.getReader();
  if (!reader) return { body: new Uint8Array(), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    let step: Awaited<ReturnType<typeof reader.read>>;
    try {
      step = await reader.read();
    } catch {
      truncated = true; // the connection broke or the timeout hit mid-body: keep what arrived
      break;
    }
    const { done, value } = step;
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return { body, truncated, ...(Number.isFinite(declared) && declared > 0 ? { totalBytes: declared } : {}) };
}
