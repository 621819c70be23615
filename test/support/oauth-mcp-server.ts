/**
 * A protected MCP server on 127.0.0.1 with its own OAuth 2.1 authorization server, built from the SDK's server-side
 * auth helpers (mcpAuthRouter: metadata, dynamic client registration, /authorize, /token with PKCE checks;
 * requireBearerAuth in front of a Streamable HTTP MCP endpoint). The authorization step approves at once (the test
 * is the user), or refuses when `deny` is set. `expireAccessTokens()` makes every issued access token expire, so the
 * next call must refresh.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import express from "express";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface OAuthMcpServer {
  /** The MCP endpoint (what an entry's `url` names). */
  url: string;
  issuer: string;
  counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; mcpCalls: number; unauthorized: number };
  /** Registered clients' redirect URIs, newest last. */
  redirectUris: string[][];
  /** The next authorization is refused (error=access_denied). */
  deny: boolean;
  expireAccessTokens(): void;
  /** Access tokens currently valid. */
  liveTokens(): string[];
  stop(): void;
}

interface Issued {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: URL;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);

  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  const access = new Map<string, Issued>();
  const refresh = new Map<string, Issued>();
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, mcpCalls: 0, unauthorized: 0 };
  const redirectUris: string[][] = [];
  const state = { deny: false };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (id) => clients.get(id),
    registerClient: async (c) => {
      const full = c as OAuthClientInformationFull;
      counts.registrations++;
      redirectUris.push([...full.redirect_uris]);
      clients.set(full.client_id, full);
      return full;
    },
  };
  const issue = (clientId: string, scopes: string[], resource?: URL): OAuthTokens => {
    const token = randomUUID();
    const rt = randomUUID();
    const rec = { clientId, scopes, expiresAt: Math.floor(Date.now() / 1000) + 3600, ...(resource ? { resource } : {}) };
    access.set(token, rec);
    refresh.set(rt, rec);
    return { access_token: token, token_type: "bearer", expires_in: 3600, refresh_token: rt, scope: scopes.join(" ") };
  };
  const provider: OAuthServerProvider = {
    get clientsStore() {
      return clientsStore;
    },
    async authorize(client, params, res) {
      counts.authorizations++;
      const target = new URL(params.redirectUri);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      if (state.deny) {
        state.deny = false;
        target.searchParams.set("error", "access_denied");
        target.searchParams.set("error_description", "the user said no");
      } else {
        const code = randomUUID();
        codes.set(code, { client, params });
        target.searchParams.set("code", code);
      }
      res.writeHead(302, { location: target.toString() });
      res.end();
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidGrantError("unknown code");
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const c = codes.get(code);
      if (!c || c.client.client_id !== client.client_id) throw new InvalidGrantError("unknown code");
      if (redirectUri !== undefined && redirectUri !== c.params.redirectUri) throw new InvalidGrantError("redirect_uri mismatch");
      codes.delete(code);
      counts.codeExchanges++;
      return issue(client.client_id, c.params.scopes ?? ["mcp"], c.params.resource);
    },
    async exchangeRefreshToken(client, rt) {
      const rec = refresh.get(rt);
      if (!rec || rec.clientId !== client.client_id) throw new InvalidGrantError("unknown refresh token");
      refresh.delete(rt);
      counts.refreshes++;
      return issue(client.client_id, rec.scopes, rec.resource);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const rec = access.get(token);
      if (!rec) throw new InvalidTokenError("unknown token");
      return { token, clientId: rec.clientId, scopes: rec.scopes, expiresAt: rec.expiresAt, ...(rec.resource ? { resource: rec.resource } : {}) };
    },
  };

  const noLimit = { rateLimit: false as const };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: mcpUrl,
      scopesSupported: ["mcp"],
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  const countUnauthorized = (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    res.on("finish", () => {
      if (res.statusCode === 401) counts.unauthorized++;
    });
    next();
  };
  app.all("/mcp", countUnauthorized, bearer, async (req: IncomingMessage, res: ServerResponse) => {
    counts.mcpCalls++;
    const auth = (req as { auth?: AuthInfo }).auth;
    const mcp = new McpServer({ name: "oauth-test", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Which OAuth client is calling" }, async () => ({ content: [{ type: "text", text: `client ${auth?.clientId ?? "?"}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });

  return {
    url: mcpUrl.toString(),
    issuer: base,
    counts,
    redirectUris,
    get deny() {
      return state.deny;
    },
    set deny(v: boolean) {
      state.deny = v;
    },
    expireAccessTokens: () => {
      for (const rec of access.values()) rec.expiresAt = 0;
    },
    liveTokens: () => [...access.entries()].filter(([, r]) => r.expiresAt > Date.now() / 1000).map(([t]) => t),
    stop: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
