/**
 * GOOGLEAI: Gemini through `@google/generative-ai` (streamGenerateContent over SSE). Function calls arrive
 * whole, one or more per chunk; Gemini gives them no ids, so ours are `call_<n>`. Tool schemas are cleaned
 * of JSON-Schema keys Gemini rejects. The package uses the global fetch: `GOOGLE_GEMINI_BASE_URL` goes
 * through its requestOptions.baseUrl, which is how tests reach a fake server.
 */
import { GoogleGenerativeAI, type Content, type FunctionDeclaration, type Part } from "@google/generative-ai";
import { z } from "zod";
import type { LlmEvent, LlmRequest, ModelInfo, StopReason } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { contextWindowFor } from "../context-windows.ts";
import { classifyThrown, makeError } from "../errors.ts";
import { LlmProviderError, type LlmProvider, type ProviderContext } from "../provider.ts";
import { registerProvider } from "../registry.ts";
import { httpError, joinUrl, malformedChunk, parseArgsObject, retryingStream, toolResultText } from "./wire-common.ts";
import { wireMessages } from "../anchor.ts";

export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

const chunkSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z
          .looseObject({
            parts: z
              .array(
                z.looseObject({
                  text: z.string().optional(),
                  thought: z.boolean().optional(),
                  functionCall: z.looseObject({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() }).optional(),
                }),
              )
              .optional(),
          })
          .optional(),
        finishReason: z.string().optional(),
      }),
    )
    .optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      cachedContentTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
    })
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
});

const modelsSchema = z.looseObject({
  models: z.array(z.looseObject({ name: z.string(), inputTokenLimit: z.number().optional(), description: z.string().optional() })).optional(),
});

export class GeminiProvider implements LlmProvider {
  readonly id = "GOOGLEAI";

  constructor(private readonly ctx: ProviderContext) {}

  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    return retryingStream((s) => this.attempt(request, s), { provider: this.id, endpoint: this.ctx.baseUrl, env: this.ctx.env, idleSeconds: 120, signal });
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    try {
      const url = `${joinUrl(this.ctx.baseUrl, "v1beta/models")}?key=${encodeURIComponent(this.ctx.apiKey ?? "")}`;
      const res = await this.ctx.fetch(url, signal ? { signal } : {});
      if (!res.ok) throw new LlmProviderError(await httpError(res, this.id));
      const parsed = modelsSchema.parse(await res.json());
      return (parsed.models ?? []).map((m) => {
        const id = m.name.replace(/^models\//, "");
        return { id, contextWindow: m.inputTokenLimit ?? contextWindowFor(id, this.ctx.env), ...(m.description ? { description: m.description } : {}) };
      });
    } catch (err) {
      if (err instanceof LlmProviderError) throw err;
      throw new LlmProviderError(classifyThrown(err, this.id, signal));
    }
  }

  async modelInfo(model: string): Promise<ModelInfo | undefined> {
    return { id: model, contextWindow: contextWindowFor(model, this.ctx.env), supportsTools: true, supportsImages: true, supportsThinking: model.includes("2.5") };
  }

  private async *attempt(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const genAI = new GoogleGenerativeAI(this.ctx.apiKey ?? "");
    const system = request.system.map((p) => p.text).filter(Boolean).join("\n\n");
    const generationConfig: Record<string, unknown> = {};
    if (request.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = request.maxOutputTokens;
    if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
    const model = genAI.getGenerativeModel(
      {
        model: request.model,
        ...(system ? { systemInstruction: system } : {}),
        ...(request.tools?.length ? { tools: [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }] } : {}),
        generationConfig,
      },
      { baseUrl: this.ctx.baseUrl.replace(/\/+$/, "") },
    );
    const result = await model.generateContentStream({ contents: toGeminiContents(wireMessages(request)) }, { signal });
    // The package tees the stream into an aggregate promise we never read; keep its rejection handled.
    result.response.catch(() => undefined);
    let toolIndex = 0;
    let finish: string | undefined;
    let usage: z.infer<typeof chunkSchema>["usageMetadata"];
    for await (const raw of packageErrorsAsEvents(result.stream, this.id)) {
      if (isErrorEvent(raw)) {
        yield raw;
        return;
      }
      const parsed = chunkSchema.safeParse(raw);
      if (!parsed.success) {
        yield malformedChunk(this.id, JSON.stringify(raw));
        return;
      }
      const c = parsed.data;
      if (c.promptFeedback?.blockReason) {
        yield { type: "error", error: makeError("invalid_request", `prompt blocked: ${c.promptFeedback.blockReason}`, { provider: this.id }) };
        return;
      }
      for (const cand of c.candidates ?? []) {
        for (const part of cand.content?.parts ?? []) {
          if (part.text && part.thought) yield { type: "thinking_delta", text: part.text };
          else if (part.text) yield { type: "text_delta", text: part.text };
          if (part.functionCall) {
            const index = toolIndex++;
            const id = `call_${index}`;
            const args = JSON.stringify(part.functionCall.args ?? {});
            yield { type: "toolcall_start", index, id, name: part.functionCall.name };
            yield { type: "toolcall_delta", index, argumentsDelta: args };
            yield { type: "toolcall_end", index, id, name: part.functionCall.name, arguments: args };
          }
        }
        if (cand.finishReason) finish = cand.finishReason;
      }
      // usageMetadata is cumulative in every chunk: the last one counts.
      if (c.usageMetadata) usage = c.usageMetadata;
    }
    if (!finish) {
      yield { type: "error", error: makeError("network", "stream ended before a finishReason", { provider: this.id }) };
      return;
    }
    if (usage) {
      const thoughts = usage.thoughtsTokenCount ?? 0;
      yield {
        type: "usage",
        usage: {
          inputTokens: usage.promptTokenCount ?? 0,
          outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
          cachedInputTokens: usage.cachedContentTokenCount ?? 0,
          reasoningTokens: thoughts,
        },
      };
    }
    yield { type: "done", stopReason: mapFinish(finish, toolIndex > 0) };
  }
}

const isErrorEvent = (v: unknown): v is Extract<LlmEvent, { type: "error" }> =>
  !!v && typeof v === "object" && (v as { type?: unknown }).type === "error" && "error" in v;

/** The package reports a bad chunk or a broken read as a plain Error; name them as our error events. */
async function* packageErrorsAsEvents(stream: AsyncIterable<unknown>, provider: string): AsyncGenerator<unknown> {
  try {
    yield* stream;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes("Error parsing JSON response")) yield malformedChunk(provider, message);
    else if (message.includes("Failed to parse stream") || message.includes("Error reading from the stream")) {
      yield { type: "error", error: makeError("network", message, { provider }) };
    } else throw err;
  }
}

function mapFinish(reason: string, hadTools: boolean): StopReason {
  if (hadTools) return "tool_calls";
  switch (reason) {
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "content_filter";
    default:
      return "stop";
  }
}

function toFunctionDeclaration(t: { name: string; description: string; parameters: Record<string, unknown> }): FunctionDeclaration {
  const params = cleanSchemaForGemini(t.parameters);
  const hasProps = params && typeof params === "object" && Object.keys((params as { properties?: object }).properties ?? {}).length > 0;
  // The package's schema type is narrower than JSON Schema; the cleaned object is what the API accepts.
  return { name: t.name, description: t.description, ...(hasProps ? { parameters: params as unknown as FunctionDeclaration["parameters"] } : {}) };
}

const GEMINI_SCHEMA_KEYS = new Set(["type", "format", "description", "nullable", "enum", "items", "properties", "required", "minItems", "maxItems", "minimum", "maximum", "anyOf", "propertyOrdering", "title"]);
const GEMINI_STRING_FORMATS = new Set(["enum", "date-time"]);

/** Keep only the OpenAPI-subset keys Gemini accepts; `const` → enum, type arrays with "null" → nullable. */
export function cleanSchemaForGemini(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchemaForGemini);
  if (!schema || typeof schema !== "object") return schema;
  const src = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === "const") {
      out.enum = [String(v)];
      if (!src.type) out.type = "string";
      continue;
    }
    if (!GEMINI_SCHEMA_KEYS.has(k)) continue;
    if (k === "type" && Array.isArray(v)) {
      const types = v.filter((x) => x !== "null");
      out.type = types[0] ?? "string";
      if (types.length !== v.length) out.nullable = true;
    } else if (k === "properties" && v && typeof v === "object") {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([pk, pv]) => [pk, cleanSchemaForGemini(pv)]));
    } else if (k === "format") {
      if (src.type !== "string" || GEMINI_STRING_FORMATS.has(String(v))) out.format = v;
    } else if (k === "enum" && Array.isArray(v)) {
      out.enum = v.map(String);
    } else {
      out[k] = cleanSchemaForGemini(v);
    }
  }
  return out;
}

export function toGeminiContents(messages: Message[]): Content[] {
  const out: Content[] = [];
  const push = (role: "user" | "model", parts: Part[]) => {
    if (!parts.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        push("user", [{ text: m.content }]);
        break;
      case "user":
        push("user", [...(m.content ? [{ text: m.content }] : []), ...(m.images ?? []).map((i) => ({ inlineData: { mimeType: i.mediaType, data: i.base64 } }))]);
        break;
      case "assistant":
        push("model", [
          ...(m.content ? [{ text: m.content }] : []),
          ...(m.toolCalls ?? []).map((tc) => ({ functionCall: { name: tc.name, args: parseArgsObject(tc.arguments) } })),
        ]);
        break;
      case "tool":
        push("user", [
          { functionResponse: { name: m.name, response: m.isError ? { error: toolResultText(m) } : { output: m.content } } },
          ...(m.images ?? []).map((i) => ({ inlineData: { mimeType: i.mediaType, data: i.base64 } })),
        ]);
        break;
    }
  }
  return out;
}

registerProvider({
  id: "GOOGLEAI",
  displayName: "Google Gemini",
  envKeys: ["GOOGLEAI_API_KEY", "GOOGLE_API_KEY"],
  needsAuth: true,
  defaultModel: "gemini-2.5-flash",
  baseUrlEnv: "GOOGLE_GEMINI_BASE_URL",
  defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
  capabilities: { streaming: true, nativeTools: true, images: true, promptCaching: false, local: false },
  create: (ctx) => new GeminiProvider(ctx),
});
