/**
 * A fake Ollama server on 127.0.0.1 speaking the real wire protocol: NDJSON streaming /api/chat,
 * /api/tags, /api/show, /api/version. Replies are scripted per /api/chat call (FIFO); every request body
 * is recorded. When the script runs dry, `defaultReply` answers.
 *
 * Standalone (for tmux/bench runs of the compiled binary):
 *   bun test/support/fake-ollama.ts --port 0 --reply "Hello" [--model m1] [--chunks 20] [--delay-ms 5] [--rate 2000] [--script replies.json]
 * (`--script` is a JSON array of FakeReply answered in order before the default reply.)
 * prints `READY <url>` once listening.
 */
export interface FakeModel {
  name: string;
  contextLength?: number;
  capabilities?: string[];
  /** A Modelfile `parameters` text, e.g. "num_ctx 4096". */
  parameters?: string;
}

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface FakeReply {
  /** Answer text; split into `chunkCount` chunks unless `chunks` is given. */
  text?: string;
  chunks?: string[];
  chunkCount?: number;
  thinking?: string[];
  toolCalls?: FakeToolCall[];
  doneReason?: string;
  /** Delay before each chunk. */
  chunkDelayMs?: number;
  /**
   * Pace the answer at this many chunks a second, on the clock from the first chunk (chunks that fall due
   * together are sent together, as a fast model's tokens arrive in one read). Unset (and no chunkDelayMs): unpaced.
   */
  chunksPerSecond?: number;
  /** Prefix each answer chunk with `⟦<epoch ms, sub-ms>⟧` taken as it is sent (latency benches parse it back). */
  stamp?: boolean;
  /** Called with performance.now() right after the last answer chunk was handed to the socket. */
  onLastChunk?: (at: number) => void;
  /** Delay before the response headers. */
  headerDelayMs?: number;
  /** Answer with this HTTP status and `errorBody` instead of a stream. */
  status?: number;
  errorBody?: string;
  headers?: Record<string, string>;
  /** Close the connection after this many chunks (no done line). */
  dropAfter?: number;
  /** Stop sending (keep the connection open) after this many chunks. */
  stallAfter?: number;
  /** Send this raw line (e.g. malformed JSON) before the first chunk. */
  rawLineFirst?: string;
  promptEvalCount?: number;
  evalCount?: number;
  /**
   * Answer only a /api/chat request whose `messages` JSON contains this text (parallel subagents ask in any order).
   * The first queued reply that has no `match` or whose `match` fits is taken.
   */
  match?: string;
}

export interface RecordedRequest {
  path: string;
  method: string;
  body: unknown;
  at: number;
  /** /api/chat with `concurrency`: when the request got a slot, and when its answer ended (or the client left). */
  slotAt?: number;
  endedAt?: number;
  /** The client went away before the answer was complete. */
  cancelled?: boolean;
}

export interface FakeOllama {
  url: string;
  port: number;
  requests: RecordedRequest[];
  chatRequests(): Array<Record<string, unknown>>;
  enqueue(...replies: FakeReply[]): void;
  stop(): void;
}

export interface FakeOllamaOptions {
  models?: FakeModel[];
  replies?: FakeReply[];
  defaultReply?: FakeReply;
  port?: number;
  version?: string;
  /**
   * The reply to chatcli's compaction summarizer (a request whose one user message is the structured-summary
   * prompt), so scripted turns are not consumed by summaries. Unset: summaries take from the queue like any call.
   */
  summaryReply?: FakeReply;
  /** Answers a /api/chat request before the queue (e.g. by its system prompt); undefined: the queue answers. */
  route?: (body: Record<string, unknown>) => FakeReply | undefined;
  /** How many /api/chat answers run at once (Ollama with OLLAMA_NUM_PARALLEL=1: 1); the rest wait. Default: no limit. */
  concurrency?: number;
}

export function startFakeOllama(opts: FakeOllamaOptions = {}): FakeOllama {
  const models = opts.models ?? [{ name: "qwen3:8b", contextLength: 40960, capabilities: ["completion", "tools"] }];
  const queue: FakeReply[] = [...(opts.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const defaultReply = opts.defaultReply ?? { text: "ok" };
  let busy = 0;
  const waiters: Array<() => void> = [];
  const acquire = async (signal: AbortSignal): Promise<boolean> => {
    if (opts.concurrency === undefined || busy < opts.concurrency) {
      busy++;
      return true;
    }
    const got = await new Promise<boolean>((resolve) => {
      const go = () => resolve(true);
      waiters.push(go);
      signal.addEventListener("abort", () => {
        const i = waiters.indexOf(go);
        if (i >= 0) waiters.splice(i, 1);
        resolve(false);
      });
    });
    if (got) busy++;
    return got;
  };
  const release = () => {
    if (opts.concurrency === undefined) return;
    busy--;
    waiters.shift()?.();
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      let body: unknown = null;
      if (req.method === "POST") {
        const text = await req.text();
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const record: RecordedRequest = { path: url.pathname, method: req.method, body, at: Date.now() };
      requests.push(record);
      switch (url.pathname) {
        case "/api/version":
          return Response.json({ version: opts.version ?? "0.12.0" });
        case "/api/tags":
          return Response.json({
            models: models.map((m) => ({
              name: m.name,
              model: m.name,
              modified_at: "2026-01-01T00:00:00Z",
              size: 5_000_000_000,
              digest: "sha256:0",
              details: { format: "gguf", family: "qwen3", families: ["qwen3"], parameter_size: "8B", quantization_level: "Q4_K_M" },
            })),
          });
        case "/api/show": {
          const name = (body as { model?: string; name?: string } | null)?.model ?? (body as { name?: string } | null)?.name;
          const m = models.find((x) => x.name === name || x.name === `${name}:latest`);
          if (!m) return Response.json({ error: `model '${name}' not found` }, { status: 404 });
          return Response.json({
            modelfile: "",
            parameters: m.parameters ?? "",
            template: "",
            details: { format: "gguf", family: "qwen3" },
            model_info: { "general.architecture": "qwen3", ...(m.contextLength ? { "qwen3.context_length": m.contextLength } : {}) },
            capabilities: m.capabilities ?? ["completion"],
          });
        }
        case "/api/chat": {
          const model = (body as { model?: string } | null)?.model;
          if (!models.some((x) => x.name === model || x.name === `${model}:latest`)) {
            return Response.json({ error: `model "${model}" not found, try pulling it first` }, { status: 404 });
          }
          // As Ollama: images are raw base64 strings (no data: URL), and a model without vision refuses them.
          const withImages = ((body as { messages?: Array<{ images?: unknown }> } | null)?.messages ?? []).filter((m) => m.images !== undefined);
          for (const m of withImages) {
            if (!Array.isArray(m.images) || m.images.some((i) => typeof i !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(i))) {
              return Response.json({ error: "illegal base64 data in images" }, { status: 400 });
            }
          }
          const caps = models.find((x) => x.name === model || x.name === `${model}:latest`)?.capabilities ?? ["completion"];
          if (withImages.length && !caps.includes("vision")) return Response.json({ error: "this model is missing data required for image input" }, { status: 500 });
          const first = (body as { messages?: Array<{ content?: unknown }> } | null)?.messages?.[0]?.content;
          const isSummary = opts.summaryReply && typeof first === "string" && first.startsWith("You are a precise technical note-taker");
          const routed = opts.route?.(body as Record<string, unknown>);
          const reply = routed ?? (isSummary ? opts.summaryReply! : (takeReply(queue, body) ?? defaultReply));
          if (!(await acquire(req.signal))) {
            record.cancelled = true;
            return new Response("client gone", { status: 499 });
          }
          record.slotAt = Date.now();
          let ended = false;
          const end = (cancelled: boolean) => {
            if (ended) return;
            ended = true;
            record.endedAt = Date.now();
            if (cancelled) record.cancelled = true;
            release();
          };
          req.signal.addEventListener("abort", () => end(true));
          return chatResponse(reply, String(model), end);
        }
        default:
          return new Response("404 page not found", { status: 404 });
      }
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port ?? 0,
    requests,
    chatRequests: () => requests.filter((r) => r.path === "/api/chat").map((r) => r.body as Record<string, unknown>),
    enqueue: (...r) => queue.push(...r),
    stop: () => server.stop(true),
  };
}

/** The first queued reply without a `match`, or whose `match` is in the request's messages. */
function takeReply(queue: FakeReply[], body: unknown): FakeReply | undefined {
  const messages = JSON.stringify((body as { messages?: unknown } | null)?.messages ?? []);
  const i = queue.findIndex((r) => r.match === undefined || messages.includes(r.match));
  return i < 0 ? undefined : queue.splice(i, 1)[0];
}

function splitText(text: string, n: number): string[] {
  if (n <= 1 || text.length <= 1) return [text];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function chatResponse(reply: FakeReply, model: string, end: (cancelled: boolean) => void = () => undefined): Promise<Response> {
  if (reply.headerDelayMs) await Bun.sleep(reply.headerDelayMs);
  if (reply.status && reply.status >= 400) {
    end(false);
    return new Response(reply.errorBody ?? JSON.stringify({ error: `status ${reply.status}` }), {
      status: reply.status,
      headers: { "content-type": "application/json", ...reply.headers },
    });
  }
  const chunks = reply.chunks ?? splitText(reply.text ?? "", reply.chunkCount ?? 4);
  const created = "2026-01-01T00:00:00Z";
  const lines: Array<() => string> = [];
  for (const th of reply.thinking ?? []) {
    lines.push(() => JSON.stringify({ model, created_at: created, message: { role: "assistant", content: "", thinking: th }, done: false }));
  }
  for (const c of chunks) {
    lines.push(() => JSON.stringify({ model, created_at: created, message: { role: "assistant", content: reply.stamp ? `⟦${(performance.timeOrigin + performance.now()).toFixed(3)}⟧${c}` : c }, done: false }));
  }
  if (reply.toolCalls?.length) {
    lines.push(() =>
      JSON.stringify({
        model,
        created_at: created,
        message: { role: "assistant", content: "", tool_calls: reply.toolCalls!.map((t) => ({ function: { name: t.name, arguments: t.arguments } })) },
        done: false,
      }),
    );
  }
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let gone = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      if (reply.rawLineFirst) controller.enqueue(encoder.encode(reply.rawLineFirst + "\n"));
      let sent = 0;
      const pacedFrom = performance.now();
      for (const line of lines) {
        if (reply.dropAfter !== undefined && sent >= reply.dropAfter) {
          await Bun.sleep(30); // let the headers and the first chunks reach the client first
          end(true);
          controller.error(new Error("connection dropped"));
          return;
        }
        if (reply.stallAfter !== undefined && sent >= reply.stallAfter) {
          await new Promise<void>((r) => (timer = setTimeout(r, 600_000)));
          return;
        }
        if (reply.chunkDelayMs) await Bun.sleep(reply.chunkDelayMs);
        if (reply.chunksPerSecond) {
          while (performance.now() - pacedFrom < (sent / reply.chunksPerSecond) * 1000) await Bun.sleep(1);
        }
        if (gone) return;
        controller.enqueue(encoder.encode(line() + "\n"));
        sent++;
      }
      reply.onLastChunk?.(performance.now());
      controller.enqueue(
        encoder.encode(
          JSON.stringify({
            model,
            created_at: created,
            message: { role: "assistant", content: "" },
            done: true,
            done_reason: reply.doneReason ?? "stop",
            total_duration: 1000,
            load_duration: 10,
            prompt_eval_count: reply.promptEvalCount ?? 12,
            prompt_eval_duration: 10,
            eval_count: reply.evalCount ?? chunks.length,
            eval_duration: 10,
          }) + "\n",
        ),
      );
      if (gone) return;
      controller.close();
      end(false);
    },
    cancel() {
      gone = true;
      if (timer) clearTimeout(timer);
      end(true);
    },
  });
  return new Response(stream, { headers: { "content-type": "application/x-ndjson" } });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const get = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const replyText = get("reply") ?? "Hello from the fake Ollama.";
  const modelNames = (get("model") ?? "qwen3:8b").split(",");
  const script = get("script");
  const replies = script ? (JSON.parse(await Bun.file(script).text()) as FakeReply[]) : [];
  const fake = startFakeOllama({
    replies,
    port: Number(get("port") ?? 0),
    models: modelNames.map((name) => ({ name, contextLength: Number(get("ctx") ?? 40960), capabilities: ["completion", "tools"] })),
    defaultReply: { text: replyText, chunkCount: Number(get("chunks") ?? 4), chunkDelayMs: Number(get("delay-ms") ?? 0), chunksPerSecond: Number(get("rate") ?? 0) },
  });
  process.stdout.write(`READY ${fake.url}\n`);
}
