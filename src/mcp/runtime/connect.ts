/**
 * Opens one connection to an MCP server: the SDK's Client (loaded with `await import()` only, so a session with
 * no MCP server never loads it) over our stdio transport, or Streamable HTTP with a fallback to the older
 * HTTP+SSE transport when the server answers that way (4xx other than 401 on the first POST).
 *
 * Remote servers get the entry's `headers` and, with `bearerTokenEnv`, `Authorization: Bearer $VAR`. An OAuth
 * provider (src/mcp/oauth/, `chatcli mcp login NAME`) plugs in through `authProvider`; a server that answers 401
 * without one we can use throws NeedsLoginError.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServer, type McpServerConfig, type RemoteServerConfig, type StdioServerConfig } from "../server-config.ts";
import { expandEnvRefs } from "./env-expand.ts";
import { StdioTransport } from "./stdio-transport.ts";

export class NeedsLoginError extends Error {
  override name = "NeedsLoginError";
}

export interface ConnectOptions {
  name: string;
  entry: McpServerConfig;
  /** The environment a stdio server starts with (secrets already filtered), before the entry's `env`. */
  baseEnv: Record<string, string>;
  /** Where `${VAR}` in the entry is read from (the real environment). */
  expandEnv: Record<string, string | undefined>;
  /** Relative `cwd` of a stdio entry resolves against this. */
  projectRoot: string;
  log(line: string): void;
  /** The OAuth provider for this server, when one is wired (src/mcp/oauth/). */
  authProvider?: OAuthClientProvider;
  clientVersion: string;
  /** connect + initialize limit. */
  timeoutMs: number;
}

export interface OpenConnection {
  client: Client;
  transport: Transport;
  kind: "stdio" | "http" | "sse";
  /** Kills a stdio server's process group at once (process exit path). */
  killNow(): void;
}

export async function connectServer(o: ConnectOptions): Promise<OpenConnection> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const newClient = () => new Client({ name: "chatcli", version: o.clientVersion }, { capabilities: {} });
  if (isStdioServer(o.entry)) return connectStdio(o, o.entry, newClient());
  return connectRemote(o, o.entry, newClient);
}

async function connectStdio(o: ConnectOptions, entry: StdioServerConfig, client: Client): Promise<OpenConnection> {
  const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const expand = (s: string) => expandEnvRefs(s, o.expandEnv);
  const env: Record<string, string> = { ...o.baseEnv };
  for (const [k, v] of Object.entries(entry.env ?? {})) env[k] = expand(v);
  const cwd = entry.cwd ? (entry.cwd.startsWith("/") ? expand(entry.cwd) : `${o.projectRoot}/${expand(entry.cwd)}`) : o.projectRoot;
  const transport = new StdioTransport({
    command: expand(entry.command),
    args: (entry.args ?? []).map(expand),
    env,
    cwd,
    log: o.log,
    isMessage: (v): v is import("@modelcontextprotocol/sdk/types.js").JSONRPCMessage => JSONRPCMessageSchema.safeParse(v).success,
  });
  try {
    await client.connect(transport, { timeout: o.timeoutMs });
  } catch (err) {
    await transport.close().catch(() => undefined);
    const why = transport.exitReason ? `${transport.exitReason}${transport.lastStderr ? `: ${transport.lastStderr}` : ""}` : errorText(err);
    throw new Error(why);
  }
  return { client, transport, kind: "stdio", killNow: () => transport.killNow() };
}

async function connectRemote(o: ConnectOptions, entry: RemoteServerConfig, newClient: () => Client): Promise<OpenConnection> {
  const url = new URL(expandEnvRefs(entry.url, o.expandEnv));
  const headers = remoteHeaders(entry, o.expandEnv);
  const requestInit: RequestInit = { headers };
  const auth = o.authProvider ? { authProvider: o.authProvider } : {};
  if (entry.type !== "sse") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = newClient();
    const transport = new StreamableHTTPClientTransport(url, { requestInit, ...auth });
    try {
      await client.connect(transport, { timeout: o.timeoutMs });
      return { client, transport, kind: "http", killNow: () => undefined };
    } catch (err) {
      await transport.close().catch(() => undefined);
      if (await isUnauthorized(err)) throw new NeedsLoginError(errorText(err));
      if (!shouldFallBack(err)) throw err;
      o.log(`Streamable HTTP refused (${errorText(err)}); trying the HTTP+SSE transport`);
    }
  }
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  const client = newClient();
  const transport = new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: headerFetch(headers) }, ...auth });
  try {
    await client.connect(transport, { timeout: o.timeoutMs });
  } catch (err) {
    await transport.close().catch(() => undefined);
    if (await isUnauthorized(err)) throw new NeedsLoginError(errorText(err));
    throw err;
  }
  return { client, transport, kind: "sse", killNow: () => undefined };
}

/** `headers` (with `${VAR}` expanded) and the bearer token from `bearerTokenEnv`. */
export function remoteHeaders(entry: RemoteServerConfig, env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry.headers ?? {})) out[k] = expandEnvRefs(v, env);
  if (entry.bearerTokenEnv) {
    const token = env[entry.bearerTokenEnv];
    if (token) out.Authorization = `Bearer ${token}`;
  }
  return out;
}

/** The SSE stream's GET carries the same headers as the POSTs (EventSource has no headers of its own). */
function headerFetch(headers: Record<string, string>) {
  return (input: string | URL, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) if (!merged.has(k)) merged.set(k, v);
    return fetch(input, { ...init, headers: merged });
  };
}

async function isUnauthorized(err: unknown): Promise<boolean> {
  const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");
  if (err instanceof UnauthorizedError) return true;
  const code = (err as { code?: unknown }).code;
  return code === 401 || /\b401\b|unauthori[sz]ed/i.test(errorText(err));
}

/** A server that does not speak Streamable HTTP answers the first POST with 404 / 405 (or 400 from some). */
function shouldFallBack(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === "number") return code >= 400 && code < 500;
  return /\b(400|404|405)\b/.test(errorText(err));
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}
