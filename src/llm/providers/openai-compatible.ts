/**
 * The OpenAI-compatible family: hosted vendors with their own key, base URL and default model, each a
 * registered entry (`<ID>_BASE_URL` overrides the URL), plus user-defined servers from settings
 * (LM Studio, llama.cpp server, vLLM) which need no key when `keyEnv` is absent.
 */
import { t } from "../../i18n/i18n.ts";
import type { ProviderContext, ProviderDefinition } from "../provider.ts";
import { registerProvider } from "../registry.ts";
import { registerAvailabilityCheck } from "../discovery.ts";
import { OpenAiChatProvider } from "./openai-chat.ts";
import { joinUrl } from "./wire-common.ts";

interface Vendor {
  id: string;
  displayName: string;
  envKeys: string[];
  defaultBaseUrl: string;
  defaultModel: string;
  extraHeaders?: Record<string, string>;
}

/** Default models follow the reference's provider table (§5.1). */
export const OPENAI_COMPATIBLE_VENDORS: Vendor[] = [
  { id: "XAI", displayName: "xAI Grok", envKeys: ["XAI_API_KEY"], defaultBaseUrl: "https://api.x.ai/v1", defaultModel: "grok-4-1" },
  { id: "ZAI", displayName: "Z.ai GLM", envKeys: ["ZAI_API_KEY"], defaultBaseUrl: "https://api.z.ai/api/paas/v4", defaultModel: "glm-5" },
  { id: "MINIMAX", displayName: "MiniMax", envKeys: ["MINIMAX_API_KEY"], defaultBaseUrl: "https://api.minimax.io/v1", defaultModel: "MiniMax-M2.7" },
  { id: "MOONSHOT", displayName: "Moonshot Kimi", envKeys: ["MOONSHOT_API_KEY"], defaultBaseUrl: "https://api.moonshot.ai/v1", defaultModel: "kimi-k2.6" },
  {
    id: "OPENROUTER",
    displayName: "OpenRouter",
    envKeys: ["OPENROUTER_API_KEY"],
    defaultBaseUrl: "https://openrouter.ai/api/v1",
    defaultModel: "openai/gpt-5.2",
    extraHeaders: { "x-title": "chatcli" },
  },
  {
    id: "GITHUB_MODELS",
    displayName: "GitHub Models",
    envKeys: ["GITHUB_MODELS_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"],
    defaultBaseUrl: "https://models.github.ai/inference",
    defaultModel: "gpt-4o",
  },
];

function compatible(ctx: ProviderContext, id: string, extraHeaders: Record<string, string> = {}, staticModels?: string[]): OpenAiChatProvider {
  return new OpenAiChatProvider({
    id,
    env: ctx.env,
    fetch: ctx.fetch,
    baseUrl: ctx.baseUrl,
    maxTokensField: "max_tokens",
    ...(staticModels?.length ? { staticModels } : {}),
    auth: async () => ({ headers: { ...extraHeaders, ...(ctx.apiKey ? { authorization: `Bearer ${ctx.apiKey}` } : {}) } }),
  });
}

for (const v of OPENAI_COMPATIBLE_VENDORS) {
  registerProvider({
    id: v.id,
    displayName: v.displayName,
    envKeys: v.envKeys,
    needsAuth: true,
    defaultModel: v.defaultModel,
    baseUrlEnv: `${v.id}_BASE_URL`,
    defaultBaseUrl: v.defaultBaseUrl,
    capabilities: { streaming: true, nativeTools: true, images: false, promptCaching: false, local: false },
    create: (ctx) => compatible(ctx, v.id, v.extraHeaders),
  });
}

export interface OpenAiCompatibleEntry {
  name: string;
  baseUrl: string;
  keyEnv?: string;
  models?: string[];
  defaultModel?: string;
}

/** Provider id for a user-defined entry: the name upper-cased, non-alphanumerics as `_` ("LM Studio" → LM_STUDIO). */
export function compatibleProviderId(name: string): string {
  return name.trim().toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "OPENAI_COMPATIBLE";
}

/** Register user-defined OpenAI-compatible servers from settings. Returns the definitions registered. */
export function registerOpenAiCompatibleFromSettings(entries: OpenAiCompatibleEntry[]): ProviderDefinition[] {
  const defs: ProviderDefinition[] = [];
  for (const e of entries) {
    const id = compatibleProviderId(e.name);
    const local = !e.keyEnv;
    const def: ProviderDefinition = {
      id,
      displayName: e.name,
      envKeys: e.keyEnv ? [e.keyEnv] : [],
      needsAuth: !local,
      defaultModel: e.defaultModel ?? e.models?.[0] ?? "",
      baseUrlEnv: `${id}_BASE_URL`,
      defaultBaseUrl: e.baseUrl,
      capabilities: { streaming: true, nativeTools: true, images: false, promptCaching: false, local },
      create: (ctx) => compatible(ctx, id, {}, e.models),
    };
    registerProvider(def);
    if (local) {
      // A keyless server is available when it answers its model listing.
      registerAvailabilityCheck(id, async ({ env, fetch: f }) => {
        const base = env[def.baseUrlEnv]?.trim() || def.defaultBaseUrl;
        const url = joinUrl(base, "models");
        try {
          const res = await f(url, { signal: AbortSignal.timeout(1000) });
          return res.ok ? { available: true, reason: t("providers.answering", { name: e.name, url: base }) } : { available: false, reason: t("providers.answeredHttp", { name: e.name, status: res.status, url }) };
        } catch {
          return { available: false, reason: t("providers.unreachable", { name: e.name, url: base }) };
        }
      });
    }
    defs.push(def);
  }
  return defs;
}
