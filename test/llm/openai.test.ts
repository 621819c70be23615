import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { Message } from "../../src/protocol/message.ts";
import type { LlmEvent } from "../../src/protocol/llm.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, ofType, readFileTool, request, text, thinking } from "./helpers.ts";

let fake: FakeSseServer | undefined;
afterEach(() => fake?.stop());

function openai(extraEnv: Record<string, string> = {}) {
  fake ??= startFakeSse();
  return createProvider("OPENAI", { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.url}/v1`, ...FAST, ...extraEnv });
}

describe("OPENAI chat completions", () => {
  test("streams text and usage with cached and reasoning tokens", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse" }] });
    const evs = await collect(openai().stream(request({ maxOutputTokens: 100, temperature: 0.2 })));
    expect(text(evs)).toBe("Hello, world!");
    expect(ofType(evs, "usage")[0]?.usage).toEqual({ inputTokens: 1200, outputTokens: 40, cachedInputTokens: 1024, reasoningTokens: 16 });
    expect(last(evs)).toEqual({ type: "done", stopReason: "stop" });
    const req = fake.requests[0];
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.headers.authorization).toBe("Bearer sk-test");
    const body = fake.streamBodies()[0] ?? {};
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_completion_tokens).toBe(100);
    expect(body.temperature).toBe(0.2);
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" },
    ]);
  });

  test("assembles index-keyed tool-call deltas split across chunks", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-tools.sse" }] });
    const evs = await collect(openai().stream(request({ tools: [readFileTool] })));
    const ends = ofType(evs, "toolcall_end");
    expect(ends).toEqual([
      { type: "toolcall_end", index: 0, id: "call_read1", name: "read_file", arguments: '{"path": "src/main.ts"}' },
      { type: "toolcall_end", index: 1, id: "call_grep2", name: "grep", arguments: '{"pattern": "TODO", "path": "."}' },
    ]);
    const deltas0 = ofType(evs, "toolcall_delta").filter((d) => d.index === 0);
    expect(deltas0.length).toBe(3);
    expect(deltas0.map((d) => d.argumentsDelta).join("")).toBe('{"path": "src/main.ts"}');
    expect(ofType(evs, "toolcall_start").map((s) => s.name)).toEqual(["read_file", "grep"]);
    expect(last(evs)).toEqual({ type: "done", stopReason: "tool_calls" });
    const body = fake.streamBodies()[0] ?? {};
    expect(body.tools).toEqual([{ type: "function", function: { name: "read_file", description: "Read a file", parameters: readFileTool.parameters } }]);
  });

  test("maps assistant tool calls and error tool results onto the wire", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse" }] });
    const messages: Message[] = [
      { role: "user", content: "read it" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"x"}' }] },
      { role: "tool", toolCallId: "call_1", name: "read_file", content: "no such file", isError: true, errorCode: "ENOENT" },
      { role: "user", content: "look", images: [{ mediaType: "image/png", base64: "AAAA" }] },
    ];
    await collect(openai().stream(request({ messages })));
    const wire = (fake.streamBodies()[0]?.messages ?? []) as unknown[];
    expect(wire.slice(1)).toEqual([
      { role: "user", content: "read it" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"x"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "[ERROR:ENOENT] no such file" },
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ]);
  });

  test("reasoning_content deltas become thinking", async () => {
    fake = startFakeSse({
      replies: [
        {
          events: [
            'data: {"choices":[{"index":0,"delta":{"reasoning_content":"hmm "}}]}',
            'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"length"}]}',
            "data: [DONE]",
          ],
        },
      ],
    });
    const evs = await collect(openai().stream(request()));
    expect(thinking(evs)).toBe("hmm ");
    expect(last(evs)).toEqual({ type: "done", stopReason: "length" });
  });
});

describe("OPENAI faults", () => {
  test("429 with Retry-After is retried after the server's delay", async () => {
    fake = startFakeSse({ replies: [{ status: 429, headers: { "retry-after": "0.05" }, body: '{"error":{"message":"Rate limit reached"}}' }, { fixture: "openai-text.sse" }] });
    const evs = await collect(openai().stream(request()));
    const retries = ofType(evs, "retry");
    expect(retries.length).toBe(1);
    expect(retries[0]?.delayMs).toBe(50);
    expect(retries[0]?.error.kind).toBe("rate_limit");
    expect(text(evs)).toBe("Hello, world!");
    expect(last(evs)?.type).toBe("done");
  });

  test("500 then success", async () => {
    fake = startFakeSse({ replies: [{ status: 500 }, { fixture: "openai-text.sse" }] });
    const evs = await collect(openai().stream(request()));
    expect(ofType(evs, "retry")[0]?.error.kind).toBe("server_error");
    expect(last(evs)).toEqual({ type: "done", stopReason: "stop" });
    expect(fake.streamBodies().length).toBe(2);
  });

  test("retries stop at MAX_RETRIES tries", async () => {
    fake = startFakeSse({ defaultReply: { status: 503 } });
    const evs = await collect(openai({ MAX_RETRIES: "2" }).stream(request()));
    expect(ofType(evs, "retry").length).toBe(1);
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "overloaded", status: 503 } });
    expect(fake.streamBodies().length).toBe(2);
  });

  test("401 is not retried", async () => {
    fake = startFakeSse({ defaultReply: { status: 401, body: '{"error":{"message":"Incorrect API key"}}' } });
    const evs = await collect(openai().stream(request()));
    expect(evs).toEqual([{ type: "error", error: expect.objectContaining({ kind: "auth", status: 401, message: "Incorrect API key", retryable: false }) }]);
  });

  test("a connection dropped mid-stream after output ends in a network error, not a retry", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse", dropAfter: 2 }] });
    const evs = await collect(openai().stream(request()));
    expect(text(evs)).toBe("Hello");
    expect(ofType(evs, "retry").length).toBe(0);
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "network" } });
  });

  test("a stream that closes cleanly before finishing is an error", async () => {
    fake = startFakeSse({ replies: [{ events: ['data: {"choices":[{"index":0,"delta":{"content":"par"}}]}'] }] });
    const evs = await collect(openai().stream(request()));
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "network" } });
  });

  test("a malformed chunk before output is an error event (then retried)", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse", malformedAt: 0 }, { fixture: "openai-text.sse" }] });
    const evs = await collect(openai().stream(request()));
    expect(ofType(evs, "retry")[0]?.error.message).toContain("malformed stream chunk");
    expect(last(evs)?.type).toBe("done");
  });

  test("a malformed chunk after output ends the stream with an error", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse", malformedAt: 3 }] });
    const evs = await collect(openai().stream(request()));
    expect(text(evs)).toBe("Hello, wor");
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "server_error" } });
  });

  test("a stalled stream hits the idle timeout", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse", stallAfter: 2 }] });
    const evs = await collect(openai({ CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS: "0.2" }).stream(request()));
    expect(text(evs)).toBe("Hello");
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  test("an abort during backoff ends at once with an aborted error", async () => {
    fake = startFakeSse({ defaultReply: { status: 500 } });
    const ac = new AbortController();
    const evs = await collect(openai({ INITIAL_BACKOFF: "30" }).stream(request(), ac.signal), (ev) => {
      if (ev.type === "retry") ac.abort();
    });
    expect(ofType(evs, "retry").length).toBe(1);
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "aborted" } });
    expect(fake.streamBodies().length).toBe(1);
  });

  test("an abort mid-stream ends with an aborted error", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-text.sse", stallAfter: 2 }] });
    const ac = new AbortController();
    const evs = await collect(openai({ CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS: "30" }).stream(request(), ac.signal), (ev) => {
      if (ev.type === "text_delta") ac.abort();
    });
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "aborted" } });
  });

  test("connection refused on this machine: one try, no retry events, the error names the URL and is not retryable", async () => {
    for (const base of ["http://127.0.0.1:1/v1", "http://localhost:1/v1", "http://[::1]:1/v1"]) {
      const p = createProvider("OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: base, ...FAST, MAX_RETRIES: "5" });
      const evs = await collect(p.stream(request()));
      expect(ofType(evs, "retry")).toEqual([]);
      expect(last(evs)).toMatchObject({ type: "error", error: { kind: "network", retryable: false, fallbackable: true } });
      const e = last(evs) as Extract<LlmEvent, { type: "error" }>;
      expect(e.error.message).toContain(new URL(base).host);
      expect(e.error.message).toStartWith("connection refused");
    }
  });

  test("a remote server keeps its retry policy, and every network error names the host", async () => {
    // The transport as Bun reports a refused connection (code + URL in `path`), for a host that is not local.
    let calls = 0;
    const refusing = (async (url: string | URL | Request) => {
      calls++;
      throw Object.assign(new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?"), { code: "ECONNREFUSED", path: String(url) });
    }) as unknown as typeof fetch;
    const p = createProvider("OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://llm.example.test/v1", ...FAST, MAX_RETRIES: "3" }, refusing);
    const evs = await collect(p.stream(request()));
    expect(calls).toBe(3);
    expect(ofType(evs, "retry").length).toBe(2);
    for (const r of ofType(evs, "retry")) expect(r.error.message).toContain("https://llm.example.test");
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "network", retryable: true } });
    // A reset (not a refusal) on a remote host: the message names the host too.
    const resetting = (async () => {
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    }) as unknown as typeof fetch;
    const q = createProvider("OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://llm.example.test/v1", ...FAST, MAX_RETRIES: "1" }, resetting);
    const reset = last(await collect(q.stream(request()))) as Extract<LlmEvent, { type: "error" }>;
    expect(reset.error.message).toBe("socket hang up (https://llm.example.test)");
  });

  test("listModels reads /models", async () => {
    fake = startFakeSse({ json: { "/v1/models": [{ body: { object: "list", data: [{ id: "gpt-4o", object: "model" }, { id: "mystery-1", object: "model" }] } }] } });
    const models = await openai().listModels();
    expect(models.map((m) => m.id)).toEqual(["gpt-4o", "mystery-1"]);
    expect(models[0]?.contextWindow).toBe(128_000);
  });
});
