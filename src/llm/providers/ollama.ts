/**
 * OLLAMA: local models through the `ollama` client (NDJSON streaming /api/chat, /api/tags, /api/show).
 * Native tools when /api/show lists the "tools" capability; otherwise the agent's text protocol is used
 * (the agent asks `modelInfo().supportsTools`). `num_ctx` is sent with every request.
 */
import { Ollama, type Message as OllamaMessage, type Tool as OllamaTool } from "ollama/browser";
import { z } from "zod";
import type { Message } from "../../protocol/message.ts";
import type { LlmEvent, LlmRequest, ModelInfo, StopReason } from "../../protocol/llm.ts";
import { classifyThrown, parseRetryAfter } from "../errors.ts";
import { LlmProviderError, type LlmProvider, type ProviderContext } from "../provider.ts";
import { registerProvider } from "../registry.ts";
import { retryingStream } from "./wire-common.ts";
import { wireMessages } from "../anchor.ts";

export const OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434";
const OLLAMA_DEFAULT_PORT = "11434";

/**
 * `OLLAMA_HOST` as the Ollama CLI and client read it: no scheme → `http://` and port 11434; `:port` → 127.0.0.1;
 * an explicit scheme without a port → 80/443. `127.0.0.1` → `http://127.0.0.1:11434`, `:11500` →
 * `http://127.0.0.1:11500`, `box:8080` → `http://box:8080`. A value that is no URL at all is returned trimmed.
 */
export function normalizeOllamaHost(raw: string | undefined): string {
  let v = (raw ?? "").trim();
  if (!v) return OLLAMA_DEFAULT_HOST;
  let explicitScheme = v.includes("://");
  if (v.startsWith(":")) {
    v = `http://127.0.0.1${v}`;
    explicitScheme = true;
  } else if (!explicitScheme) v = `http://${v}`;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return (raw ?? "").trim();
  }
  // URL drops a port equal to the scheme's default (`host:80`): a port that was typed is kept either way.
  const typedPort = /^[^/]*:\d+(\/|$)/.test(v.slice(v.indexOf("://") + 3));
  const port = url.port || (explicitScheme || typedPort ? (url.protocol === "https:" ? "443" : "80") : OLLAMA_DEFAULT_PORT);
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ""}@` : "";
  return `${url.protocol}//${auth}${url.hostname}:${port}${url.pathname}`.replace(/\/+$/, "");
}
/**
 * Whether the server at `baseUrl` is Ollama: its `/api/version` answers JSON `{"version": "…"}`. Asked only after a
 * request failed in a way Ollama would not fail (HTML, a 404 page, not JSON), to say so instead of quoting the page.
 */
export async function isOllamaServer(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  try {
    const res = await fetchImpl(`${baseUrl}/api/version`, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) return false;
    return versionSchema.safeParse(await res.json()).success;
  } catch {
    return false;
  }
}
const versionSchema = z.object({ version: z.string() });

/** Cap on the num_ctx we ask for when the user did not choose one: a 128K KV cache does not fit most machines. */
export const OLLAMA_DEFAULT_NUM_CTX_CAP = 32_768;
/** What Ollama itself uses when /api/show says nothing. */
export const OLLAMA_FALLBACK_CONTEXT = 8_192;

/**
 * One streamed line. Unknown keys are stripped, not kept: nothing reads them, and a stripping object parses
 * ~4x faster in zod 4 (no catch-all walk over `model`, `created_at`, `role`) — this runs once per chunk.
 */
const chunkSchema = z.object({
  message: z
    .object({
      content: z.string().optional(),
      thinking: z.string().optional(),
      tool_calls: z
        .array(z.looseObject({ function: z.looseObject({ name: z.string(), arguments: z.unknown() }) }))
        .optional(),
    })
    .optional(),
  done: z.boolean().optional(),
  done_reason: z.string().optional(),
  prompt_eval_count: z.number().optional(),
  eval_count: z.number().optional(),
});

const showSchema = z.looseObject({
  capabilities: z.array(z.string()).optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
  parameters: z.string().optional(),
});

const tagsSchema = z.looseObject({
  models: z.array(z.looseObject({ name: z.string(), size: z.number().optional() })),
});

export class OllamaProvider implements LlmProvider {
  readonly id = "OLLAMA";
  private readonly infoCache = new Map<string, Promise<ModelInfo | undefined>>();

  constructor(private readonly ctx: ProviderContext) {}

  get host(): string {
    return this.ctx.baseUrl;
  }

  stream(request: LlmRequest, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    return retryingStream((s) => this.attempt(request, s), { provider: this.id, endpoint: this.ctx.baseUrl, env: this.ctx.env, idleSeconds: 300, signal });
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    try {
      const res = await this.client(signal).list();
      const parsed = tagsSchema.parse(res);
      return parsed.models.map((m) => (m.size !== undefined ? { id: m.name, sizeBytes: m.size } : { id: m.name }));
    } catch (err) {
      throw new LlmProviderError(classifyThrown(err, this.id, signal));
    }
  }

  modelInfo(model: string, signal?: AbortSignal): Promise<ModelInfo | undefined> {
    let p = this.infoCache.get(model);
    if (!p) {
      p = this.fetchModelInfo(model, signal);
      this.infoCache.set(model, p);
      p.catch(() => this.infoCache.delete(model));
    }
    return p;
  }

  private async fetchModelInfo(model: string, signal?: AbortSignal): Promise<ModelInfo | undefined> {
    let res: unknown;
    try {
      res = await this.client(signal).show({ model });
    } catch (err) {
      throw new LlmProviderError(classifyThrown(err, this.id, signal));
    }
    const parsed = showSchema.safeParse(res);
    if (!parsed.success) return { id: model };
    const caps = parsed.data.capabilities ?? [];
    const info: ModelInfo = {
      id: model,
      supportsTools: caps.includes("tools"),
      supportsImages: caps.includes("vision"),
      supportsThinking: caps.includes("thinking"),
    };
    const ctxLen = contextLengthOf(parsed.data.model_info, parsed.data.parameters);
    if (ctxLen) info.contextWindow = ctxLen;
    return info;
  }

  /** `onResponse` sees every HTTP response (the package's errors drop the headers, Retry-After among them). */
  private client(signal?: AbortSignal, onResponse?: (res: Response) => void): Ollama {
    const base = this.ctx.fetch;
    const f: typeof fetch = Object.assign(
      async (input: string | URL | Request, init?: RequestInit) => {
        const signals = [init?.signal, signal].filter((s): s is AbortSignal => !!s);
        const res = await base(input, { ...init, ...(signals.length ? { signal: AbortSignal.any(signals) } : {}) });
        onResponse?.(res);
        return res.ok ? res : await asJsonError(res);
      },
      { preconnect: base.preconnect },
    );
    return new Ollama({ host: this.ctx.baseUrl, fetch: f });
  }

  /** The num_ctx to send: the request's window, else the model's own (capped), else Ollama's fallback. */
  private async numCtx(request: LlmRequest, signal: AbortSignal): Promise<number> {
    if (request.contextWindow) return request.contextWindow;
    const info = await this.modelInfo(request.model, signal).catch(() => undefined);
    return Math.min(info?.contextWindow ?? OLLAMA_FALLBACK_CONTEXT, OLLAMA_DEFAULT_NUM_CTX_CAP);
  }

  private async *attempt(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
    const numCtx = await this.numCtx(request, signal);
    const options: Record<string, number> = { num_ctx: numCtx };
    if (request.temperature !== undefined) options.temperature = request.temperature;
    if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
    const messages = toOllamaMessages(request);
    const tools = request.tools?.length ? request.tools.map(toOllamaTool) : undefined;
    let retryAfter: string | null = null;
    const client = this.client(signal, (res) => {
      if (!res.ok) retryAfter = res.headers.get("retry-after");
    });
    const chat = () => client.chat({ model: request.model, messages, stream: true, options, ...(tools ? { tools } : {}) });
    let stream: Awaited<ReturnType<typeof chat>>;
    try {
      stream = await chat();
    } catch (err) {
      const e = classifyThrown(err, this.id, signal);
      const ms = parseRetryAfter(retryAfter);
      throw new LlmProviderError(ms !== undefined && e.retryAfterMs === undefined ? { ...e, retryAfterMs: ms } : e);
    }
    const onAbort = () => stream.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let toolIndex = 0;
    let stop: StopReason = "stop";
    try {
      for await (const raw of stream) {
        const chunk = chunkSchema.safeParse(raw);
        if (!chunk.success) continue; // a malformed line is skipped, like the Ollama CLI does
        const c = chunk.data;
        if (c.message?.thinking) yield { type: "thinking_delta", text: c.message.thinking };
        // Inline <think> tags in the content are split off for every provider (wire-common.ts).
        if (c.message?.content) yield { type: "text_delta", text: c.message.content };
        for (const tc of c.message?.tool_calls ?? []) {
          const index = toolIndex++;
          const id = `call_${index}`;
          const args = typeof tc.function.arguments === "string" ? tc.function.arguments : JSON.stringify(tc.function.arguments ?? {});
          yield { type: "toolcall_start", index, id, name: tc.function.name };
          yield { type: "toolcall_delta", index, argumentsDelta: args };
          yield { type: "toolcall_end", index, id, name: tc.function.name, arguments: args };
        }
        if (c.done) {
          stop = toolIndex > 0 ? "tool_calls" : c.done_reason === "length" ? "length" : "stop";
          yield {
            type: "usage",
            usage: { inputTokens: c.prompt_eval_count ?? 0, outputTokens: c.eval_count ?? 0, cachedInputTokens: 0, reasoningTokens: 0 },
          };
        }
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    yield { type: "done", stopReason: stop };
  }
}

const errorBodySchema = z.looseObject({ error: z.string() });

/**
 * An error response re-shaped as the `{"error": "..."}` JSON the ollama package expects. Given anything else
 * (a proxy's HTML 413, plain text, broken JSON) the package writes "Getting text from response" or "Failed to
 * parse error response as JSON" with console.log — onto our stdout, corrupting -p and --output-format json.
 */
async function asJsonError(res: Response): Promise<Response> {
  const text = await res.text().catch(() => "");
  let error = text.trim();
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) error = parsed.data.error;
  } catch {
    // not JSON: the text itself is the message
  }
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(JSON.stringify({ error }), { status: res.status, statusText: res.statusText, headers });
}

function contextLengthOf(modelInfo: Record<string, unknown> | undefined, parameters: string | undefined): number | undefined {
  // A num_ctx set in the Modelfile wins over the architecture's maximum.
  const m = parameters?.match(/^\s*num_ctx\s+(\d+)/m);
  if (m?.[1]) return Number(m[1]);
  if (!modelInfo) return undefined;
  for (const [k, v] of Object.entries(modelInfo)) {
    if (k.endsWith(".context_length") && typeof v === "number" && v > 0) return v;
  }
  return undefined;
}

function toOllamaTool(t: { name: string; description: string; parameters: Record<string, unknown> }): OllamaTool {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.parameters as OllamaTool["function"]["parameters"] } };
}

export function toOllamaMessages(request: LlmRequest): OllamaMessage[] {
  const out: OllamaMessage[] = [];
  const system = request.system.map((p) => p.text).filter(Boolean).join("\n\n");
  if (system) out.push({ role: "system", content: system });
  // Strict chat templates accept a system message only first: a later one (an imported note, a summary) is
  // sent as user text, as the Anthropic and Gemini wires do.
  for (const m of wireMessages(request)) out.push(m.role === "system" && out.length > 0 ? { role: "user", content: m.content } : toOllamaMessage(m));
  return out;
}

function toOllamaMessage(m: Message): OllamaMessage {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content };
    case "user":
      return m.images?.length ? { role: "user", content: m.content, images: m.images.map((i) => i.base64) } : { role: "user", content: m.content };
    case "assistant": {
      const msg: OllamaMessage = { role: "assistant", content: m.content };
      if (m.toolCalls?.length) {
        msg.tool_calls = m.toolCalls.map((tc) => ({ function: { name: tc.name, arguments: parseArgs(tc.arguments) } }));
      }
      return msg;
    }
    case "tool": {
      const msg: OllamaMessage = { role: "tool", content: m.isError ? `[ERROR${m.errorCode ? `:${m.errorCode}` : ""}] ${m.content}` : m.content, tool_name: m.name };
      if (m.images?.length) msg.images = m.images.map((i) => i.base64);
      return msg;
    }
  }
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

registerProvider({
  id: "OLLAMA",
  displayName: "Ollama (local)",
  envKeys: [],
  needsAuth: false,
  defaultModel: "",
  baseUrlEnv: "OLLAMA_HOST",
  defaultBaseUrl: OLLAMA_DEFAULT_HOST,
  normalizeBaseUrl: normalizeOllamaHost,
  capabilities: { streaming: true, nativeTools: true, images: true, promptCaching: false, local: true },
  create: (ctx) => new OllamaProvider(ctx),
});
