/**
 * Picks the provider instance and the model, and learns what the model can do (native tools, window).
 * With no model chosen: the provider's default, else (Ollama) the first installed model, announced.
 * Failures come back as a `CliFailure` with the exit code and the message for stderr.
 */
import type { Config } from "../config/load-config.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { LlmProviderError } from "../llm/provider.ts";
import { createProvider, getProviderDefinition, listProviderDefinitions, resolveApiKey, resolveBaseUrl } from "../llm/registry.ts";
import type { ModelInfo } from "../protocol/llm.ts";
import { t } from "../i18n/i18n.ts";
import { DEFAULT_CONTEXT_WINDOW as CLOUD_DEFAULT_CONTEXT_WINDOW, knownContextWindow } from "../llm/context-windows.ts";
import { isOllamaServer, OLLAMA_DEFAULT_NUM_CTX_CAP } from "../llm/providers/ollama.ts";
import { createFallbackChain, parseFallbackEntries } from "../llm/fallback.ts";
import { describeLlmError } from "./describe-error.ts";

export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = "CliFailure";
  }
}

export interface ResolvedModel {
  providerId: string;
  provider: LlmProvider;
  baseUrl: string;
  model: string;
  info: ModelInfo | undefined;
  /** A line to show the user (e.g. which model was picked), or undefined. */
  notice?: string;
}

export const DEFAULT_CONTEXT_WINDOW = 8_192;

export function providerFor(cfg: Config, fetchImpl: typeof fetch = fetch): { provider: LlmProvider; baseUrl: string } {
  const def = getProviderDefinition(cfg.provider);
  if (!def) {
    throw new CliFailure(t("provider.unknown", { provider: cfg.provider, list: listProviderDefinitions().map((d) => d.id).join(", ") }), 2);
  }
  if (def.needsAuth && !resolveApiKey(def, cfg.env) && !def.hasStoredCredentials?.(cfg.env)) {
    throw new CliFailure(t("provider.noKey", { provider: def.id, keys: def.envKeys.join(" or ") }), 1);
  }
  const baseUrl = resolveBaseUrl(def, cfg.env);
  // A value no client can use fails here, quoting what was typed (the clients only say "Invalid URL").
  if (!isHttpUrl(baseUrl)) throw new CliFailure(t("provider.badBaseUrl", { env: def.baseUrlEnv, value: cfg.env[def.baseUrlEnv] ?? baseUrl }), 2);
  return { provider: createProvider(def.id, cfg.env, fetchImpl), baseUrl };
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

export async function resolveModel(cfg: Config, fetchImpl: typeof fetch = fetch): Promise<ResolvedModel> {
  const { provider, baseUrl } = providerFor(cfg, fetchImpl);
  const def = getProviderDefinition(cfg.provider)!;
  let model = cfg.model ?? (def.defaultModel || undefined);
  let notice: string | undefined;
  const ctx = { provider: def.id, model: model ?? "", baseUrl };
  if (!model) {
    let models: ModelInfo[];
    try {
      models = await provider.listModels();
    } catch (err) {
      throw await failureFrom(err, ctx, fetchImpl);
    }
    const first = models[0];
    if (!first) throw new CliFailure(def.id === "OLLAMA" ? t("ollama.noModels", { host: baseUrl }) : t("model.none", { provider: def.id }), 1);
    model = first.id;
    notice = t("model.usingFirst", { model });
  }
  let info: ModelInfo | undefined;
  try {
    info = await provider.modelInfo(model);
  } catch (err) {
    if (err instanceof LlmProviderError && err.error.kind === "model_not_found") {
      const installed = await provider.listModels().then((m) => m.map((x) => x.id), () => undefined);
      throw new CliFailure(describeLlmError(err.error, { ...ctx, model, ...(installed ? { installedModels: installed } : {}) }), 1);
    }
    throw await failureFrom(err, { ...ctx, model }, fetchImpl);
  }
  // The seed's form lists the primary itself (`CHATCLI_FALLBACK_PROVIDERS=OPENAI,CLAUDEAI`): an entry for the
  // primary's provider that names no model is the primary, not a second try of it with the default model.
  const entries = parseFallbackEntries(cfg.settings.fallback, cfg.env).filter((e) => !(e.provider === def.id && (e.defaultedModel || (e.model || def.defaultModel) === model)));
  const active = entries.length
    ? createFallbackChain({ entries: [{ provider: def.id, model }, ...entries], env: cfg.env, createProvider: (id) => createProvider(id, cfg.env, fetchImpl) })
    : provider;
  const r: ResolvedModel = { providerId: def.id, provider: active, baseUrl, model, info };
  if (notice) r.notice = notice;
  return r;
}

/**
 * The active model's window: CHATCLI_CONTEXT_WINDOW, else settings, else what the provider reports
 * (for Ollama capped to the num_ctx we send), else the cloud model table, else a conservative default
 * (Ollama's own 8,192; 32,768 for unknown cloud models).
 */
export function contextWindowFor(cfg: Config, info: ModelInfo | undefined, providerId: string, model = info?.id ?? ""): number {
  const env = Number(cfg.env.CHATCLI_CONTEXT_WINDOW);
  if (Number.isFinite(env) && env > 0) return Math.floor(env);
  if (cfg.settings.contextWindow) return cfg.settings.contextWindow;
  if (providerId === "OLLAMA") return info?.contextWindow ? Math.min(info.contextWindow, OLLAMA_DEFAULT_NUM_CTX_CAP) : DEFAULT_CONTEXT_WINDOW;
  if (info?.contextWindow) return info.contextWindow;
  return knownContextWindow(model) ?? CLOUD_DEFAULT_CONTEXT_WINDOW;
}

/** A provider failure as the CLI says it (an OLLAMA_HOST that is not Ollama is named as such). */
export async function failureFrom(err: unknown, ctx: { provider: string; model: string; baseUrl: string }, fetchImpl: typeof fetch): Promise<CliFailure> {
  if (err instanceof LlmProviderError) {
    // Something answered at OLLAMA_HOST but the request failed oddly (HTML, a 404, not JSON): is it Ollama at all?
    const odd = !["network", "timeout", "model_not_found", "aborted"].includes(err.error.kind);
    if (ctx.provider === "OLLAMA" && odd && !(await isOllamaServer(ctx.baseUrl, fetchImpl))) {
      return new CliFailure(t("ollama.notOllama", { host: ctx.baseUrl, detail: err.error.status ? `HTTP ${err.error.status}` : err.error.message.slice(0, 80) }), 1);
    }
    return new CliFailure(describeLlmError(err.error, ctx), 1);
  }
  if (err instanceof CliFailure) return err;
  return new CliFailure(`${ctx.provider}: ${(err as Error)?.message ?? String(err)}`, 1);
}
