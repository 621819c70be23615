/**
 * GitHub Copilot login: the OAuth device flow (RFC 8628) against GitHub, then an exchange of the OAuth
 * token for a short-lived Copilot API token. The OAuth token is stored 0600 at
 * `<chatcliHome>/auth/copilot.json` (written atomically: temp file + rename).
 * GitHub endpoints are overridable (`COPILOT_GITHUB_BASE_URL`, `COPILOT_GITHUB_API_URL`) so tests hit 127.0.0.1.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { chatcliHome } from "../../config/paths.ts";
import { abortableSleep } from "../retry.ts";
import { joinUrl } from "./wire-common.ts";

/** The public client id of GitHub's Copilot editor integrations; `COPILOT_CLIENT_ID` overrides it. */
export const COPILOT_DEFAULT_CLIENT_ID = "Iv1.b507a08c87ecfe98";
export const GITHUB_DEFAULT_BASE_URL = "https://github.com";
export const GITHUB_DEFAULT_API_URL = "https://api.github.com";
export const COPILOT_DEFAULT_API_BASE = "https://api.githubcopilot.com";

const deviceCodeSchema = z.looseObject({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  expires_in: z.number().optional(),
  interval: z.number().optional(),
});

const tokenPollSchema = z.looseObject({
  access_token: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
  interval: z.number().optional(),
});

export const copilotTokenSchema = z.looseObject({
  token: z.string(),
  expires_at: z.number(),
  endpoints: z.looseObject({ api: z.string().optional() }).optional(),
});
export type CopilotToken = z.infer<typeof copilotTokenSchema>;

export const storedCopilotAuthSchema = z.object({
  oauthToken: z.string().min(1),
  createdAt: z.number().optional(),
});
export type StoredCopilotAuth = z.infer<typeof storedCopilotAuthSchema>;

export class CopilotAuthError extends Error {
  constructor(
    readonly code: "expired_token" | "access_denied" | "aborted" | "http" | "protocol" | "not_logged_in",
    message: string,
  ) {
    super(message);
    this.name = "CopilotAuthError";
  }
}

export function copilotTokenPath(env: Record<string, string | undefined>): string {
  return join(chatcliHome(env), "auth", "copilot.json");
}

export interface DeviceLoginOptions {
  fetch: typeof fetch;
  clientId?: string;
  onCode: (userCode: string, verificationUri: string) => void;
  signal?: AbortSignal;
  /** Where the OAuth token is saved (0600). */
  tokenPath: string;
  githubBaseUrl?: string;
  /** Injected for tests; resolves false when aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
  now?: () => number;
}

/**
 * Runs the device flow to completion and saves the OAuth token. Polls every `interval` seconds (default 5);
 * `slow_down` adds 5 s to the interval, as RFC 8628 §3.5 requires; `expired_token` / `access_denied` end it.
 */
export async function deviceLogin(opts: DeviceLoginOptions): Promise<StoredCopilotAuth> {
  const base = opts.githubBaseUrl ?? GITHUB_DEFAULT_BASE_URL;
  const clientId = opts.clientId ?? COPILOT_DEFAULT_CLIENT_ID;
  const sleep = opts.sleep ?? abortableSleep;
  const now = opts.now ?? Date.now;
  const form = { accept: "application/json", "content-type": "application/x-www-form-urlencoded" };
  const codeRes = await opts.fetch(joinUrl(base, "login/device/code"), {
    method: "POST",
    headers: form,
    body: new URLSearchParams({ client_id: clientId, scope: "read:user" }).toString(),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!codeRes.ok) throw new CopilotAuthError("http", `device code request failed: HTTP ${codeRes.status}`);
  const code = deviceCodeSchema.safeParse(await codeRes.json().catch(() => null));
  if (!code.success) throw new CopilotAuthError("protocol", "unexpected device code response");
  opts.onCode(code.data.user_code, code.data.verification_uri);
  let intervalMs = (code.data.interval ?? 5) * 1000;
  const deadline = now() + (code.data.expires_in ?? 900) * 1000;
  for (;;) {
    if (!(await sleep(intervalMs, opts.signal))) throw new CopilotAuthError("aborted", "login cancelled");
    if (now() > deadline) throw new CopilotAuthError("expired_token", "the device code expired; run the login again");
    const res = await opts.fetch(joinUrl(base, "login/oauth/access_token"), {
      method: "POST",
      headers: form,
      body: new URLSearchParams({
        client_id: clientId,
        device_code: code.data.device_code,
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      }).toString(),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const poll = tokenPollSchema.safeParse(await res.json().catch(() => null));
    if (!poll.success) throw new CopilotAuthError("protocol", `unexpected token response (HTTP ${res.status})`);
    if (poll.data.access_token) {
      const stored: StoredCopilotAuth = { oauthToken: poll.data.access_token, createdAt: now() };
      saveCopilotAuth(opts.tokenPath, stored);
      return stored;
    }
    switch (poll.data.error) {
      case "authorization_pending":
        break;
      case "slow_down":
        intervalMs = poll.data.interval ? poll.data.interval * 1000 : intervalMs + 5000;
        break;
      case "expired_token":
        throw new CopilotAuthError("expired_token", "the device code expired; run the login again");
      case "access_denied":
        throw new CopilotAuthError("access_denied", "the login was denied on GitHub");
      default:
        throw new CopilotAuthError("protocol", poll.data.error_description ?? poll.data.error ?? `HTTP ${res.status}`);
    }
  }
}

export function saveCopilotAuth(path: string, auth: StoredCopilotAuth): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify(auth, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The stored login, or undefined when absent or unreadable. */
export function loadCopilotAuth(path: string): StoredCopilotAuth | undefined {
  try {
    const parsed = storedCopilotAuthSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Exchange the OAuth token for a Copilot API token (valid ~30 min). */
export async function exchangeCopilotToken(
  f: typeof fetch,
  oauthToken: string,
  apiUrl: string,
  signal?: AbortSignal,
): Promise<Response | CopilotToken> {
  const res = await f(joinUrl(apiUrl, "copilot_internal/v2/token"), {
    headers: { authorization: `token ${oauthToken}`, accept: "application/json" },
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) return res;
  const parsed = copilotTokenSchema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw new CopilotAuthError("protocol", "unexpected Copilot token response");
  return parsed.data;
}

export interface CopilotLoginOptions {
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  onCode: (userCode: string, verificationUri: string) => void;
  signal?: AbortSignal;
}

/** What `chatcli auth login copilot` calls. Returns the path the token was saved to. */
export async function loginCopilot(opts: CopilotLoginOptions): Promise<string> {
  const tokenPath = copilotTokenPath(opts.env);
  await deviceLogin({
    fetch: opts.fetch ?? fetch,
    clientId: opts.env.COPILOT_CLIENT_ID?.trim() || COPILOT_DEFAULT_CLIENT_ID,
    onCode: opts.onCode,
    tokenPath,
    githubBaseUrl: opts.env.COPILOT_GITHUB_BASE_URL?.trim() || GITHUB_DEFAULT_BASE_URL,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return tokenPath;
}
