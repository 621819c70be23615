/**
 * The OpenAI chat-completions wire (SSE), shared by OPENAI, the OpenAI-compatible family and COPILOT.
 * Tool calls arrive as index-keyed deltas split across many chunks: the id and name come first, the
 * arguments in pieces; a call ends at finish_reason (or at [DONE]). Usage arrives in a final chunk with
 * empty `choices` when `stream_options.include_usage` is set.
 */
import { z } from "zod";
import type { LlmEvent, LlmRequest, ModelInfo, StopReason, Usage } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { contextWindowFor } from "../context-windows.ts";
import { classifyThrown, makeError } from "../errors.ts";
import { LlmProviderError, type LlmProvider } from "../provider.ts";
import { parseJsonData, readSse } from "../sse.ts";
import { httpError, joinUrl, malformedChunk, postEventStream, retryingStream, toolResultText } from "./wire-common.ts";
import { wireMessages } from "../anchor.ts";

export interface OpenAiAuth {
  headers: Record<string, string>;
  /** Overrides the configured base URL for this attempt (Copilot's token names its API endpoint). */
  baseUrl?: string;
}

export interface OpenAiChatConfig {
  id: string;
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  baseUrl: string;
  /** Resolved per attempt, so a provider can exchange or refresh tokens lazily. */
  auth: (signal: AbortSignal) => Promise<OpenAiAuth>;
  /** OpenAI proper wants `max_completion_tokens`; most compatible servers only know `max_tokens`. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Models offered when the server has no /models listing (user-defined providers). */
  staticModels?: string[];
}

const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const usageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  /** DeepSeek-style servers report cache hits at the top level. */
  prompt_cache_hit_tokens: z.number().nullish(),
});

export const openAiChunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z.array(toolCallDeltaSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .optional(),
  usage: usageSchema.nullish(),
  error: z.looseObject({ message: z.string().optional(), code: z.unknown().optional(), type: z.unknown().optional() }).optional(),
});

const modelsSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) });

export class OpenAiChatProvider implements LlmProvider {
  readonly id: string;

  constructor(private readonly cfg: OpenAiChatConfig) {
    this.id = cfg.id;
  }

  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    return retryingStream((s) => this.attempt(request, s), { provider: this.id, endpoint: this.cfg.baseUrl, env: this.cfg.env, idleSeconds: 120, signal });
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    if (this.cfg.staticModels?.length) return this.cfg.staticModels.map((id) => ({ id, contextWindow: contextWindowFor(id, this.cfg.env) }));
    try {
      const auth = await this.cfg.auth(signal ?? new AbortController().signal);
      const res = await this.cfg.fetch(joinUrl(auth.baseUrl ?? this.cfg.baseUrl, "models"), {
        headers: auth.headers,
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) throw new LlmProviderError(await httpError(res, this.id));
      const parsed = modelsSchema.parse(await res.json());
      return parsed.data.map((m) => ({ id: m.id, contextWindow: contextWindowFor(m.id, this.cfg.env) }));
    } catch (err) {
      if (err instanceof LlmProviderError) throw err;
      throw new LlmProviderError(classifyThrown(err, this.id, signal));
    }
  }

  async modelInfo(model: string): Promise<ModelInfo | undefined> {
    return { id: model, contextWindow: contextWindowFor(model, this.cfg.env), supportsTools: true };
  }

  /** The JSON body sent for a request (exported shape is asserted by the wire tests). */
  buildBody(request: LlmRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: request.model,
      messages: toOpenAiMessages(request),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools?.length) {
      body.tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
    }
    if (request.maxOutputTokens !== undefined) body[this.cfg.maxTokensField] = request.maxOutputTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    return body;
  }

  private async *attempt(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const auth = await this.cfg.auth(signal);
    const init = { headers: { "content-type": "application/json", accept: "text/event-stream", ...auth.headers }, body: this.buildBody(request), signal };
    yield* postEventStream(this.cfg.fetch, joinUrl(auth.baseUrl ?? this.cfg.baseUrl, "chat/completions"), init, this.id, parseOpenAiStream);
  }
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
  ended: boolean;
}

/** Turn an OpenAI chat-completions SSE body into our events. */
export async function* parseOpenAiStream(body: ReadableStream<Uint8Array>, provider: string): AsyncGenerator<LlmEvent> {
  const calls = new Map<number, PendingCall>();
  let finish: string | undefined;
  let sawDone = false;
  const endCalls = function* (): Generator<LlmEvent> {
    for (const [index, c] of [...calls.entries()].sort((a, b) => a[0] - b[0])) {
      if (c.ended) continue;
      c.ended = true;
      if (!c.started) yield { type: "toolcall_start", index, id: c.id, name: c.name };
      yield { type: "toolcall_end", index, id: c.id, name: c.name, arguments: c.args || "{}" };
    }
  };
  for await (const ev of readSse(body)) {
    if (ev.data === "[DONE]") {
      sawDone = true;
      break;
    }
    const json = parseJsonData(ev.data);
    if (!json.ok) {
      yield malformedChunk(provider, ev.data);
      return;
    }
    const parsed = openAiChunkSchema.safeParse(json.value);
    if (!parsed.success) {
      yield malformedChunk(provider, ev.data);
      return;
    }
    const chunk = parsed.data;
    if (chunk.error) {
      yield { type: "error", error: makeError("server_error", chunk.error.message ?? "stream error", { provider }) };
      return;
    }
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta;
      const thinking = d?.reasoning_content ?? d?.reasoning;
      if (thinking) yield { type: "thinking_delta", text: thinking };
      if (d?.content) yield { type: "text_delta", text: d.content };
      for (const tc of d?.tool_calls ?? []) {
        const index = tc.index ?? 0;
        let c = calls.get(index);
        if (!c) {
          c = { id: tc.id ?? `call_${index}`, name: tc.function?.name ?? "", args: "", started: false, ended: false };
          calls.set(index, c);
        } else {
          if (tc.id && !c.started) c.id = tc.id;
          if (tc.function?.name && !c.started) c.name += tc.function.name;
        }
        // Start once the name is known; argument pieces before that are buffered.
        if (!c.started && c.name) {
          c.started = true;
          yield { type: "toolcall_start", index, id: c.id, name: c.name };
          if (c.args) yield { type: "toolcall_delta", index, argumentsDelta: c.args };
        }
        const piece = tc.function?.arguments;
        if (piece) {
          c.args += piece;
          if (c.started) yield { type: "toolcall_delta", index, argumentsDelta: piece };
        }
      }
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        yield* endCalls();
      }
    }
    if (chunk.usage) yield { type: "usage", usage: usageOf(chunk.usage) };
  }
  if (!sawDone && finish === undefined) {
    yield { type: "error", error: makeError("network", "connection closed before the stream finished", { provider }) };
    return;
  }
  yield* endCalls();
  yield { type: "done", stopReason: mapFinish(finish, calls.size > 0) };
}

function usageOf(u: z.infer<typeof usageSchema>): Usage {
  return {
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    cachedInputTokens: u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? 0,
    reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

export function mapFinish(reason: string | undefined, hadToolCalls: boolean): StopReason {
  if (hadToolCalls) return "tool_calls";
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

export function toOpenAiMessages(request: LlmRequest): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const system = request.system.map((p) => p.text).filter(Boolean).join("\n\n");
  if (system) out.push({ role: "system", content: system });
  // Strict chat templates accept a system message only first: a later one (an imported note, a summary) is
  // sent as user text, as the Anthropic and Gemini wires do.
  const messages = wireMessages(request);
  for (const [i, m] of messages.entries()) {
    out.push(m.role === "system" && out.length > 0 ? { role: "user", content: m.content } : toOpenAiMessage(m));
    const pictures = m.role === "tool" && messages[i + 1]?.role !== "tool" ? toolImagesMessage(messages, i) : undefined;
    if (pictures) out.push(pictures);
  }
  return out;
}

/**
 * Chat-completions tool messages are text only: the images of a run of tool results (the answers to one assistant
 * message) follow the run as one user message, after the last tool message so the call ids stay paired.
 */
function toolImagesMessage(messages: readonly Message[], last: number): Record<string, unknown> | undefined {
  let first = last;
  while (first > 0 && messages[first - 1]!.role === "tool") first--;
  const parts: Array<Record<string, unknown>> = [];
  for (const m of messages.slice(first, last + 1)) {
    if (m.role !== "tool" || !m.images?.length) continue;
    parts.push({ type: "text", text: `Image(s) returned by the ${m.name} tool call (${m.toolCallId}):` });
    for (const i of m.images) parts.push({ type: "image_url", image_url: { url: `data:${i.mediaType};base64,${i.base64}` } });
  }
  return parts.length ? { role: "user", content: parts } : undefined;
}

function toOpenAiMessage(m: Message): Record<string, unknown> {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content };
    case "user":
      if (!m.images?.length) return { role: "user", content: m.content };
      return {
        role: "user",
        content: [
          { type: "text", text: m.content },
          ...m.images.map((i) => ({ type: "image_url", image_url: { url: `data:${i.mediaType};base64,${i.base64}` } })),
        ],
      };
    case "assistant": {
      const msg: Record<string, unknown> = { role: "assistant", content: m.content || null };
      if (m.toolCalls?.length) {
        msg.tool_calls = m.toolCalls.map((tc) => ({ id: tc.id, type: "function", function: { name: tc.name, arguments: tc.arguments || "{}" } }));
      } else if (!m.content) msg.content = "";
      return msg;
    }
    case "tool":
      return { role: "tool", tool_call_id: m.toolCallId, content: toolResultText(m) };
  }
}
