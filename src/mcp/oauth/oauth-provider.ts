/**
 * The SDK's OAuthClientProvider for one remote MCP server (OAuth 2.1: PKCE, dynamic client registration, refresh),
 * backed by token-store.ts. The runtime plugs `createOAuthProvider(name, entry)` into its transport's `authProvider`:
 * the SDK sends the stored access token, refreshes it with the refresh token when the server answers 401, and when
 * only a new login would help, calls redirectToAuthorization: without `onAuthorizationUrl` (the runtime) that
 * records `needsLogin` and the transport throws UnauthorizedError (the server shows "needs login";
 * `chatcli mcp login NAME` fixes it). `chatcli mcp login` passes a loopback `redirectUrl` and `onAuthorizationUrl`.
 *
 * State is re-read from disk on every call: another chatcli process may have refreshed the tokens meanwhile.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { chatcliHome } from "../../config/paths.ts";
import { isStdioServer, type McpServerConfig, type RemoteServerConfig } from "../server-config.ts";
import { deleteOAuthState, hasOAuthTokens, loadOAuthState, saveOAuthState, type OAuthState } from "./token-store.ts";

export interface OAuthProviderOptions {
  /** chatcli's home; default CHATCLI_HOME or ~/.chatcli. */
  home?: string;
  /** The loopback redirect of an interactive login (loopback.ts). Default: the port of the last login. */
  redirectUrl?: string;
  /** Interactive login: show / open the authorization URL. Absent: a needed login is only recorded. */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
}

export interface ChatcliOAuthProvider extends OAuthClientProvider {
  /** Set when the server needs an interactive login (`chatcli mcp login NAME`). */
  readonly needsLogin: boolean;
  /** The `state` parameter of the authorization request in progress (the loopback callback must echo it). */
  readonly expectedState: string | undefined;
}

export const CALLBACK_PATH = "/callback";
/** Tokens saved this recently were just refreshed by a concurrent request: not invalidated (see invalidateCredentials). */
const JUST_SAVED_MS = 30_000;

export function createOAuthProvider(serverName: string, config: RemoteServerConfig, opts: OAuthProviderOptions = {}): ChatcliOAuthProvider {
  return new StoredOAuthProvider(serverName, config, opts);
}

class StoredOAuthProvider implements ChatcliOAuthProvider {
  private readonly home: string;
  private lastState: string | undefined;
  private loginNeeded = false;

  constructor(
    private readonly serverName: string,
    private readonly config: RemoteServerConfig,
    private readonly opts: OAuthProviderOptions,
  ) {
    this.home = opts.home ?? chatcliHome(process.env);
  }

  get needsLogin(): boolean {
    return this.loginNeeded;
  }

  get expectedState(): string | undefined {
    return this.lastState;
  }

  get redirectUrl(): string {
    if (this.opts.redirectUrl) return this.opts.redirectUrl;
    const port = this.read().redirectPort ?? this.config.oauth?.callbackPort ?? 0;
    return `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.config.oauth?.clientSecret;
    const scopes = this.config.oauth?.scopes;
    return {
      client_name: "chatcli",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: secret ? "client_secret_post" : "none",
      ...(scopes?.length ? { scope: scopes.join(" ") } : {}),
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString("hex");
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.config.oauth ?? {};
    if (clientId) return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    const client = this.read().client as OAuthClientInformationMixed | undefined;
    if (!client) return undefined;
    // Registered for another loopback port: the server would refuse this redirect, so register again.
    const uris = (client as { redirect_uris?: unknown }).redirect_uris;
    if (this.opts.redirectUrl && Array.isArray(uris) && !uris.includes(this.opts.redirectUrl)) return undefined;
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.update((s) => ({ ...s, client: info as Record<string, unknown>, ...this.portOf() }));
  }

  tokens(): OAuthTokens | undefined {
    return this.read().tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.loginNeeded = false;
    this.update((s) => {
      const { codeVerifier: _v, ...rest } = s;
      return { ...rest, tokens: tokens as OAuthState["tokens"], tokensSavedAt: Date.now() };
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.opts.onAuthorizationUrl) {
      this.loginNeeded = true;
      return;
    }
    await this.opts.onAuthorizationUrl(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.update((s) => ({ ...s, codeVerifier }));
  }

  codeVerifier(): string {
    const v = this.read().codeVerifier;
    if (!v) throw new Error(`no PKCE code verifier stored for MCP server ${this.serverName}`);
    return v;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all") {
      deleteOAuthState(this.home, this.serverName);
      return;
    }
    // Two requests that met the same expired token both refresh it; with rotating refresh tokens the second one's
    // refresh fails (invalid_grant) after the first one stored new tokens. Those are good: keep them (the SDK then
    // retries with them instead of asking for a new login).
    if (scope === "tokens" && Date.now() - (this.read().tokensSavedAt ?? 0) < JUST_SAVED_MS) return;
    const key = ({ client: "client", tokens: "tokens", verifier: "codeVerifier", discovery: "discovery" } as const)[scope];
    this.update((s) => {
      const { [key]: _drop, ...rest } = s;
      return rest as OAuthState;
    });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.update((s) => ({ ...s, discovery: state as unknown as Record<string, unknown> }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.read().discovery as OAuthDiscoveryState | undefined;
  }

  private read(): OAuthState {
    return loadOAuthState(this.home, this.serverName, this.config.url);
  }

  private update(change: (s: OAuthState) => OAuthState): void {
    saveOAuthState(this.home, this.serverName, change(this.read()));
  }

  private portOf(): { redirectPort?: number } {
    const port = Number(new URL(this.redirectUrl).port);
    return Number.isInteger(port) && port > 0 ? { redirectPort: port } : {};
  }
}

/**
 * The runtime's `authProvider` hook (src/mcp/runtime/create-runtime.ts): a provider for a remote server with a stored
 * login (`chatcli mcp login NAME`), else undefined, so a 401 reads "needs login" and nothing registers a client or
 * opens a browser in the background. The SDK refreshes expired tokens through the provider.
 */
export function storedLoginProvider(home: string): (name: string, entry: McpServerConfig) => ChatcliOAuthProvider | undefined {
  return (name, entry) => (isStdioServer(entry) || !hasOAuthTokens(home, name, entry.url) ? undefined : createOAuthProvider(name, entry, { home }));
}
