import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { uniqueCallIds } from "../../src/agent/call-ids.ts";
import { wireSession } from "../../src/cli/wire-session.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createFallbackChain } from "../../src/llm/fallback.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { Message } from "../../src/protocol/message.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

test("uniqueCallIds keeps fresh ids and re-mints duplicates, empty and wire-unsafe ones", () => {
  const history: Message[] = [
    { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "read", arguments: "{}" }] },
    { role: "tool", toolCallId: "call_0", name: "read", content: "x" },
  ];
  let n = 0;
  const calls = [
    { id: "call_0", name: "read", arguments: "{}" },
    { id: "call_1", name: "read", arguments: "{}" },
    { id: "call_1", name: "read", arguments: "{}" },
    { id: "", name: "read", arguments: "{}" },
    { id: "functions.read:0", name: "read", arguments: "{}" },
  ];
  const out = uniqueCallIds(calls, history, () => `call_${n++}`);
  expect(out.map((c) => c.id)).toEqual(["call_2", "call_1", "call_3", "call_4", "call_5"]);
  expect(out[1]).toBe(calls[1]!);
});

/**
 * Issue 26 #9: Ollama numbers calls `call_0` every turn. Two tool turns on Ollama, then the fallback chain
 * moves to Claude: the strict Anthropic fake refuses duplicate tool_use ids, so the run only ends with
 * Claude's answer when every id in the history is unique and every result pairs with its call.
 */
test("a history from Ollama (call_0 every turn) is accepted by Anthropic's wire after a fallback", async () => {
  const root = mkdtempSync(join(tmpdir(), "chatcli-ids-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(project, "a.txt"), "alpha\n");
  writeFileSync(join(project, "b.txt"), "beta\n");
  const ollama: FakeOllama = startFakeOllama({
    replies: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { toolCalls: [{ name: "read", arguments: { path: "b.txt" } }] }],
    defaultReply: { status: 503, errorBody: '{"error":"server overloaded"}' },
  });
  const claude: FakeSseServer = startFakeSse({ strict: true, defaultReply: { fixture: "anthropic-text-thinking.sse" } });
  const env: Record<string, string> = {
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    TMPDIR: root,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    OLLAMA_HOST: ollama.url,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: claude.url,
    INITIAL_BACKOFF: "0.01",
    MAX_RETRIES: "0",
    CHATCLI_FALLBACK_MAX_RETRIES: "0",
  };
  const chain = createFallbackChain({
    entries: [{ provider: "OLLAMA", model: "qwen3:8b" }, { provider: "CLAUDEAI", model: "claude-sonnet-4-6" }],
    env,
    createProvider: (id) => createProvider(id, env),
  });
  const wired = wireSession({
    cfg: loadConfig({ cwd: project, env, flags: {} }),
    resolved: { providerId: "OLLAMA", provider: chain, baseUrl: ollama.url, model: "qwen3:8b", info: { id: "qwen3:8b", contextWindow: 32768, supportsTools: true } },
    permissionMode: "default",
    interactive: false,
  });
  cleanups.push(() => {
    wired.dispose();
    ollama.stop();
    claude.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const errors: string[] = [];
  wired.session.subscribe((e) => {
    if (e.type === "error") errors.push(e.message);
  });
  wired.session.submit({ type: "user_input", text: "read a.txt and b.txt" });
  await wired.session.idle();

  expect(errors).toEqual([]);
  const sent = claude.streamBodies();
  expect(sent).toHaveLength(1);
  const blocks = (sent[0]!.messages as Array<{ content: Array<Record<string, unknown>> }>).flatMap((m) => m.content);
  const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
  const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
  expect(uses).toHaveLength(2);
  expect(new Set(uses).size).toBe(2);
  expect(results).toEqual(uses);
  // Each result still carries the content of its own call.
  const resultText = blocks.filter((b) => b.type === "tool_result").map((b) => String(b.content));
  expect(resultText[0]).toContain("alpha");
  expect(resultText[1]).toContain("beta");
});

/** The same on the chat-completions wire: the strict OpenAI fake refuses duplicate tool_call ids. */
test("a history from Ollama (call_0 every turn) is accepted by the OpenAI wire after a fallback", async () => {
  const root = mkdtempSync(join(tmpdir(), "chatcli-ids-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(project, "a.txt"), "alpha\n");
  writeFileSync(join(project, "b.txt"), "beta\n");
  const ollama: FakeOllama = startFakeOllama({
    replies: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { toolCalls: [{ name: "read", arguments: { path: "b.txt" } }] }],
    defaultReply: { status: 503, errorBody: '{"error":"server overloaded"}' },
  });
  const claude: FakeSseServer = startFakeSse({ strict: true, defaultReply: { fixture: "openai-text.sse" } });
  const env: Record<string, string> = {
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    TMPDIR: root,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    OLLAMA_HOST: ollama.url,
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: `${claude.url}/v1`,
    INITIAL_BACKOFF: "0.01",
    MAX_RETRIES: "0",
    CHATCLI_FALLBACK_MAX_RETRIES: "0",
  };
  const chain = createFallbackChain({
    entries: [{ provider: "OLLAMA", model: "qwen3:8b" }, { provider: "OPENAI", model: "gpt-4o" }],
    env,
    createProvider: (id) => createProvider(id, env),
  });
  const wired = wireSession({
    cfg: loadConfig({ cwd: project, env, flags: {} }),
    resolved: { providerId: "OLLAMA", provider: chain, baseUrl: ollama.url, model: "qwen3:8b", info: { id: "qwen3:8b", contextWindow: 32768, supportsTools: true } },
    permissionMode: "default",
    interactive: false,
  });
  cleanups.push(() => {
    wired.dispose();
    ollama.stop();
    claude.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const errors: string[] = [];
  wired.session.subscribe((e) => {
    if (e.type === "error") errors.push(e.message);
  });
  wired.session.submit({ type: "user_input", text: "read a.txt and b.txt" });
  await wired.session.idle();

  expect(errors).toEqual([]);
  const sent = claude.streamBodies();
  expect(sent).toHaveLength(1);
  const msgs = sent[0]!.messages as Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
  const ids = msgs.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
  const results = msgs.filter((m) => m.role === "tool");
  expect(ids).toHaveLength(2);
  expect(new Set(ids).size).toBe(2);
  expect(results.map((m) => m.tool_call_id)).toEqual(ids);
  expect(results[0]!.content).toContain("alpha");
  expect(results[1]!.content).toContain("beta");
});
