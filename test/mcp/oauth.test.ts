/**
 * OAuth 2.1 against a real local authorization server + protected MCP server (test/support/oauth-mcp-server.ts):
 * dynamic client registration, PKCE, the loopback redirect (the test plays the browser by following the
 * authorization URL), tokens stored 0600, used by the SDK transport through createOAuthProvider, refreshed after
 * they expire, and "needs login" without them.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loginToServer } from "../../src/mcp/oauth/login.ts";
import { createOAuthProvider, storedLoginProvider } from "../../src/mcp/oauth/oauth-provider.ts";
import { deleteOAuthState, hasOAuthTokens, loadOAuthState, oauthFile } from "../../src/mcp/oauth/token-store.ts";
import type { RemoteServerConfig } from "../../src/mcp/server-config.ts";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/oauth-mcp-server.ts";

const dirs: string[] = [];
const servers: OAuthMcpServer[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(() => servers.splice(0).forEach((s) => s.stop()));

const tempHome = () => {
  const d = mkdtempSync(join(tmpdir(), "mcp-oauth-"));
  dirs.push(d);
  return d;
};

async function setup(): Promise<{ server: OAuthMcpServer; home: string; entry: RemoteServerConfig }> {
  const server = await startOAuthMcpServer();
  servers.push(server);
  return { server, home: tempHome(), entry: { type: "http", url: server.url } };
}

/** The user's browser: follows the authorization URL to the loopback redirect and reads the page it shows. */
async function browse(url: URL, seen: string[]): Promise<void> {
  const auth = await fetch(url, { redirect: "manual" });
  const location = auth.headers.get("location");
  if (!location) throw new Error(`authorization answered ${auth.status} without a redirect`);
  seen.push(location);
  const page = await fetch(location);
  seen.push(`${page.status} ${await page.text()}`);
}

async function login(home: string, entry: RemoteServerConfig, seen: string[] = [], browser = browse) {
  return loginToServer({ home, serverName: "remote", config: entry, timeoutMs: 20_000, onAuthorizationUrl: (url) => void browser(url, seen) });
}

async function connect(home: string, entry: RemoteServerConfig) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const provider = createOAuthProvider("remote", entry, { home });
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { authProvider: provider }));
  return { client, provider };
}

describe("MCP OAuth", () => {
  test("login: registration, PKCE, loopback redirect on 127.0.0.1; tokens stored 0600 and used by the transport", async () => {
    const { server, home, entry } = await setup();
    const seen: string[] = [];
    expect(await login(home, entry, seen)).toBe("authorized");
    expect(server.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
    expect(server.redirectUris[0]![0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(seen[0]).toStartWith(server.redirectUris[0]![0]!);
    expect(seen[1]).toStartWith("200 ");
    expect(seen[1]).toContain("login complete");

    const file = oauthFile(home, "remote");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "mcp-oauth")).mode & 0o777).toBe(0o700);
    const stored = loadOAuthState(home, "remote", entry.url);
    expect(server.liveTokens()).toEqual([stored.tokens!.access_token]);
    expect(stored.codeVerifier).toBeUndefined(); // used once, then dropped

    const { client } = await connect(home, entry);
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: `client ${(stored.client as { client_id: string }).client_id}` }]);
    await client.close();
  });

  test("the runtime hook gives a provider only to remote servers with a stored login", async () => {
    const { home, entry } = await setup();
    const hook = storedLoginProvider(home);
    expect(hook("remote", entry)).toBeUndefined();
    expect(hook("local", { command: "node" })).toBeUndefined();
    await login(home, entry);
    expect((await hook("remote", entry)?.tokens())?.access_token).toBeString();
    expect(hook("remote", { ...entry, url: `${entry.url}/moved` })).toBeUndefined();
  });

  test("an expired access token is refreshed with the refresh token and the new one is stored", async () => {
    const { server, home, entry } = await setup();
    await login(home, entry);
    const before = loadOAuthState(home, "remote", entry.url).tokens!.access_token;
    const { client } = await connect(home, entry);
    server.expireAccessTokens();
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.isError).toBeFalsy();
    // The SDK's GET stream and the POST met the expired token together: each may refresh (the second with the
    // rotated token the first one stored), never a new login.
    expect(server.counts.refreshes).toBeGreaterThanOrEqual(1);
    expect(server.counts.authorizations).toBe(1); // no new browser login
    const after = loadOAuthState(home, "remote", entry.url).tokens!.access_token;
    expect(after).not.toBe(before);
    expect(server.liveTokens()).toContain(after);
    await client.close();
  });

  test("without tokens the runtime's provider records 'needs login' and never opens a login itself", async () => {
    const { server, home, entry } = await setup();
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const provider = createOAuthProvider("remote", entry, { home });
    const err = await new Client({ name: "t", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(entry.url), { authProvider: provider })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(provider.needsLogin).toBe(true);
    expect(server.counts.authorizations).toBe(0);
    expect(hasOAuthTokens(home, "remote", entry.url)).toBe(false);
  });

  test("a second login reuses the loopback port and the client registration; stored tokens of another URL are not used", async () => {
    const { server, home, entry } = await setup();
    await login(home, entry);
    deleteOAuthState(home, "remote");
    await login(home, entry);
    expect(server.counts.registrations).toBe(2); // state deleted: registered again
    // With the state kept, the tokens are refreshed (no browser) and the client is reused.
    expect(await login(home, entry)).toBe("refreshed");
    expect(server.counts.registrations).toBe(2);
    expect(server.counts.authorizations).toBe(2);
    expect(hasOAuthTokens(home, "remote", `${entry.url}/other`)).toBe(false);
  });

  test("a name that is not a server name never names a file", () => {
    const home = tempHome();
    expect(() => oauthFile(home, "../settings")).toThrow(/not an MCP server name/);
    expect(() => deleteOAuthState(home, "a/b")).toThrow();
    expect(hasOAuthTokens(home, "..", "http://127.0.0.1:1/mcp")).toBe(false);
  });

  test("a refused authorization fails the login with the server's reason", async () => {
    const { server, home, entry } = await setup();
    server.deny = true;
    const err = await login(home, entry).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain("the user said no");
    expect(hasOAuthTokens(home, "remote", entry.url)).toBe(false);
  });

  test("a callback with a foreign state is refused and the real one still completes the login", async () => {
    const { home, entry } = await setup();
    const seen: string[] = [];
    const forged = async (url: URL, log: string[]) => {
      const redirect = new URL(url.searchParams.get("redirect_uri")!);
      redirect.searchParams.set("code", "attacker-code");
      redirect.searchParams.set("state", "not-the-state");
      const r = await fetch(redirect);
      log.push(`forged ${r.status}`);
      await browse(url, log);
    };
    expect(await login(home, entry, seen, forged)).toBe("authorized");
    expect(seen[0]).toBe("forged 400");
    expect(readFileSync(oauthFile(home, "remote"), "utf8")).not.toContain("attacker-code");
  });
});

describe("opening the browser", () => {
  test("BROWSER wins (with %s or the URL appended); else a desktop session's opener; nothing on a bare terminal", async () => {
    const { browserCommand } = await import("../../src/mcp/oauth/open-browser.ts");
    const u = "http://127.0.0.1:1/authorize?x=1";
    expect(browserCommand(u, { BROWSER: "firefox" }, "linux")).toEqual(["firefox", u]);
    expect(browserCommand(u, { BROWSER: "w3m -o x %s:lynx" }, "linux")).toEqual(["w3m", "-o", "x", u]);
    expect(browserCommand(u, { DISPLAY: ":0" }, "linux")).toEqual(["xdg-open", u]);
    expect(browserCommand(u, {}, "linux")).toBeUndefined();
    expect(browserCommand(u, {}, "darwin")).toEqual(["open", u]);
  });
});
