/**
 * The provider-neutral request and stream event types. Providers translate to and from their wire formats;
 * nothing above `llm/` ever sees a provider's own shapes.
 */
import type { Message } from "./message.ts";

export type Purpose = "main" | "compaction" | "tool_use_summary" | "title" | "continuation" | "memory";

/** A part of the system prompt. Cacheable parts form a stable prefix (Anthropic cache_control, OpenAI/Gemini prefix caching). */
export interface SystemPart {
  text: string;
  cacheable?: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (generated from the tool's zod schema). */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  system: SystemPart[];
  messages: Message[];
  tools?: ToolSpec[];
  maxOutputTokens?: number;
  temperature?: number;
  purpose: Purpose;
  /** Context window to ask for where the provider lets us choose (Ollama num_ctx). */
  contextWindow?: number;
  /** A short per-request reminder of the task; each wire folds it into the last user message (llm/anchor.ts). */
  anchor?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 });

export type StopReason = "stop" | "length" | "tool_calls" | "content_filter" | "aborted" | "error";

export type ErrorKind =
  | "rate_limit"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "network"
  | "auth"
  | "model_not_found"
  | "context_too_long"
  | "payload_too_large"
  | "invalid_request"
  | "aborted"
  | "unknown";

export interface LlmError {
  kind: ErrorKind;
  message: string;
  status?: number;
  provider?: string;
  retryable: boolean;
  fallbackable: boolean;
  retryAfterMs?: number;
}

export type LlmEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  | { type: "toolcall_start"; index: number; id: string; name: string }
  | { type: "toolcall_delta"; index: number; argumentsDelta: string }
  | { type: "toolcall_end"; index: number; id: string; name: string; arguments: string }
  /** `provider`/`model`: who served the call, when not the request's own (set by the fallback chain). */
  | { type: "usage"; usage: Usage; provider?: string; model?: string }
  | { type: "retry"; attempt: number; delayMs: number; error: LlmError }
  /** The fallback chain gave up on `from` (before any output) and continues with `to` ("PROVIDER:model"). */
  | { type: "provider_switch"; from: string; to: string; reason: string }
  /** The fallback chain moved to another provider (emitted before that provider's events). */
  | { type: "provider_switch"; from: string; to: string; reason: string }
  | { type: "done"; stopReason: StopReason }
  | { type: "error"; error: LlmError };

export interface ModelInfo {
  id: string;
  /** Context window in tokens, when known. */
  contextWindow?: number;
  /** Whether the model accepts native tool definitions. */
  supportsTools?: boolean;
  supportsImages?: boolean;
  supportsThinking?: boolean;
  sizeBytes?: number;
  description?: string;
}
