/**
 * Interactive-only helpers the TUI calls: the model/provider picker's list, model switching, and /stats.
 */
import type { Config } from "../config/load-config.ts";
import type { ModelBinding } from "../agent/session/session.ts";
import { discoverProviders } from "../llm/discovery.ts";
import { createProvider, getProviderDefinition } from "../llm/registry.ts";
import type { UsageTracker } from "../llm/usage.ts";
import { formatTokens } from "../llm/usage.ts";
import { contextWindowFor } from "./resolve-model.ts";
import type { ModelInfo } from "../protocol/llm.ts";
import { t } from "../i18n/i18n.ts";

export interface ModelChoice {
  provider: string;
  model: string;
  description?: string;
}

/** Models of every available provider (providers that fail to list are skipped). */
export async function listModelChoices(cfg: Config): Promise<ModelChoice[]> {
  const rows = (await discoverProviders(cfg.env)).filter((r) => r.available);
  const lists = await Promise.all(
    rows.map(async (r) => {
      try {
        const models = await createProvider(r.id, cfg.env).listModels(AbortSignal.timeout(5000));
        // The default model first: the /provider picker takes each provider's first choice.
        const ordered = [...models].sort((a, b) => Number(b.id === r.defaultModel) - Number(a.id === r.defaultModel));
        const out = ordered.map((m) => ({ provider: r.id, model: m.id, description: r.displayName }));
        if (!out.length && r.defaultModel) out.push({ provider: r.id, model: r.defaultModel, description: r.displayName });
        return out;
      } catch {
        return r.defaultModel ? [{ provider: r.id, model: r.defaultModel, description: t("switch.default", { name: r.displayName }) }] : [];
      }
    }),
  );
  return lists.flat();
}

/**
 * `currentProvider`: `/model qwen3:8b` splits at the colon into an unknown "provider" `qwen3`; such a pair
 * is read back as one model name of the current provider.
 */
export async function switchModel(cfg: Config, providerId: string, model: string, currentProvider?: string): Promise<ModelBinding | string> {
  if (!getProviderDefinition(providerId) && currentProvider && getProviderDefinition(currentProvider) && model) {
    return switchModel(cfg, currentProvider, `${providerId}:${model}`);
  }
  const def = getProviderDefinition(providerId);
  if (!def) return t("switch.unknownProvider", { provider: providerId });
  let provider;
  try {
    provider = createProvider(def.id, cfg.env);
  } catch (err) {
    return (err as Error).message;
  }
  // No model named: the provider's default, else (Ollama) the first installed model.
  const chosen = model || def.defaultModel || (await provider.listModels(AbortSignal.timeout(5000)).then((m) => m[0]?.id ?? "", () => ""));
  if (!chosen) return t("switch.chooseModel", { provider: def.id });
  let info: ModelInfo | undefined;
  try {
    info = await provider.modelInfo(chosen, AbortSignal.timeout(10_000));
  } catch (err) {
    return t("switch.cannotUse", { provider: def.id, model: chosen, error: (err as Error).message });
  }
  return {
    providerId: def.id,
    model: chosen,
    provider,
    nativeTools: info?.supportsTools ?? def.capabilities.nativeTools,
    contextWindow: contextWindowFor(cfg, info, def.id, chosen),
    images: info?.supportsImages ?? def.capabilities.images,
  };
}

export function statsText(usage: UsageTracker, contextTokens: number, contextWindow: number): string {
  const pct = contextWindow ? Math.round((contextTokens / contextWindow) * 100) : 0;
  return `${usage.formatStats()}\n${t("stats.context", { tokens: formatTokens(contextTokens), window: formatTokens(contextWindow), pct })}`;
}
