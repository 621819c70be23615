/**
 * How many subagent requests a provider endpoint serves at once. Ollama: `providers.OLLAMA.concurrency`, else
 * `OLLAMA_NUM_PARALLEL` (the server's own setting, when chatcli's environment has it), else 1 for a server on
 * this machine (Ollama's default for a small GPU) and 4 for a remote one. An OpenAI-compatible server from
 * settings: its entry's `concurrency`. Any other provider: `providers.<ID>.concurrency`, else 4 (1 when local).
 * The key names the endpoint, so children on one server share its slots.
 */
import type { Settings } from "../../config/settings-schema.ts";
import { getProviderDefinition, resolveBaseUrl } from "../../llm/registry.ts";
import { isLocalEndpoint } from "../../llm/local-endpoint.ts";
import { compatibleProviderId } from "../../llm/providers/openai-compatible.ts";

export const CLOUD_DEFAULT_CONCURRENCY = 4;

export function endpointSlots(providerId: string, settings: Settings, env: Record<string, string | undefined>): { key: string; limit: number } {
  const def = getProviderDefinition(providerId);
  const baseUrl = def ? resolveBaseUrl(def, env) : "";
  const key = `${providerId}@${baseUrl}`;
  const local = baseUrl !== "" && isLocalEndpoint(baseUrl);
  const providers = settings.providers ?? {};
  const entry = providers[providerId];
  const configured = entry && !Array.isArray(entry) ? entry.concurrency : undefined;
  const compatible = (providers.openaiCompatible ?? []).find((e) => compatibleProviderId(e.name) === providerId)?.concurrency;
  const fromEnv = providerId === "OLLAMA" ? positive(env.OLLAMA_NUM_PARALLEL) : undefined;
  const limit = configured ?? compatible ?? fromEnv ?? (local ? 1 : CLOUD_DEFAULT_CONCURRENCY);
  return { key, limit };
}

function positive(v: string | undefined): number | undefined {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
