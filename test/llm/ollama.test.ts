// The Ollama provider through the real `ollama` client against the fake NDJSON server.
import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { LlmProviderError } from "../../src/llm/provider.ts";
import type { LlmEvent, LlmRequest } from "../../src/protocol/llm.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

let fake: FakeOllama | undefined;
afterEach(() => fake?.stop());

const req = (over: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "qwen3:8b",
  system: [{ text: "be brief" }],
  messages: [{ role: "user", content: "hi" }],
  purpose: "main",
  ...over,
});

async function collect(it: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const env = (url: string, extra: Record<string, string> = {}) => ({ OLLAMA_HOST: url, INITIAL_BACKOFF: "0.01", ...extra });

describe("OLLAMA provider", () => {
  test("streams text deltas, usage and done; sends num_ctx from /api/show", async () => {
    fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 16384 }], replies: [{ text: "Hello world!", chunkCount: 3, promptEvalCount: 7, evalCount: 3 }] });
    const p = createProvider("OLLAMA", env(fake.url));
    const events = await collect(p.stream(req()));
    const text = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text);
    expect(text.length).toBe(3);
    expect(text.join("")).toBe("Hello world!");
    expect(events.find((e) => e.type === "usage")).toEqual({ type: "usage", usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, reasoningTokens: 0 } });
    expect(events[events.length - 1]).toEqual({ type: "done", stopReason: "stop" });
    const body = fake.chatRequests()[0]!;
    expect((body.options as { num_ctx: number }).num_ctx).toBe(16384);
    expect(body.stream).toBe(true);
    expect((body.messages as Array<{ role: string; content: string }>)[0]).toEqual({ role: "system", content: "be brief" });
  });

  test("num_ctx is capped for huge windows and taken from the request when given", async () => {
    fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 262144 }], replies: [{ text: "a" }, { text: "b" }] });
    const p = createProvider("OLLAMA", env(fake.url));
    await collect(p.stream(req()));
    await collect(p.stream(req({ contextWindow: 4096 })));
    const [a, b] = fake.chatRequests();
    expect((a!.options as { num_ctx: number }).num_ctx).toBe(32768);
    expect((b!.options as { num_ctx: number }).num_ctx).toBe(4096);
  });

  test("thinking: the `thinking` field and inline <think> tags are kept apart from the answer", async () => {
    fake = startFakeOllama({ replies: [{ thinking: ["let me ", "see"], chunks: ["<thi", "nk>inline reason</think>", "The answer."] }] });
    const events = await collect(createProvider("OLLAMA", env(fake.url)).stream(req()));
    const thinking = events.filter((e) => e.type === "thinking_delta").map((e) => (e as { text: string }).text).join("");
    const text = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("");
    expect(thinking).toBe("let me seeinline reason");
    expect(text).toBe("The answer.");
  });

  test("native tool calls become toolcall events and stop reason tool_calls", async () => {
    fake = startFakeOllama({ replies: [{ text: "", chunks: [], toolCalls: [{ name: "read", arguments: { path: "a.ts" } }] }] });
    const events = await collect(
      createProvider("OLLAMA", env(fake.url)).stream(req({ tools: [{ name: "read", description: "read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }] })),
    );
    const end = events.find((e) => e.type === "toolcall_end");
    expect(end).toMatchObject({ type: "toolcall_end", name: "read" });
    expect(JSON.parse((end as { arguments: string }).arguments)).toEqual({ path: "a.ts" });
    expect(events[events.length - 1]).toEqual({ type: "done", stopReason: "tool_calls" });
    const tools = fake.chatRequests()[0]!.tools as Array<{ type: string; function: { name: string } }>;
    expect(tools[0]!.function.name).toBe("read");
  });

  test("tool results are sent as role tool with the tool name; error results are marked", async () => {
    fake = startFakeOllama({ replies: [{ text: "done" }] });
    await collect(
      createProvider("OLLAMA", env(fake.url)).stream(
        req({
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"x"}' }] },
            { role: "tool", toolCallId: "c1", name: "read", content: "no such file", isError: true, errorCode: "ENOENT" },
          ],
        }),
      ),
    );
    const msgs = fake.chatRequests()[0]!.messages as Array<Record<string, unknown>>;
    expect(msgs[2]).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "read", arguments: { path: "x" } } }] });
    expect(msgs[3]).toEqual({ role: "tool", content: "[ERROR:ENOENT] no such file", tool_name: "read" });
  });

  test("unknown model → model_not_found error event, never a throw", async () => {
    fake = startFakeOllama();
    const events = await collect(createProvider("OLLAMA", env(fake.url)).stream(req({ model: "nope:1b" })));
    expect(events.length).toBe(1);
    expect(events[0]).toMatchObject({ type: "error", error: { kind: "model_not_found", retryable: false } });
  });

  test("server down on this machine → one try, no retry events; the error names the host and is not retryable", async () => {
    const events = await collect(createProvider("OLLAMA", env("http://127.0.0.1:9", { MAX_RETRIES: "5" })).stream(req()));
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(events[events.length - 1]).toMatchObject({ type: "error", error: { kind: "network", retryable: false, message: "connection refused (http://127.0.0.1:9)" } });
  });

  test("429 with Retry-After waits the server's delay, not the backoff (the client package drops the headers)", async () => {
    fake = startFakeOllama({ replies: [{ status: 429, errorBody: '{"error":"rate limited"}', headers: { "retry-after": "0.05" } }, { text: "after the wait" }] });
    const events = await collect(createProvider("OLLAMA", env(fake.url)).stream(req()));
    const retries = events.filter((e): e is Extract<LlmEvent, { type: "retry" }> => e.type === "retry");
    expect(retries.length).toBe(1);
    expect(retries[0]!.delayMs).toBe(50);
    expect(retries[0]!.error).toMatchObject({ kind: "rate_limit", retryable: true, fallbackable: true, status: 429 });
    expect(events.at(-1)).toMatchObject({ type: "done" });
  });

  test("500 then success is retried transparently", async () => {
    fake = startFakeOllama({ replies: [{ status: 500, errorBody: '{"error":"boom"}' }, { text: "recovered" }] });
    const events = await collect(createProvider("OLLAMA", env(fake.url)).stream(req()));
    expect(events.some((e) => e.type === "retry")).toBe(true);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe("recovered");
  });

  test("a malformed line is skipped; a dropped connection ends in an error event", async () => {
    fake = startFakeOllama({ replies: [{ text: "ok", rawLineFirst: "{not json" }, { text: "abcdef", chunkCount: 3, dropAfter: 1 }] });
    const p = createProvider("OLLAMA", env(fake.url));
    const first = await collect(p.stream(req()));
    expect(first[first.length - 1]).toEqual({ type: "done", stopReason: "stop" });
    const second = await collect(p.stream(req()));
    expect(second[second.length - 1]!.type).toBe("error");
    expect(second.filter((e) => e.type === "text_delta").length).toBe(1);
  });

  test("a stalled stream hits the idle timeout", async () => {
    fake = startFakeOllama({ replies: [{ text: "abcdef", chunkCount: 3, stallAfter: 1 }] });
    const events = await collect(createProvider("OLLAMA", env(fake.url, { CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS: "0.3" })).stream(req()));
    expect(events[events.length - 1]).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  test("abort mid-stream ends with an aborted error event", async () => {
    fake = startFakeOllama({ replies: [{ text: "abcdefghij", chunkCount: 10, chunkDelayMs: 50 }] });
    const ctrl = new AbortController();
    const out: LlmEvent[] = [];
    for await (const e of createProvider("OLLAMA", env(fake.url)).stream(req(), ctrl.signal)) {
      out.push(e);
      if (e.type === "text_delta") ctrl.abort();
    }
    expect(out[out.length - 1]).toMatchObject({ type: "error", error: { kind: "aborted" } });
  });

  test("listModels and modelInfo read /api/tags and /api/show", async () => {
    fake = startFakeOllama({ models: [{ name: "a:1b", contextLength: 2048, capabilities: ["completion", "tools", "vision"] }, { name: "b:2b", parameters: "num_ctx 4096" }] });
    const p = createProvider("OLLAMA", env(fake.url));
    expect((await p.listModels()).map((m) => m.id)).toEqual(["a:1b", "b:2b"]);
    expect(await p.modelInfo("a:1b")).toMatchObject({ contextWindow: 2048, supportsTools: true, supportsImages: true });
    expect(await p.modelInfo("b:2b")).toMatchObject({ contextWindow: 4096, supportsTools: false });
    let err: unknown;
    await p.modelInfo("zzz").catch((e) => (err = e));
    expect(err).toBeInstanceOf(LlmProviderError);
    expect((err as LlmProviderError).error.kind).toBe("model_not_found");
  });
});
