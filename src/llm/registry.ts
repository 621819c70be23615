/**
 * Self-registering provider registry. Each provider module calls `registerProvider` at import time;
 * `src/llm/providers/index.ts` imports them all. Nothing else switches over provider names.
 */
import type { LlmProvider, ProviderContext, ProviderDefinition } from "./provider.ts";

const providers = new Map<string, ProviderDefinition>();

export function registerProvider(def: ProviderDefinition): void {
  providers.set(def.id.toUpperCase(), def);
}

export function getProviderDefinition(id: string): ProviderDefinition | undefined {
  return providers.get(id.toUpperCase());
}

export function listProviderDefinitions(): ProviderDefinition[] {
  return [...providers.values()];
}

export function resolveApiKey(def: ProviderDefinition, env: Record<string, string | undefined>): string | undefined {
  for (const k of def.envKeys) {
    const v = env[k];
    if (v && v.trim()) return v.trim();
  }
  return undefined;
}

export function resolveBaseUrl(def: ProviderDefinition, env: Record<string, string | undefined>): string {
  const v = env[def.baseUrlEnv];
  const raw = (v && v.trim()) || def.defaultBaseUrl;
  return def.normalizeBaseUrl ? def.normalizeBaseUrl(raw) : raw;
}

export function createProvider(
  id: string,
  env: Record<string, string | undefined>,
  fetchImpl: typeof fetch = fetch,
): LlmProvider {
  const def = getProviderDefinition(id);
  if (!def) {
    const known = listProviderDefinitions().map((d) => d.id).join(", ");
    throw new Error(`unknown provider "${id}" (known: ${known})`);
  }
  const apiKey = resolveApiKey(def, env);
  const ctx: ProviderContext = { env, baseUrl: resolveBaseUrl(def, env), fetch: fetchImpl };
  if (apiKey) ctx.apiKey = apiKey;
  return def.create(ctx);
}
