/**
 * COPILOT: OpenAI-style chat completions against the Copilot API, authenticated with a short-lived token
 * exchanged from the GitHub OAuth token (`GITHUB_COPILOT_TOKEN`, else the login stored by
 * `chatcli auth login copilot`). The exchanged token is cached until a minute before it expires; its
 * `endpoints.api` names the API base unless `COPILOT_BASE_URL` is set.
 */
import { t } from "../../i18n/i18n.ts";
import { existsSync } from "node:fs";
import type { ProviderContext } from "../provider.ts";
import { registerAvailabilityCheck } from "../discovery.ts";
import { registerProvider } from "../registry.ts";
import { httpError } from "./wire-common.ts";
import { OpenAiChatProvider, type OpenAiAuth } from "./openai-chat.ts";
import {
  COPILOT_DEFAULT_API_BASE,
  CopilotAuthError,
  GITHUB_DEFAULT_API_URL,
  copilotTokenPath,
  exchangeCopilotToken,
  loadCopilotAuth,
  type CopilotToken,
} from "./copilot-auth.ts";
import { LlmProviderError } from "../provider.ts";
import { makeError } from "../errors.ts";

export { loginCopilot, deviceLogin } from "./copilot-auth.ts";

const EDITOR_HEADERS = {
  "editor-version": "chatcli/0.1.0",
  "editor-plugin-version": "chatcli/0.1.0",
  "copilot-integration-id": "vscode-chat",
  "user-agent": "chatcli/0.1.0",
};

export function createCopilotProvider(ctx: ProviderContext): OpenAiChatProvider {
  let cached: CopilotToken | undefined;
  const auth = async (signal: AbortSignal): Promise<OpenAiAuth> => {
    const nowSec = Date.now() / 1000;
    if (!cached || cached.expires_at - 60 < nowSec) {
      const oauth = ctx.apiKey ?? loadCopilotAuth(copilotTokenPath(ctx.env))?.oauthToken;
      if (!oauth) throw new LlmProviderError(makeError("auth", "not logged in to Copilot: run `chatcli auth login copilot`", { provider: "COPILOT" }));
      const apiUrl = ctx.env.COPILOT_GITHUB_API_URL?.trim() || GITHUB_DEFAULT_API_URL;
      const res = await exchangeCopilotToken(ctx.fetch, oauth, apiUrl, signal);
      if (res instanceof Response) throw new LlmProviderError(await httpError(res, "COPILOT"));
      cached = res;
    }
    const override = ctx.env.COPILOT_BASE_URL?.trim();
    return {
      headers: { ...EDITOR_HEADERS, authorization: `Bearer ${cached.token}` },
      baseUrl: override || cached.endpoints?.api || ctx.baseUrl,
    };
  };
  return new OpenAiChatProvider({ id: "COPILOT", env: ctx.env, fetch: ctx.fetch, baseUrl: ctx.baseUrl, maxTokensField: "max_tokens", auth });
}

registerProvider({
  id: "COPILOT",
  displayName: "GitHub Copilot",
  envKeys: ["GITHUB_COPILOT_TOKEN"],
  needsAuth: true,
  defaultModel: "gpt-4o",
  baseUrlEnv: "COPILOT_BASE_URL",
  defaultBaseUrl: COPILOT_DEFAULT_API_BASE,
  capabilities: { streaming: true, nativeTools: true, images: false, promptCaching: false, local: false },
  hasStoredCredentials: (env) => loadCopilotAuth(copilotTokenPath(env)) !== undefined,
  create: (ctx) => createCopilotProvider(ctx),
});

registerAvailabilityCheck("COPILOT", async ({ env }) => {
  if (env.GITHUB_COPILOT_TOKEN?.trim()) return { available: true, reason: t("providers.keySet", { key: "GITHUB_COPILOT_TOKEN" }) };
  const path = copilotTokenPath(env);
  if (existsSync(path)) return { available: true, reason: t("providers.loggedIn", { path }) };
  return { available: false, reason: t("providers.copilotLogin") };
});

export { CopilotAuthError };
