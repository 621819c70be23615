import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { Message } from "../../src/protocol/message.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, ofType, readFileTool, request, text, thinking } from "./helpers.ts";

let fake: FakeSseServer | undefined;
afterEach(() => fake?.stop());

const claude = (env: Record<string, string> = {}) =>
  createProvider("CLAUDEAI", { CLAUDEAI_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fake?.url, ...FAST, ...env });

describe("CLAUDEAI messages", () => {
  test("streams thinking and text; usage counts cache reads; headers carry the key and version", async () => {
    fake = startFakeSse({ replies: [{ fixture: "anthropic-text-thinking.sse" }] });
    const evs = await collect(claude().stream(request({ model: "claude-sonnet-4-6" })));
    expect(thinking(evs)).toBe("The user greets; answer briefly.");
    expect(text(evs)).toBe("Hi there!");
    expect(ofType(evs, "usage")[0]?.usage).toEqual({ inputTokens: 2060, outputTokens: 27, cachedInputTokens: 2048, reasoningTokens: 0 });
    expect(last(evs)).toEqual({ type: "done", stopReason: "stop" });
    const r = fake.requests[0];
    expect(r?.path).toBe("/v1/messages");
    expect(r?.headers["x-api-key"]).toBe("sk-ant-test");
    expect(r?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(fake.streamBodies()[0]?.max_tokens).toBe(8192);
  });

  test("tool_use blocks with input_json_delta become tool calls", async () => {
    fake = startFakeSse({ replies: [{ fixture: "anthropic-tools.sse" }] });
    const evs = await collect(claude().stream(request({ tools: [readFileTool] })));
    expect(text(evs)).toBe("Let me look.");
    expect(ofType(evs, "toolcall_end")).toEqual([
      { type: "toolcall_end", index: 0, id: "toolu_01X", name: "read_file", arguments: '{"path": "src/main.ts"}' },
      { type: "toolcall_end", index: 1, id: "toolu_01Y", name: "list_dir", arguments: '{"path": "."}' },
    ]);
    expect(ofType(evs, "toolcall_delta").filter((d) => d.index === 0).length).toBe(3);
    expect(ofType(evs, "usage")[0]?.usage.inputTokens).toBe(1900);
    expect(last(evs)).toEqual({ type: "done", stopReason: "tool_calls" });
    expect(fake.streamBodies()[0]?.tools).toEqual([{ name: "read_file", description: "Read a file", input_schema: readFileTool.parameters }]);
  });

  test("cache_control goes on the end of each cacheable system run, at most 4", async () => {
    fake = startFakeSse({ defaultReply: { fixture: "anthropic-text-thinking.sse" } });
    const system = [
      { text: "A", cacheable: true },
      { text: "B", cacheable: true },
      { text: "dynamic" },
      { text: "C", cacheable: true },
    ];
    await collect(claude().stream(request({ system })));
    expect(fake.streamBodies()[0]?.system).toEqual([
      { type: "text", text: "A" },
      { type: "text", text: "B", cache_control: { type: "ephemeral" } },
      { type: "text", text: "dynamic" },
      { type: "text", text: "C", cache_control: { type: "ephemeral" } },
    ]);
    const many = Array.from({ length: 6 }, (_, i) => [{ text: `c${i}`, cacheable: true }, { text: `d${i}` }]).flat();
    await collect(claude().stream(request({ system: many })));
    const sent = (fake.streamBodies()[1]?.system ?? []) as Array<{ text: string; cache_control?: unknown }>;
    expect(sent.filter((p) => p.cache_control).map((p) => p.text)).toEqual(["c2", "c3", "c4", "c5"]);
  });

  test("history: tool results merge into one user turn with is_error and the error prefix", async () => {
    fake = startFakeSse({ defaultReply: { fixture: "anthropic-text-thinking.sse" } });
    const messages: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Reading.",
        toolCalls: [
          { id: "toolu_1", name: "read_file", arguments: '{"path":"a"}' },
          { id: "toolu_2", name: "read_file", arguments: "not json" },
        ],
      },
      { role: "tool", toolCallId: "toolu_1", name: "read_file", content: "contents" },
      { role: "tool", toolCallId: "toolu_2", name: "read_file", content: "denied", isError: true, errorCode: "EACCES" },
    ];
    await collect(claude().stream(request({ messages })));
    expect(fake.streamBodies()[0]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "toolu_2", name: "read_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "contents" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "[ERROR:EACCES] denied", is_error: true },
        ],
      },
    ]);
  });

  test("an overloaded error event before output is retried", async () => {
    fake = startFakeSse({
      replies: [
        { events: ['event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'] },
        { fixture: "anthropic-text-thinking.sse" },
      ],
    });
    const evs = await collect(claude().stream(request()));
    expect(ofType(evs, "retry")[0]?.error).toMatchObject({ kind: "overloaded", message: "Overloaded" });
    expect(last(evs)?.type).toBe("done");
  });

  test("a drop before message_stop and a malformed event both end in error events", async () => {
    fake = startFakeSse({ replies: [{ fixture: "anthropic-tools.sse", dropAfter: 4 }, { fixture: "anthropic-tools.sse", malformedAt: 5 }] });
    const dropped = await collect(claude().stream(request()));
    expect(last(dropped)).toMatchObject({ type: "error", error: { kind: "network" } });
    const malformed = await collect(claude().stream(request()));
    expect(last(malformed)).toMatchObject({ type: "error", error: { kind: "server_error" } });
    expect(text(malformed)).toBe("Let me look.");
  });

  test("unknown event types are skipped (API versioning policy)", async () => {
    fake = startFakeSse({ replies: [{ events: ['event: future\ndata: {"type":"future_thing","x":1}', ...(await import("../support/fake-sse-servers.ts")).fixtureEvents("anthropic-text-thinking.sse")] }] });
    const evs = await collect(claude().stream(request()));
    expect(last(evs)?.type).toBe("done");
  });
});
