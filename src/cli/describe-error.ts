/** Turns a classified provider error into the message a person should read (where, why, what to do). */
import type { LlmError } from "../protocol/llm.ts";
import { t } from "../i18n/i18n.ts";
import { isConnectionRefused } from "../llm/errors.ts";
import { isLocalEndpoint } from "../llm/local-endpoint.ts";
import { getProviderDefinition } from "../llm/registry.ts";

export interface ErrorContext {
  provider: string;
  model: string;
  baseUrl: string;
  installedModels?: string[];
}

export function describeLlmError(e: LlmError, ctx: ErrorContext): string {
  if (ctx.provider === "OLLAMA" && (e.kind === "network" || (e.kind === "timeout" && /connect/i.test(e.message)))) {
    return t("ollama.down", { host: ctx.baseUrl });
  }
  // Any other server on this machine (LM Studio, llama.cpp, vLLM, an OPENAI_BASE_URL on localhost) that refused.
  if (isConnectionRefused(e) && isLocalEndpoint(ctx.baseUrl)) {
    const env = getProviderDefinition(ctx.provider)?.baseUrlEnv ?? `${ctx.provider}_BASE_URL`;
    return t("provider.localDown", { provider: ctx.provider, host: ctx.baseUrl, env });
  }
  if (e.kind === "model_not_found") {
    if (ctx.installedModels?.length) return t("model.notFound", { model: ctx.model, provider: ctx.provider, list: ctx.installedModels.join(", ") });
    return t("model.notFoundNoList", { model: ctx.model, provider: ctx.provider });
  }
  return t("provider.error", { provider: ctx.provider, message: `${e.message}${e.status ? ` (HTTP ${e.status})` : ""} [${e.kind}]` });
}
