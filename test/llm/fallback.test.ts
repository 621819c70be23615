import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { createFallbackChain, parseFallbackEntries } from "../../src/llm/fallback.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { startFakeSse, type FakeSseOptions, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { FAST, collect, last, ofType, request, text } from "./helpers.ts";
import { startFakeOllama } from "../support/fake-ollama.ts";

const servers: FakeSseServer[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.stop()));

function setup(primary: FakeSseOptions, secondary: FakeSseOptions, env: Record<string, string> = {}) {
  const a = startFakeSse(primary);
  const b = startFakeSse(secondary);
  servers.push(a, b);
  let now = 1_000_000;
  const clock = { now: () => now };
  const fullEnv = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${a.url}/v1`, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: b.url, ...FAST, MAX_RETRIES: "5", ...env };
  const chain = createFallbackChain({
    entries: [{ provider: "OPENAI", model: "gpt-4o" }, { provider: "CLAUDEAI", model: "claude-sonnet-4-6" }],
    env: fullEnv,
    createProvider: (id) => createProvider(id, fullEnv),
    clock,
  });
  return { a, b, chain, advance: (ms: number) => (now += ms) };
}

describe("parseFallbackEntries", () => {
  test("settings entries keep colons in the model", () => {
    expect(parseFallbackEntries(["OLLAMA:qwen3:8b", "googleai:gemini-2.5-flash"], {})).toEqual([
      { provider: "OLLAMA", model: "qwen3:8b" },
      { provider: "GOOGLEAI", model: "gemini-2.5-flash" },
    ]);
  });
  test("env form: per-provider model env, else the provider default", () => {
    expect(parseFallbackEntries(undefined, { CHATCLI_FALLBACK_PROVIDERS: "OPENAI, CLAUDEAI", CHATCLI_FALLBACK_MODEL_OPENAI: "gpt-4o-mini" })).toEqual([
      { provider: "OPENAI", model: "gpt-4o-mini" },
      { provider: "CLAUDEAI", model: "claude-sonnet-4-6", defaultedModel: true },
    ]);
    expect(parseFallbackEntries([], {})).toEqual([]);
  });
});

describe("createFallbackChain", () => {
  test("a dead entry costs at most 2 retries, then a provider_switch and the next entry answers", async () => {
    const { a, b, chain } = setup({ defaultReply: { status: 503 } }, { defaultReply: { fixture: "anthropic-text-thinking.sse" } });
    const evs = await collect(chain.stream(request({ model: "ignored" })));
    expect(a.streamBodies().length).toBe(3);
    expect(ofType(evs, "retry").length).toBe(2);
    expect(ofType(evs, "provider_switch")).toEqual([
      { type: "provider_switch", from: "OPENAI:gpt-4o", to: "CLAUDEAI:claude-sonnet-4-6", reason: expect.stringContaining("overloaded") },
    ]);
    expect(text(evs)).toBe("Hi there!");
    expect(last(evs)?.type).toBe("done");
    expect(b.streamBodies()[0]?.model).toBe("claude-sonnet-4-6");
    expect(a.streamBodies()[0]?.model).toBe("gpt-4o");
  });

  test("cooldown skips the failed entry, grows 30 s × 2^(n-1), and success resets it", async () => {
    const { a, chain, advance } = setup({ replies: [{ status: 401 }, { status: 500 }, { status: 500 }], defaultReply: { fixture: "openai-text.sse" } }, { defaultReply: { fixture: "anthropic-text-thinking.sse" } }, { CHATCLI_FALLBACK_MAX_RETRIES: "0" });
    await collect(chain.stream(request()));
    const h0 = chain.health()[0];
    expect(h0?.cooldownUntil).toBe(1_000_000 + 300_000); // auth: the maximum
    await collect(chain.stream(request()));
    expect(a.streamBodies().length).toBe(1); // skipped while cooling down
    advance(300_000);
    await collect(chain.stream(request())); // 500 → second failure
    expect(chain.health()[0]?.cooldownUntil).toBe(1_300_000 + 60_000);
    advance(60_000);
    await collect(chain.stream(request())); // third failure → 120 s
    expect(chain.health()[0]?.cooldownUntil).toBe(1_360_000 + 120_000);
    advance(120_000);
    const ok = await collect(chain.stream(request()));
    expect(text(ok)).toBe("Hello, world!");
    expect(chain.health()[0]).toMatchObject({ consecutiveFailures: 0, cooldownUntil: 0 });
  });

  test("non-fallbackable errors and failures after output do not switch", async () => {
    const { b, chain } = setup(
      { replies: [{ status: 400, body: '{"error":{"message":"This model\'s maximum context length is 128000 tokens","code":"context_length_exceeded"}}' }, { fixture: "openai-text.sse", dropAfter: 2 }] },
      { defaultReply: { fixture: "anthropic-text-thinking.sse" } },
    );
    const ctx = await collect(chain.stream(request()));
    expect(last(ctx)).toMatchObject({ type: "error", error: { kind: "context_too_long" } });
    const dropped = await collect(chain.stream(request()));
    expect(text(dropped)).toBe("Hello");
    expect(last(dropped)).toMatchObject({ type: "error", error: { kind: "network" } });
    expect(ofType([...ctx, ...dropped], "provider_switch").length).toBe(0);
    expect(b.streamBodies().length).toBe(0);
  });

  test("all entries failing ends in one error naming each", async () => {
    const { chain } = setup({ defaultReply: { status: 401 } }, { defaultReply: { status: 404, body: '{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}' } });
    const evs = await collect(chain.stream(request()));
    const err = last(evs);
    expect(err?.type).toBe("error");
    if (err?.type === "error") {
      expect(err.error.message).toContain("all providers failed");
      expect(err.error.message).toContain("OPENAI:gpt-4o");
      expect(err.error.message).toContain("CLAUDEAI:claude-sonnet-4-6");
    }
  });

  test("an abort is final and does not switch", async () => {
    const { b, chain } = setup({ defaultReply: { status: 500 } }, { defaultReply: { fixture: "anthropic-text-thinking.sse" } }, { INITIAL_BACKOFF: "30" });
    const ac = new AbortController();
    const evs = await collect(chain.stream(request(), ac.signal), (ev) => ev.type === "retry" && ac.abort());
    expect(last(evs)).toMatchObject({ type: "error", error: { kind: "aborted" } });
    expect(b.streamBodies().length).toBe(0);
  });
});

describe("the entry that answers", () => {
  test("a main request announces the serving entry when it changed without a failure: the primary back, a skip while cooling down", async () => {
    const { a, chain, advance } = setup({ replies: [{ status: 500 }, { fixture: "openai-text.sse" }, { status: 500 }], defaultReply: { fixture: "openai-text.sse" } }, { defaultReply: { fixture: "anthropic-text-thinking.sse" } }, { CHATCLI_FALLBACK_MAX_RETRIES: "0" });
    const switches = (evs: Awaited<ReturnType<typeof collect>>) => ofType(evs, "provider_switch").map((e) => `${e.from} → ${e.to}: ${e.reason}`);
    const first = await collect(chain.stream(request()));
    expect(switches(first)).toEqual([expect.stringMatching(/^OPENAI:gpt-4o → CLAUDEAI:claude-sonnet-4-6: server_error/)]);
    const cooling = await collect(chain.stream(request())); // primary skipped, the fallback again: nothing new to say
    expect(switches(cooling)).toEqual([]);
    expect(text(cooling)).toBe("Hi there!");
    advance(30_000);
    const back = await collect(chain.stream(request()));
    expect(switches(back)).toEqual(["CLAUDEAI:claude-sonnet-4-6 → OPENAI:gpt-4o: primary available again"]);
    // Announced before the first output, so a consumer shows the right name while the answer streams.
    expect(back.findIndex((e) => e.type === "provider_switch")).toBeLessThan(back.findIndex((e) => e.type === "text_delta"));
    expect(text(back)).toBe("Hello, world!");
    expect(a.streamBodies().length).toBe(2);
    // A compaction call's switch is not the conversation's: the next main request, served by the fallback while
    // the primary cools down, says so.
    advance(60_000);
    const compaction = await collect(chain.stream(request({ purpose: "compaction" })));
    expect(switches(compaction).length).toBe(1);
    const main = await collect(chain.stream(request()));
    expect(switches(main)).toEqual(["OPENAI:gpt-4o → CLAUDEAI:claude-sonnet-4-6: OPENAI:gpt-4o cooling down"]);
    const again = await collect(chain.stream(request({ purpose: "tool_use_summary" })));
    expect(switches(again)).toEqual([]);
  });

  test("usage names the entry that served it, and a later entry gets its own window, not the primary's", async () => {
    const a = startFakeSse({ defaultReply: { status: 503 } });
    servers.push(a);
    const ollama = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "local answer", promptEvalCount: 30, evalCount: 5 } });
    try {
      const env = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${a.url}/v1`, OLLAMA_HOST: ollama.url, ...FAST, CHATCLI_FALLBACK_MAX_RETRIES: "0" };
      const chain = createFallbackChain({ entries: [{ provider: "OPENAI", model: "gpt-4o" }, { provider: "OLLAMA", model: "qwen3:8b" }], env, createProvider: (id) => createProvider(id, env) });
      const evs = await collect(chain.stream(request({ contextWindow: 128_000 })));
      expect(text(evs)).toBe("local answer");
      expect(ofType(evs, "usage")).toEqual([{ type: "usage", usage: { inputTokens: 30, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 }, provider: "OLLAMA", model: "qwen3:8b" }]);
      const sent = ollama.chatRequests()[0] as { options: { num_ctx: number } };
      expect(sent.options.num_ctx).toBe(8192);
    } finally {
      ollama.stop();
    }
  });
});
