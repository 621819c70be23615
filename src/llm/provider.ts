/**
 * The one interface every provider implements.
 * Contract: `stream` never throws once called. Every failure, abort included, is delivered as the final
 * `error` event; a successful stream ends with exactly one `done` event.
 */
import type { LlmEvent, LlmRequest, ModelInfo } from "../protocol/llm.ts";

export interface LlmProvider {
  readonly id: string;
  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent>;
  /** Models the provider offers. Throws an LlmProviderError when the provider cannot be reached. */
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** Details of one model (context window, tool support); undefined when the provider cannot tell. */
  modelInfo(model: string, signal?: AbortSignal): Promise<ModelInfo | undefined>;
}

export interface ProviderCapabilities {
  streaming: boolean;
  nativeTools: boolean;
  images: boolean;
  promptCaching: boolean;
  /** True for local servers (no key; availability means the server answers). */
  local: boolean;
}

export interface ProviderContext {
  env: Record<string, string | undefined>;
  baseUrl: string;
  apiKey?: string;
  /** Injected so tests and proxies can replace the transport. */
  fetch: typeof fetch;
}

export interface ProviderDefinition {
  id: string;
  displayName: string;
  /** Env vars holding the key, first found wins. */
  envKeys: string[];
  needsAuth: boolean;
  defaultModel: string;
  baseUrlEnv: string;
  defaultBaseUrl: string;
  /** Turns the configured base URL into the one requests go to and messages show (Ollama: `host` → `http://host:11434`). */
  normalizeBaseUrl?(raw: string): string;
  capabilities: ProviderCapabilities;
  /** Credentials that are not an env key (Copilot's stored device login); checked when no env key is set. */
  hasStoredCredentials?(env: Record<string, string | undefined>): boolean;
  create(ctx: ProviderContext): LlmProvider;
}

/** Thrown only by the non-streaming helpers (listModels, modelInfo), carrying a classified error. */
export class LlmProviderError extends Error {
  constructor(readonly error: import("../protocol/llm.ts").LlmError) {
    super(error.message);
    this.name = "LlmProviderError";
  }
}
