/**
 * Inline `<think>` text is thinking for every provider, not only Ollama: recorded-shape streams through the
 * fake SSE servers (LM Studio / llama.cpp content, vLLM `reasoning_content`, OpenRouter `reasoning`, Anthropic
 * text blocks, Gemini parts).
 */
import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { registerOpenAiCompatibleFromSettings } from "../../src/llm/providers/openai-compatible.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, ofType, request, text, thinking } from "./helpers.ts";

let fake: FakeSseServer | undefined;
afterEach(() => fake?.stop());

const sse = (o: unknown) => `data: ${JSON.stringify(o)}`;

describe("inline thinking on every wire", () => {
  test("LM Studio (a user-defined OpenAI-compatible server): tags split across chunks are thinking, not answer", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-inline-think.sse" }] });
    registerOpenAiCompatibleFromSettings([{ name: "LM Studio", baseUrl: `${fake.url}/v1`, models: ["qwen3-8b"] }]);
    const evs = await collect(createProvider("LM_STUDIO", { ...FAST }).stream(request({ model: "qwen3-8b" })));
    expect(text(evs)).toBe("\n\nThe answer is 42.");
    expect(thinking(evs)).toBe("\nThe user wants a number.");
    expect(ofType(evs, "usage")[0]?.usage.outputTokens).toBe(17);
    expect(last(evs)).toEqual({ type: "done", stopReason: "stop" });
  });

  test("OpenRouter: `reasoning` deltas are thinking; vLLM: `reasoning_content` deltas are thinking", async () => {
    fake = startFakeSse({ replies: [{ fixture: "openai-reasoning-field.sse" }, { fixture: "openai-reasoning-content.sse" }] });
    const or = await collect(createProvider("OPENROUTER", { OPENROUTER_API_KEY: "k", OPENROUTER_BASE_URL: `${fake.url}/v1`, ...FAST }).stream(request()));
    expect(thinking(or)).toBe("Let me think briefly.");
    expect(text(or)).toBe("Forty-two.");
    const vllm = await collect(createProvider("OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1`, ...FAST }).stream(request()));
    expect(thinking(vllm)).toBe("Simple arithmetic: 6 times 7.");
    expect(text(vllm)).toBe("42");
  });

  test("an unclosed think at the end of the stream stays thinking; text before the tag stays answer", async () => {
    const chunk = (content: string) => sse({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    const end = sse({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "length" }] });
    fake = startFakeSse({ replies: [{ events: [chunk("Okay. <thin"), chunk("king>first I"), chunk(" will"), end, "data: [DONE]"] }] });
    const evs = await collect(createProvider("OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1`, ...FAST }).stream(request()));
    expect(text(evs)).toBe("Okay. ");
    expect(thinking(evs)).toBe("first I will");
    expect(last(evs)).toEqual({ type: "done", stopReason: "length" });
  });

  test("Anthropic: thinking blocks and a text block with inline <thinking> tags", async () => {
    const ev = (type: string, data: unknown) => `event: ${type}\n${sse(data)}`;
    fake = startFakeSse({
      replies: [
        {
          events: [
            ev("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "claude-sonnet-4-6", content: [], usage: { input_tokens: 5, output_tokens: 1 } } }),
            ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
            ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "block. " } }),
            ev("content_block_stop", { type: "content_block_stop", index: 0 }),
            ev("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
            ev("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "<thinking>inline</thin" } }),
            ev("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "king>Hello." } }),
            ev("content_block_stop", { type: "content_block_stop", index: 1 }),
            ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }),
            ev("message_stop", { type: "message_stop" }),
          ],
        },
      ],
    });
    const evs = await collect(createProvider("CLAUDEAI", { CLAUDEAI_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fake.url, ...FAST }).stream(request({ model: "claude-sonnet-4-6" })));
    expect(thinking(evs)).toBe("block. inline");
    expect(text(evs)).toBe("Hello.");
  });

  test("Gemini: thought parts and inline <think> text parts are thinking", async () => {
    const part = (p: Record<string, unknown>, finishReason?: string) =>
      sse({ candidates: [{ content: { parts: [p], role: "model" }, index: 0, ...(finishReason ? { finishReason } : {}) }], modelVersion: "gemini-2.5-flash" });
    fake = startFakeSse({ replies: [{ events: [part({ text: "a thought", thought: true }), part({ text: "<think>mine</th" }), part({ text: "ink>The answer." }, "STOP")] }] });
    const evs = await collect(createProvider("GOOGLEAI", { GOOGLE_API_KEY: "g", GOOGLE_GEMINI_BASE_URL: fake.url, ...FAST }).stream(request({ model: "gemini-2.5-flash" })));
    expect(thinking(evs)).toBe("a thoughtmine");
    expect(text(evs)).toBe("The answer.");
  });
});
