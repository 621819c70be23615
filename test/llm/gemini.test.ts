import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { cleanSchemaForGemini } from "../../src/llm/providers/gemini.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { Message } from "../../src/protocol/message.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, ofType, readFileTool, request, text } from "./helpers.ts";

let fake: FakeSseServer | undefined;
afterEach(() => fake?.stop());

const gemini = (env: Record<string, string> = {}) =>
  createProvider("GOOGLEAI", { GOOGLE_API_KEY: "g-key", GOOGLE_GEMINI_BASE_URL: fake?.url, ...FAST, ...env });

describe("GOOGLEAI through @google/generative-ai", () => {
  test("streams text with usage incl. cached and thought tokens", async () => {
    fake = startFakeSse({ replies: [{ fixture: "gemini-text.sse" }] });
    const evs = await collect(gemini().stream(request({ model: "gemini-2.5-flash", maxOutputTokens: 64 })));
    expect(text(evs)).toBe("The answer is 42.");
    expect(ofType(evs, "usage")).toEqual([{ type: "usage", usage: { inputTokens: 900, outputTokens: 37, cachedInputTokens: 512, reasoningTokens: 30 } }]);
    expect(last(evs)).toEqual({ type: "done", stopReason: "stop" });
    const r = fake.requests[0];
    expect(r?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(r?.search).toContain("alt=sse");
    expect(r?.headers["x-goog-api-key"]).toBe("g-key");
    const body = fake.streamBodies()[0] ?? {};
    expect(body.systemInstruction).toMatchObject({ parts: [{ text: "You are terse." }] });
    expect(body.generationConfig).toEqual({ maxOutputTokens: 64 });
  });

  test("function calls across chunks; tools sent as cleaned functionDeclarations", async () => {
    fake = startFakeSse({ replies: [{ fixture: "gemini-tools.sse" }] });
    const evs = await collect(gemini().stream(request({ tools: [readFileTool] })));
    expect(ofType(evs, "toolcall_end")).toEqual([
      { type: "toolcall_end", index: 0, id: "call_0", name: "read_file", arguments: '{"path":"src/main.ts"}' },
      { type: "toolcall_end", index: 1, id: "call_1", name: "grep", arguments: '{"pattern":"TODO","path":"."}' },
    ]);
    expect(last(evs)).toEqual({ type: "done", stopReason: "tool_calls" });
    expect(fake.streamBodies()[0]?.tools).toEqual([
      { functionDeclarations: [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] },
    ]);
  });

  test("history maps to user/model turns with functionResponse parts", async () => {
    fake = startFakeSse({ defaultReply: { fixture: "gemini-text.sse" } });
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "read_file", arguments: '{"path":"a"}' }] },
      { role: "tool", toolCallId: "call_0", name: "read_file", content: "gone", isError: true, errorCode: "ENOENT" },
    ];
    await collect(gemini().stream(request({ messages })));
    expect(fake.streamBodies()[0]?.contents).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { error: "[ERROR:ENOENT] gone" } } }] },
    ]);
  });

  test("429 with google.rpc.RetryInfo waits the retryDelay it names", async () => {
    const body = JSON.stringify({
      error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.06s" }] },
    });
    fake = startFakeSse({ replies: [{ status: 429, body }, { fixture: "gemini-text.sse" }] });
    const evs = await collect(gemini().stream(request()));
    expect(ofType(evs, "retry").map((r) => r.delayMs)).toEqual([60]);
    expect(last(evs)?.type).toBe("done");
  });

  test("429 then success; 400 not retried", async () => {
    fake = startFakeSse({ replies: [{ status: 429, body: '{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}' }, { fixture: "gemini-text.sse" }] });
    const evs = await collect(gemini().stream(request()));
    expect(ofType(evs, "retry")[0]?.error.kind).toBe("rate_limit");
    expect(last(evs)?.type).toBe("done");
    fake.enqueue({ status: 400, body: '{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}' });
    const bad = await collect(gemini().stream(request()));
    expect(bad).toEqual([{ type: "error", error: expect.objectContaining({ kind: "invalid_request", status: 400 }) }]);
  });

  test("malformed chunk, drop and stall end in error events", async () => {
    fake = startFakeSse({
      replies: [
        { fixture: "gemini-text.sse", malformedAt: 1 },
        { fixture: "gemini-text.sse", dropAfter: 1 },
        { fixture: "gemini-text.sse", stallAfter: 1 },
      ],
    });
    const malformed = await collect(gemini().stream(request()));
    expect(text(malformed)).toBe("The answer");
    expect(last(malformed)).toMatchObject({ type: "error", error: { kind: "server_error", message: expect.stringContaining("malformed stream chunk") } });
    const dropped = await collect(gemini().stream(request()));
    expect(last(dropped)).toMatchObject({ type: "error", error: { kind: "network" } });
    const stalled = await collect(gemini({ CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS: "0.2" }).stream(request()));
    expect(last(stalled)).toMatchObject({ type: "error", error: { kind: "timeout" } });
  });

  test("schema cleaning drops unsupported keys and rewrites const and nullable types", () => {
    expect(
      cleanSchemaForGemini({
        $schema: "x",
        type: "object",
        additionalProperties: false,
        properties: { mode: { const: "fast" }, n: { type: ["integer", "null"], default: 3 }, url: { type: "string", format: "uri" } },
      }),
    ).toEqual({ type: "object", properties: { mode: { enum: ["fast"], type: "string" }, n: { type: "integer", nullable: true }, url: { type: "string" } } });
  });
});
