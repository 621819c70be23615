/**
 * Does this server connect? One short-lived connection (initialize + tools/list) for `chatcli mcp list`,
 * bounded by `timeoutMs`, closed afterwards (a stdio server's process is ended by the transport). Remote servers get
 * their headers, `bearerTokenEnv` and, when tokens are stored, the OAuth provider (refreshing them if needed);
 * a 401 without usable tokens is "needs login". The SDK is loaded with `await import()` only.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServer, type McpServerConfig, type RemoteServerConfig } from "./server-config.ts";
import { createOAuthProvider } from "./oauth/oauth-provider.ts";
import { hasOAuthTokens } from "./oauth/token-store.ts";

export type ProbeResult = { state: "connected"; tools: number; transport: "stdio" | "http" | "sse" } | { state: "needs-login" } | { state: "failed"; reason: string };

export interface ProbeOptions {
  home: string;
  env: Record<string, string | undefined>;
  projectRoot: string;
  timeoutMs: number;
  clientVersion: string;
}

export async function probeServer(name: string, entry: McpServerConfig, o: ProbeOptions): Promise<ProbeResult> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const attempt = async (transport: Transport, kind: "stdio" | "http" | "sse"): Promise<ProbeResult> => {
    const client = new Client({ name: "chatcli", version: o.clientVersion }, { capabilities: {} });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    });
    try {
      const tools = await Promise.race([client.connect(transport).then(() => client.listTools()), timeout]);
      return { state: "connected", tools: tools.tools.length, transport: kind };
    } finally {
      clearTimeout(timer);
      await client.close().catch(() => undefined);
    }
  };
  try {
    if (isStdioServer(entry)) {
      const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      const env: Record<string, string> = { ...getDefaultEnvironment() };
      for (const [k, v] of Object.entries(entry.env ?? {})) env[k] = expandEnvRefs(v, o.env);
      const cwd = entry.cwd ? (entry.cwd.startsWith("/") ? entry.cwd : `${o.projectRoot}/${entry.cwd}`) : o.projectRoot;
      const transport = new StdioClientTransport({ command: expandEnvRefs(entry.command, o.env), args: (entry.args ?? []).map((a) => expandEnvRefs(a, o.env)), env, cwd, stderr: "pipe" });
      // What the server said on stderr explains a failure ("Connection closed" alone does not).
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-2000);
      });
      try {
        return await attempt(transport, "stdio");
      } catch (err) {
        const said = stderr.trim().split("\n").filter(Boolean).at(-1);
        throw said ? new Error(`${oneLine(err)}: ${said}`) : err;
      }
    }
    return await probeRemote(name, entry as RemoteServerConfig, o, attempt);
  } catch (err) {
    if (isUnauthorized(err)) return { state: "needs-login" };
    return { state: "failed", reason: oneLine(err) };
  }
}

async function probeRemote(
  name: string,
  entry: RemoteServerConfig,
  o: ProbeOptions,
  attempt: (t: Transport, kind: "http" | "sse") => Promise<ProbeResult>,
): Promise<ProbeResult> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry.headers ?? {})) headers[k] = expandEnvRefs(v, o.env);
  if (entry.bearerTokenEnv && o.env[entry.bearerTokenEnv]) headers.Authorization = `Bearer ${o.env[entry.bearerTokenEnv]}`;
  const authProvider = hasOAuthTokens(o.home, name, entry.url) ? createOAuthProvider(name, entry, { home: o.home }) : undefined;
  const url = new URL(expandEnvRefs(entry.url, o.env));
  const opts = { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) };
  const sse = async () => {
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    return attempt(new SSEClientTransport(url, opts), "sse");
  };
  if (entry.type === "sse") return sse();
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  try {
    return await attempt(new StreamableHTTPClientTransport(url, opts), "http");
  } catch (err) {
    // An older server (HTTP+SSE only) answers the first POST with a 4xx other than 401.
    const code = statusOf(err);
    if (code !== undefined && code >= 400 && code < 500 && code !== 401) return sse();
    throw err;
  }
}

/** `${VAR}` and `${VAR:-default}` from the environment (the shape Claude Code's `.mcp.json` uses). */
export function expandEnvRefs(s: string, env: Record<string, string | undefined>): string {
  return s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def: string | undefined) => env[name] ?? def ?? "");
}

function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "number") return code;
  const m = /HTTP (\d{3})/.exec(String((err as Error)?.message ?? ""));
  return m ? Number(m[1]) : undefined;
}

function isUnauthorized(err: unknown): boolean {
  return (err as Error)?.name === "UnauthorizedError" || statusOf(err) === 401 || /\b401\b|unauthori[sz]ed/i.test(String((err as Error)?.message ?? ""));
}

function oneLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/\s+/g, " ").trim().slice(0, 300);
}
