/**
 * `-p "!cmd"` calls no model, so an unreachable or unconfigured provider must not stop it: the session is wired
 * with this stand-in, whose every request fails with the reason the real provider could not be resolved.
 */
import type { LlmProvider } from "../llm/provider.ts";
import type { Config } from "../config/load-config.ts";
import type { ResolvedModel } from "./resolve-model.ts";

export function offlineModel(cfg: Config, why: string): ResolvedModel {
  const provider: LlmProvider = {
    id: cfg.provider,
    async *stream() {
      yield { type: "error", error: { kind: "unknown", message: why, retryable: false, fallbackable: false } };
    },
    listModels: async () => [],
    modelInfo: async () => undefined,
  };
  return { providerId: cfg.provider, provider, baseUrl: "", model: cfg.model ?? "", info: undefined };
}
