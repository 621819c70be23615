import { expect, test } from "bun:test";
import { describingErrors } from "../../src/cli/describe-errors.ts";
import { describeLlmError } from "../../src/cli/describe-error.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { AgentEventListener } from "../../src/protocol/session-like.ts";

test("the TUI gets the actionable explanation of a provider error, other events unchanged", () => {
  const listeners: AgentEventListener[] = [];
  const inner = { submit: () => undefined, subscribe: (l: AgentEventListener) => (listeners.push(l), () => undefined) };
  const seen: AgentEvent[] = [];
  describingErrors(inner, (e) => describeLlmError(e, { provider: "OLLAMA", model: "qwen3:8b", baseUrl: "http://127.0.0.1:11500" })).subscribe((e) => seen.push(e));
  listeners[0]!({ type: "error", message: "ECONNREFUSED: Unable to connect", error: { kind: "network", message: "ECONNREFUSED", retryable: true, fallbackable: true, provider: "OLLAMA" } });
  listeners[0]!({ type: "error", message: "internal error: x" });
  listeners[0]!({ type: "notice", level: "info", text: "hi" });
  expect(seen[0]!.type === "error" && seen[0]!.message).toContain("Cannot reach Ollama at http://127.0.0.1:11500");
  expect(seen[0]!.type === "error" && seen[0]!.message).toContain("ollama serve");
  expect(seen[1]).toEqual({ type: "error", message: "internal error: x" });
  expect(seen[2]).toEqual({ type: "notice", level: "info", text: "hi" });
});

test("a local OpenAI-compatible server that refused: where it looked, how to start it, which variable to set (en and pt-BR)", async () => {
  await import("../../src/llm/providers/index.ts");
  const { setLang } = await import("../../src/i18n/i18n.ts");
  const refused = { kind: "network" as const, message: "connection refused (http://127.0.0.1:1234)", retryable: false, fallbackable: true };
  const ctx = { provider: "OPENAI", model: "qwen3-8b", baseUrl: "http://127.0.0.1:1234/v1" };
  try {
    const en = describeLlmError(refused, ctx);
    expect(en).toContain("Cannot reach OPENAI at http://127.0.0.1:1234/v1");
    expect(en).toContain("llama-server");
    expect(en).toContain("OPENAI_BASE_URL");
    setLang("pt-BR");
    expect(describeLlmError(refused, ctx)).toContain("Não foi possível conectar a OPENAI em http://127.0.0.1:1234/v1");
  } finally {
    setLang("en");
  }
  // A remote host that refused keeps the plain provider error, which names the host.
  const remote = describeLlmError({ ...refused, message: "connection refused (https://api.example.test)", retryable: true }, { ...ctx, baseUrl: "https://api.example.test/v1" });
  expect(remote).toContain("https://api.example.test");
  expect(remote).not.toContain("llama-server");
});
