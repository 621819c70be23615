/**
 * CLAUDEAI: the Anthropic Messages API over SSE. Tool calls are `tool_use` content blocks whose input
 * streams as `input_json_delta`; thinking blocks stream as `thinking_delta`. Cacheable system parts get
 * `cache_control: {type: "ephemeral"}` — at the end of each cacheable run, at most 4 breakpoints (the API's limit).
 */
import { z } from "zod";
import type { LlmEvent, LlmRequest, ModelInfo, StopReason, Usage } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { contextWindowFor } from "../context-windows.ts";
import { classifyHttpError, classifyThrown, makeError } from "../errors.ts";
import { LlmProviderError, type LlmProvider, type ProviderContext } from "../provider.ts";
import { registerProvider } from "../registry.ts";
import { parseJsonData, readSse } from "../sse.ts";
import { httpError, joinUrl, malformedChunk, parseArgsObject, postEventStream, retryingStream, toolResultText } from "./wire-common.ts";
import { wireMessages } from "../anchor.ts";

export const ANTHROPIC_VERSION = "2023-06-01";
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;
const DEFAULT_MAX_TOKENS = 8192;

const usageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

const eventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message_start"), message: z.looseObject({ usage: usageSchema.optional() }) }),
  z.looseObject({
    type: z.literal("content_block_start"),
    index: z.number(),
    content_block: z.looseObject({ type: z.string(), id: z.string().optional(), name: z.string().optional() }),
  }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      thinking: z.string().optional(),
      partial_json: z.string().optional(),
    }),
  }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number() }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: usageSchema.optional(),
  }),
  z.looseObject({ type: z.literal("message_stop") }),
  z.looseObject({ type: z.literal("ping") }),
  z.looseObject({ type: z.literal("error"), error: z.looseObject({ type: z.string(), message: z.string().optional() }) }),
]);

const modelsSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string(), display_name: z.string().optional() })) });

/** Anthropic error types → the HTTP status they stand for, so classification stays in one place. */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

export class AnthropicProvider implements LlmProvider {
  readonly id = "CLAUDEAI";

  constructor(private readonly ctx: ProviderContext) {}

  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    return retryingStream((s) => this.attempt(request, s), { provider: this.id, endpoint: this.ctx.baseUrl, env: this.ctx.env, idleSeconds: 120, signal });
  }

  private headers(): Record<string, string> {
    return {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
      ...(this.ctx.apiKey ? { "x-api-key": this.ctx.apiKey } : {}),
    };
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    try {
      const res = await this.ctx.fetch(joinUrl(this.ctx.baseUrl, "v1/models"), { headers: this.headers(), ...(signal ? { signal } : {}) });
      if (!res.ok) throw new LlmProviderError(await httpError(res, this.id));
      const parsed = modelsSchema.parse(await res.json());
      return parsed.data.map((m) => ({
        id: m.id,
        contextWindow: contextWindowFor(m.id, this.ctx.env),
        ...(m.display_name ? { description: m.display_name } : {}),
      }));
    } catch (err) {
      if (err instanceof LlmProviderError) throw err;
      throw new LlmProviderError(classifyThrown(err, this.id, signal));
    }
  }

  async modelInfo(model: string): Promise<ModelInfo | undefined> {
    return { id: model, contextWindow: contextWindowFor(model, this.ctx.env), supportsTools: true, supportsImages: true };
  }

  buildBody(request: LlmRequest): Record<string, unknown> {
    const envMax = Number(this.ctx.env.ANTHROPIC_MAX_TOKENS);
    const body: Record<string, unknown> = {
      model: request.model,
      max_tokens: request.maxOutputTokens ?? (Number.isFinite(envMax) && envMax > 0 ? envMax : DEFAULT_MAX_TOKENS),
      messages: toAnthropicMessages(wireMessages(request)),
      stream: true,
    };
    const system = toAnthropicSystem(request);
    if (system.length) body.system = system;
    if (request.tools?.length) body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    if (request.temperature !== undefined) body.temperature = request.temperature;
    return body;
  }

  private async *attempt(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const init = { headers: { ...this.headers(), accept: "text/event-stream" }, body: this.buildBody(request), signal };
    yield* postEventStream(this.ctx.fetch, joinUrl(this.ctx.baseUrl, "v1/messages"), init, this.id, parseAnthropicStream);
  }
}

export async function* parseAnthropicStream(body: ReadableStream<Uint8Array>, provider: string): AsyncGenerator<LlmEvent> {
  const blocks = new Map<number, { kind: string; id: string; name: string; args: string }>();
  let toolIndex = 0;
  const toolIndexOf = new Map<number, number>();
  let stop: string | undefined;
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  let finished = false;
  for await (const raw of readSse(body)) {
    const json = parseJsonData(raw.data);
    const parsed = json.ok ? eventSchema.safeParse(json.value) : undefined;
    if (!parsed?.success) {
      // Unknown event types are allowed by the API's versioning policy; anything else malformed is an error.
      const t = json.ok ? (json.value as { type?: unknown } | null)?.type : undefined;
      if (typeof t === "string" && !eventSchema.options.some((o) => o.shape.type.value === t)) continue;
      yield malformedChunk(provider, raw.data);
      return;
    }
    const ev = parsed.data;
    switch (ev.type) {
      case "message_start": {
        const u = ev.message.usage;
        if (u) {
          const cached = u.cache_read_input_tokens ?? 0;
          usage.inputTokens = (u.input_tokens ?? 0) + cached + (u.cache_creation_input_tokens ?? 0);
          usage.cachedInputTokens = cached;
          usage.outputTokens = u.output_tokens ?? 0;
        }
        break;
      }
      case "content_block_start": {
        const b = ev.content_block;
        blocks.set(ev.index, { kind: b.type, id: b.id ?? "", name: b.name ?? "", args: "" });
        if (b.type === "tool_use") {
          const index = toolIndex++;
          toolIndexOf.set(ev.index, index);
          yield { type: "toolcall_start", index, id: b.id ?? `toolu_${index}`, name: b.name ?? "" };
        }
        break;
      }
      case "content_block_delta": {
        const d = ev.delta;
        if (d.type === "text_delta" && d.text) yield { type: "text_delta", text: d.text };
        else if (d.type === "thinking_delta" && d.thinking) yield { type: "thinking_delta", text: d.thinking };
        else if (d.type === "input_json_delta" && d.partial_json) {
          const b = blocks.get(ev.index);
          const index = toolIndexOf.get(ev.index);
          if (b && index !== undefined) {
            b.args += d.partial_json;
            yield { type: "toolcall_delta", index, argumentsDelta: d.partial_json };
          }
        }
        break;
      }
      case "content_block_stop": {
        const b = blocks.get(ev.index);
        const index = toolIndexOf.get(ev.index);
        if (b && index !== undefined) yield { type: "toolcall_end", index, id: b.id || `toolu_${index}`, name: b.name, arguments: b.args || "{}" };
        break;
      }
      case "message_delta":
        if (ev.delta.stop_reason) stop = ev.delta.stop_reason;
        if (ev.usage?.output_tokens != null) usage.outputTokens = ev.usage.output_tokens;
        break;
      case "message_stop":
        finished = true;
        break;
      case "ping":
        break;
      case "error": {
        const status = ERROR_TYPE_STATUS[ev.error.type] ?? 500;
        yield { type: "error", error: classifyHttpError(status, JSON.stringify({ error: ev.error }), provider) };
        return;
      }
    }
    if (finished) break;
  }
  if (!finished) {
    yield { type: "error", error: makeError("network", "connection closed before message_stop", { provider }) };
    return;
  }
  yield { type: "usage", usage };
  yield { type: "done", stopReason: mapStop(stop, toolIndex > 0) };
}

function mapStop(reason: string | undefined, hadTools: boolean): StopReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return hadTools ? "tool_calls" : "stop";
  }
}

export function toAnthropicSystem(request: LlmRequest): Array<Record<string, unknown>> {
  const parts = request.system.filter((p) => p.text);
  // A breakpoint caches the whole prefix up to it: mark the end of each cacheable run, keeping the last 4.
  const ends: number[] = [];
  parts.forEach((p, i) => {
    if (p.cacheable && !parts[i + 1]?.cacheable) ends.push(i);
  });
  const marked = new Set(ends.slice(-ANTHROPIC_MAX_CACHE_BREAKPOINTS));
  return parts.map((p, i) => (marked.has(i) ? { type: "text", text: p.text, cache_control: { type: "ephemeral" } } : { type: "text", text: p.text }));
}

type Block = Record<string, unknown>;

/** Maps history to Anthropic turns; consecutive same-role messages merge (tool results travel in user turns). */
export function toAnthropicMessages(messages: Message[]): Array<{ role: "user" | "assistant"; content: Block[] }> {
  const out: Array<{ role: "user" | "assistant"; content: Block[] }> = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        // Mid-conversation system notes (summaries, notices) travel as user text.
        push("user", [{ type: "text", text: m.content }]);
        break;
      case "user":
        push("user", [
          ...(m.images ?? []).map((i) => ({ type: "image", source: { type: "base64", media_type: i.mediaType, data: i.base64 } })),
          ...(m.content ? [{ type: "text", text: m.content }] : []),
        ]);
        break;
      case "assistant":
        push("assistant", [
          ...(m.content ? [{ type: "text", text: m.content }] : []),
          ...(m.toolCalls ?? []).map((tc) => ({ type: "tool_use", id: tc.id, name: tc.name, input: parseArgsObject(tc.arguments) })),
        ]);
        break;
      case "tool": {
        // A tool's images travel inside its tool_result, after its text.
        const content = m.images?.length
          ? [{ type: "text", text: toolResultText(m) }, ...m.images.map((i) => ({ type: "image", source: { type: "base64", media_type: i.mediaType, data: i.base64 } }))]
          : toolResultText(m);
        const block: Block = { type: "tool_result", tool_use_id: m.toolCallId, content };
        if (m.isError) block.is_error = true;
        push("user", [block]);
        break;
      }
    }
  }
  return out;
}

registerProvider({
  id: "CLAUDEAI",
  displayName: "Anthropic Claude",
  envKeys: ["ANTHROPIC_API_KEY", "CLAUDEAI_API_KEY"],
  needsAuth: true,
  defaultModel: "claude-sonnet-4-6",
  baseUrlEnv: "ANTHROPIC_BASE_URL",
  defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
  capabilities: { streaming: true, nativeTools: true, images: true, promptCaching: true, local: false },
  create: (ctx) => new AnthropicProvider(ctx),
});
