// MCP tool results with images (issue 17): a real stdio MCP server's image tool, called by a scripted model, and the
// image reaching each provider the way its API accepts one in a tool result — checked by the fake servers in strict
// mode. A model without vision gets the `[image: mime, size]` text only; a large image is scaled down like a user's.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { wireSession } from "../../src/cli/wire-session.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import type { ModelInfo } from "../../src/protocol/llm.ts";
import { messageSchema } from "../../src/protocol/message.ts";
import { startFakeSse } from "../support/fake-sse-servers.ts";
import { startFakeOllama } from "../support/fake-ollama.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "mcp-test-server.ts");
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function project() {
  const root = mkdtempSync(join(tmpdir(), "chatcli-mcpimg-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(join(home, ".chatcli"), { recursive: true });
  writeFileSync(join(home, ".chatcli", "settings.json"), JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [FIXTURE] } } }));
  writeFileSync(join(home, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "mcp__t__*", action: "allow" }] }));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return { dir, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin", INITIAL_BACKOFF: "0.01", MAX_RETRIES: "0" } as Record<string, string> };
}

async function runPrompt(p: ReturnType<typeof project>, providerId: string, env: Record<string, string>, model: string, info: ModelInfo) {
  const all = { ...p.env, ...env };
  const provider = createProvider(providerId, all);
  const wired = wireSession({ cfg: loadConfig({ cwd: p.dir, env: all, flags: {} }), resolved: { providerId, provider, baseUrl: "", model, info }, permissionMode: "default", interactive: false });
  cleanups.push(() => wired.dispose());
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  wired.session.submit({ type: "user_input", text: "show me the picture" });
  await wired.session.idle();
  const errors = events.flatMap((e) => (e.type === "error" ? [e.message] : []));
  const completed = events.filter((e) => e.type === "tool.completed");
  return { errors, completed, history: wired.session.messages };
}

async function dims(base64: string) {
  return new Bun.Image(Buffer.from(base64, "base64")).metadata();
}

const sse = (o: unknown) => `data: ${JSON.stringify(o)}`;
const openAiCalls = (calls: Array<{ id: string; name: string; args: string }>) => [
  ...calls.map((c, index) => sse({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: c.args } }] }, finish_reason: null }] })),
  sse({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
  "data: [DONE]",
];
const anthropicCall = (id: string, name: string, input: unknown) => [
  `event: message_start\n${sse({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } })}`,
  `event: content_block_start\n${sse({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id, name, input: {} } })}`,
  `event: content_block_delta\n${sse({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } })}`,
  `event: content_block_stop\n${sse({ type: "content_block_stop", index: 0 })}`,
  `event: message_delta\n${sse({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } })}`,
  `event: message_stop\n${sse({ type: "message_stop" })}`,
];
const geminiCall = (name: string, args: unknown) => [sse({ candidates: [{ content: { parts: [{ functionCall: { name, args } }], role: "model" }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 } })];

test("OpenAI (strict): the tool message keeps the text; the images follow all tool messages of the turn as one user message", async () => {
  const p = project();
  const fake = startFakeSse({
    strict: true,
    replies: [{ events: openAiCalls([{ id: "call_img", name: "mcp__t__image", args: '{"width":3000,"height":1500}' }, { id: "call_echo", name: "mcp__t__echo", args: '{"text":"hi"}' }]) }, { fixture: "openai-text.sse" }],
  });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` }, "gpt-4o", { id: "gpt-4o", contextWindow: 128000, supportsTools: true, supportsImages: true });
  expect(r.errors).toEqual([]);
  const msgs = fake.streamBodies()[1]!.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
  const roles = msgs.map((m) => m.role);
  expect(roles.slice(-4)).toEqual(["assistant", "tool", "tool", "user"]);
  const toolMsg = msgs.find((m) => m.tool_call_id === "call_img")!;
  expect(toolMsg.content).toMatch(/here is the image\n\[image: image\/png, [\d.]+ (B|KB)\]/);
  const parts = msgs.at(-1)!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
  const image = parts.find((x) => x.type === "image_url")!.image_url!.url;
  expect(image.startsWith("data:image/png;base64,")).toBe(true);
  // Capped like a user's image: the long side at 2000 pixels, aspect kept.
  expect(await dims(image.split(",")[1]!)).toEqual({ width: 2000, height: 1000, format: "png" });
  // The history (the session file) keeps the image on the tool message.
  const stored = r.history.find((m) => m.role === "tool" && m.toolCallId === "call_img");
  expect(stored?.role === "tool" && stored.images?.length).toBe(1);
  // …and it survives the session file's schema (the images persist like a user's).
  const reparsed = messageSchema.parse(JSON.parse(JSON.stringify(stored)));
  expect(reparsed.role === "tool" && reparsed.images?.[0]?.mediaType).toBe("image/png");
}, 30_000);

test("OpenAI-compatible model without vision: the text description only, no image part anywhere", async () => {
  const p = project();
  const fake = startFakeSse({ strict: true, replies: [{ events: openAiCalls([{ id: "call_img", name: "mcp__t__image", args: "{}" }]) }, { fixture: "openai-text.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` }, "gpt-3.5-turbo", { id: "gpt-3.5-turbo", contextWindow: 16000, supportsTools: true, supportsImages: false });
  expect(r.errors).toEqual([]);
  const msgs = fake.streamBodies()[1]!.messages as Array<{ role: string; content: unknown }>;
  expect(msgs.at(-1)!.role).toBe("tool");
  expect(msgs.at(-1)!.content).toMatch(/\[image: image\/png, \d+ B\]/);
  expect(JSON.stringify(msgs)).not.toContain("image_url");
}, 30_000);

test("Anthropic (strict): image blocks inside the tool_result content, after its text", async () => {
  const p = project();
  const fake = startFakeSse({ strict: true, replies: [{ events: anthropicCall("toolu_img", "mcp__t__image", { width: 40, height: 20 }) }, { fixture: "anthropic-text-thinking.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "CLAUDEAI", { CLAUDEAI_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fake.url }, "claude-sonnet-4-5", { id: "claude-sonnet-4-5", contextWindow: 200000, supportsTools: true, supportsImages: true });
  expect(r.errors).toEqual([]);
  const msgs = fake.streamBodies()[1]!.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  const result = msgs.at(-1)!.content.find((b) => b.type === "tool_result") as { tool_use_id: string; content: Array<{ type: string; text?: string; source?: { type: string; media_type: string; data: string } }> };
  expect(result.tool_use_id).toBe("toolu_img");
  expect(result.content[0]!.type).toBe("text");
  expect(result.content[0]!.text).toContain("here is the image");
  const img = result.content.find((b) => b.type === "image")!;
  expect(img.source!.media_type).toBe("image/png");
  expect(await dims(img.source!.data)).toEqual({ width: 40, height: 20, format: "png" });
}, 30_000);

test("Gemini (strict): an inlineData part next to the functionResponse", async () => {
  const p = project();
  const fake = startFakeSse({ strict: true, replies: [{ events: geminiCall("mcp__t__image", { width: 10, height: 30 }) }, { fixture: "gemini-text.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "GOOGLEAI", { GOOGLE_API_KEY: "g", GOOGLE_GEMINI_BASE_URL: fake.url }, "gemini-2.5-flash", { id: "gemini-2.5-flash", contextWindow: 1000000, supportsTools: true, supportsImages: true });
  expect(r.errors).toEqual([]);
  const contents = fake.streamBodies()[1]!.contents as Array<{ role: string; parts: Array<{ functionResponse?: { name: string }; inlineData?: { mimeType: string; data: string } }> }>;
  const parts = contents.at(-1)!.parts;
  const fr = parts.findIndex((x) => x.functionResponse?.name === "mcp__t__image");
  expect(fr).toBeGreaterThanOrEqual(0);
  const inline = parts[fr + 1]!.inlineData!;
  expect(inline.mimeType).toBe("image/png");
  expect(await dims(inline.data)).toEqual({ width: 10, height: 30, format: "png" });
}, 30_000);

test("Ollama: `images` on the tool message for a vision model; none for a text-only one", async () => {
  for (const [name, capabilities, sees] of [
    ["llava:7b", ["completion", "tools", "vision"], true],
    ["qwen3:8b", ["completion", "tools"], false],
  ] as const) {
    const p = project();
    const fake = startFakeOllama({ models: [{ name, contextLength: 8192, capabilities: [...capabilities] }] });
    cleanups.push(() => fake.stop());
    fake.enqueue({ toolCalls: [{ name: "mcp__t__image", arguments: { width: 8, height: 8 } }], chunks: [] }, { text: "A gradient." });
    const env = { OLLAMA_HOST: fake.url };
    const info = await createProvider("OLLAMA", { ...p.env, ...env }).modelInfo(name);
    const r = await runPrompt(p, "OLLAMA", env, name, info!);
    expect(r.errors).toEqual([]);
    const tool = (fake.chatRequests()[1]!.messages as Array<{ role: string; content: string; images?: string[] }>).findLast((m) => m.role === "tool")!;
    expect(tool.content).toMatch(/here is the image\n\[image: image\/png, \d+ B\]/);
    if (sees) expect(await dims(tool.images![0]!)).toEqual({ width: 8, height: 8, format: "png" });
    else expect(tool.images).toBeUndefined();
  }
}, 60_000);

test("text protocol (no native tools): a vision model gets the images on the tool feedback message", async () => {
  const p = project();
  const fake = startFakeOllama({ models: [{ name: "seer:3b", contextLength: 8192, capabilities: ["completion", "vision"] }] });
  cleanups.push(() => fake.stop());
  fake.enqueue(
    { text: `<tool_call name="mcp_search" args='{"query":"image"}' />` },
    { text: `<tool_call name="mcp__t__image" args='{"width":6,"height":4}' />` },
    { text: "Seen." },
  );
  const env = { OLLAMA_HOST: fake.url };
  const info = await createProvider("OLLAMA", { ...p.env, ...env }).modelInfo("seer:3b");
  const r = await runPrompt(p, "OLLAMA", env, "seer:3b", info!);
  expect(r.errors).toEqual([]);
  const feedback = (fake.chatRequests()[2]!.messages as Array<{ role: string; content: string; images?: string[] }>).findLast((m) => m.role === "user")!;
  expect(feedback.content).toContain("here is the image");
  expect(feedback.images).toHaveLength(1);
  expect(await dims(feedback.images![0]!)).toEqual({ width: 6, height: 4, format: "png" });
}, 30_000);
