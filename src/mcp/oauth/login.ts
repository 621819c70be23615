/**
 * An interactive OAuth login to one remote MCP server (`chatcli mcp login NAME`): loopback redirect on 127.0.0.1,
 * the SDK's auth() for discovery, dynamic client registration and PKCE, then the code exchange; the tokens end up
 * in token-store.ts. Stored tokens with a refresh token are simply refreshed (no browser): log out first to switch
 * accounts.
 */
import type { RemoteServerConfig } from "../server-config.ts";
import { startLoopback } from "./loopback.ts";
import { createOAuthProvider, type ChatcliOAuthProvider } from "./oauth-provider.ts";
import { loadOAuthState } from "./token-store.ts";

export interface LoginOptions {
  home: string;
  serverName: string;
  config: RemoteServerConfig;
  /** Show (and maybe open) the authorization URL. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** "authorized": a new login; "refreshed": stored tokens were renewed without one. Throws on failure. */
export async function loginToServer(o: LoginOptions): Promise<"authorized" | "refreshed"> {
  const previousPort = loadOAuthState(o.home, o.serverName, o.config.url).redirectPort;
  let provider: ChatcliOAuthProvider | undefined;
  const loop = await startLoopback(o.config.oauth?.callbackPort ?? previousPort, () => provider?.expectedState);
  try {
    provider = createOAuthProvider(o.serverName, o.config, { home: o.home, redirectUrl: loop.redirectUrl, onAuthorizationUrl: o.onAuthorizationUrl });
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const scope = o.config.oauth?.scopes?.join(" ") || undefined;
    const first = await auth(provider, { serverUrl: o.config.url, ...(scope ? { scope } : {}) });
    if (first === "AUTHORIZED") return "refreshed";
    const code = await loop.waitForCode({ timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
    const second = await auth(provider, { serverUrl: o.config.url, authorizationCode: code, ...(scope ? { scope } : {}) });
    if (second !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
    return "authorized";
  } finally {
    loop.close();
  }
}
