// Cloud providers through the compiled binary against fake SSE servers (OpenAI, Anthropic, Gemini), and the
// fallback chain moving from a failing provider to a working one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let sse: FakeSseServer;
let ollama: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  sse = startFakeSse();
  ollama = startFakeOllama({ defaultReply: { text: "answer from ollama" } });
});
afterAll(() => {
  sse.stop();
  ollama.stop();
  b.cleanup();
});

describe("providers (compiled binary)", () => {
  test("OPENAI streams over SSE with the key from the environment", async () => {
    sse.enqueue({ fixture: "openai-text.sse" });
    const r = await run(b, ["-p", "hi", "--provider", "openai", "--model", "gpt-4o"], { OPENAI_API_KEY: "sk-test-123456789", OPENAI_BASE_URL: `${sse.url}/v1` });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(3);
    const req = sse.requests.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test-123456789");
  });

  test("CLAUDEAI streams Anthropic Messages SSE", async () => {
    sse.enqueue({ fixture: "anthropic-text-thinking.sse" });
    const r = await run(b, ["-p", "hi"], { LLM_PROVIDER: "CLAUDEAI", ANTHROPIC_API_KEY: "sk-ant-test-123456789", ANTHROPIC_BASE_URL: sse.url });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(sse.requests.at(-1)!.path).toBe("/v1/messages");
  });

  test("GOOGLEAI streams through the Gemini package", async () => {
    sse.enqueue({ fixture: "gemini-text.sse" });
    const r = await run(b, ["-p", "hi", "--provider", "googleai"], { GOOGLEAI_API_KEY: "AIza-test-key-123456789", GOOGLE_GEMINI_BASE_URL: sse.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The answer is 42.");
  });

  test("a missing key is a clear error with exit 1", async () => {
    const r = await run(b, ["-p", "hi", "--provider", "openai"], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("OPENAI_API_KEY");
  });

  test("fallback chain: a provider answering 500 is left for the next entry, and the switch is shown", async () => {
    for (let i = 0; i < 6; i++) sse.enqueue({ status: 500, body: '{"error":{"message":"down"}}' });
    const r = await run(b, ["-p", "hi", "--provider", "openai", "--model", "gpt-4o"], {
      OPENAI_API_KEY: "sk-test-123456789",
      OPENAI_BASE_URL: `${sse.url}/v1`,
      OLLAMA_HOST: ollama.url,
      CHATCLI_FALLBACK_PROVIDERS: "OLLAMA:qwen3:8b",
      INITIAL_BACKOFF: "0.01",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("answer from ollama");
    expect(r.stderr).toContain("OLLAMA");
  });
});
