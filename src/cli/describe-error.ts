/** Turns a classified provider error into the message a person should read (where, why, what to do). */
import type { LlmError } from "../protocol/llm.ts";
import { t } from "../i18n/i18n.ts";

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
  if (e.kind === "model_not_found") {
    if (ctx.installedModels?.length) return t("model.notFound", { model: ctx.model, provider: ctx.provider, list: ctx.installedModels.join(", ") });
    return t("model.notFoundNoList", { model: ctx.model, provider: ctx.provider });
  }
  return t("provider.error", { provider: ctx.provider, message: `${e.message}${e.status ? ` (HTTP ${e.status})` : ""} [${e.kind}]` });
}
