/**
 * OAuth state of one remote MCP server, in `<chatcliHome>/mcp-oauth/<server>.json` (directory 0700, file 0600,
 * replaced atomically): the dynamic client registration, the tokens, the PKCE verifier of a login in progress and
 * the discovery result. Bound to the server's URL: when the entry's `url` changes, what was stored for the old one
 * is not used (tokens never go to a server they were not issued for). Token values never reach a log line.
 */
import { mkdirSync, readFileSync, rmSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../util/atomic-write.ts";

const stateSchema = z.looseObject({
  v: z.literal(1),
  serverUrl: z.string(),
  client: z.record(z.string(), z.unknown()).optional(),
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  /** When the tokens were saved (ms), to tell how old an `expires_in` is. */
  tokensSavedAt: z.number().optional(),
  codeVerifier: z.string().optional(),
  discovery: z.record(z.string(), z.unknown()).optional(),
  /** The loopback port the client was registered with (its redirect URI); reused by the next login. */
  redirectPort: z.number().int().optional(),
});
export type OAuthState = z.infer<typeof stateSchema>;

export const oauthDir = (home: string): string => join(home, "mcp-oauth");

/** The state file of a server. Throws on a name that is not a server name (`../x` must never name another file). */
export function oauthFile(home: string, serverName: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(serverName)) throw new Error(`not an MCP server name: ${JSON.stringify(serverName)}`);
  return join(oauthDir(home), `${serverName}.json`);
}

/** The stored state for this server at this URL; an empty one when missing, unreadable or for another URL. */
export function loadOAuthState(home: string, serverName: string, serverUrl: string): OAuthState {
  const empty: OAuthState = { v: 1, serverUrl };
  try {
    const parsed = stateSchema.safeParse(JSON.parse(readFileSync(oauthFile(home, serverName), "utf8")) as unknown);
    if (!parsed.success || parsed.data.serverUrl !== serverUrl) return empty;
    return parsed.data;
  } catch {
    return empty;
  }
}

export function saveOAuthState(home: string, serverName: string, state: OAuthState): void {
  const dir = oauthDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileAtomic(oauthFile(home, serverName), `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes everything stored for the server. Returns whether there was anything. */
export function deleteOAuthState(home: string, serverName: string): boolean {
  const file = oauthFile(home, serverName);
  try {
    readFileSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}

/** Whether tokens are stored for this server at this URL (they may have expired: a refresh token renews them). */
export function hasOAuthTokens(home: string, serverName: string, serverUrl: string): boolean {
  return loadOAuthState(home, serverName, serverUrl).tokens !== undefined;
}
