// Images on the wire (issue 25): `@shot.png` and a pasted path reach each provider in its own image format, checked
// by the fake servers the way the real ones check them (strict mode); a model without vision gets none and the
// user is told; large images are scaled down (aspect kept) before sending.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../../src/llm/providers/index.ts";
import { wireSession } from "../../../src/cli/wire-session.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { createProvider } from "../../../src/llm/registry.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import type { ModelInfo } from "../../../src/protocol/llm.ts";
import { t } from "../../../src/i18n/i18n.ts";
import { startFakeSse } from "../../support/fake-sse-servers.ts";
import { startFakeOllama } from "../../support/fake-ollama.ts";
import { makePng } from "../../support/png.ts";

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function project() {
  const root = mkdtempSync(join(tmpdir(), "chatcli-images-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, "shot.png"), makePng(40, 20));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return { root, dir, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin", INITIAL_BACKOFF: "0.01", MAX_RETRIES: "0" } as Record<string, string> };
}

async function runPrompt(p: ReturnType<typeof project>, providerId: string, env: Record<string, string>, model: string, info: ModelInfo, prompt: string) {
  const all = { ...p.env, ...env };
  const provider = createProvider(providerId, all);
  const wired = wireSession({
    cfg: loadConfig({ cwd: p.dir, env: all, flags: {} }),
    resolved: { providerId, provider, baseUrl: "", model, info },
    permissionMode: "default",
    interactive: false,
  });
  cleanups.push(() => wired.dispose());
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  wired.session.submit({ type: "user_input", text: prompt });
  await wired.session.idle();
  const notices = events.flatMap((e) => (e.type === "notice" ? [`${e.level}:${e.text}`] : []));
  const errors = events.flatMap((e) => (e.type === "error" ? [e.message] : []));
  return { notices, errors };
}

async function dims(base64: string): Promise<{ width: number; height: number; format: string }> {
  return new Bun.Image(Buffer.from(base64, "base64")).metadata();
}

test("Ollama: a model with the vision capability gets the image as raw base64 in `images`", async () => {
  const p = project();
  const fake = startFakeOllama({ models: [{ name: "llava:7b", contextLength: 8192, capabilities: ["completion", "vision"] }] });
  cleanups.push(() => fake.stop());
  const env = { OLLAMA_HOST: fake.url };
  const info = await createProvider("OLLAMA", { ...p.env, ...env }).modelInfo("llava:7b");
  expect(info?.supportsImages).toBe(true);
  const r = await runPrompt(p, "OLLAMA", env, "llava:7b", info!, "what is in @shot.png?");
  expect(r.errors).toEqual([]);
  const user = (fake.chatRequests()[0]!.messages as Array<{ role: string; content: string; images?: string[] }>).findLast((m) => m.role === "user")!;
  expect(user.images).toHaveLength(1);
  expect(await dims(user.images![0]!)).toEqual({ width: 40, height: 20, format: "png" });
  expect(user.content).toContain("[image: shot.png]");
  expect(r.notices.some((n) => n.startsWith("info:") && n.includes("shot.png") && n.includes("40×20"))).toBe(true);
}, 20_000);

test("Ollama: a text-only model gets no image and the user a clear message", async () => {
  const p = project();
  const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }] });
  cleanups.push(() => fake.stop());
  const env = { OLLAMA_HOST: fake.url };
  const info = await createProvider("OLLAMA", { ...p.env, ...env }).modelInfo("qwen3:8b");
  expect(info?.supportsImages).toBe(false);
  const r = await runPrompt(p, "OLLAMA", env, "qwen3:8b", info!, "what is in @shot.png?");
  expect(r.errors).toEqual([]);
  expect(r.notices).toContain(`warn:${t("image.noVision", { model: "qwen3:8b", count: 1 })}`);
  expect(r.notices.filter((n) => n.startsWith("info:") && n.includes("shot.png"))).toEqual([]);
  const user = (fake.chatRequests()[0]!.messages as Array<{ role: string; content: string; images?: string[] }>).findLast((m) => m.role === "user")!;
  expect(user.images).toBeUndefined();
  expect(user.content).toContain("cannot see images");
}, 20_000);

test("OpenAI (strict): a content array with a data: URL image part; a very large image is scaled down, aspect kept", async () => {
  const p = project();
  writeFileSync(join(p.dir, "wide.png"), makePng(3000, 1500));
  const fake = startFakeSse({ strict: true, replies: [{ fixture: "openai-text.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` }, "gpt-4o", { id: "gpt-4o", contextWindow: 128000, supportsTools: true }, "compare @shot.png and @wide.png");
  expect(r.errors).toEqual([]);
  const msgs = fake.streamBodies()[0]!.messages as Array<{ role: string; content: unknown }>;
  const parts = msgs.findLast((m) => m.role === "user")!.content as Array<{ type: string; image_url?: { url: string } }>;
  const images = parts.filter((x) => x.type === "image_url");
  expect(images).toHaveLength(2);
  expect(images[1]!.image_url!.url.startsWith("data:image/png;base64,")).toBe(true);
  expect(await dims(images[1]!.image_url!.url.split(",")[1]!)).toEqual({ width: 2000, height: 1000, format: "png" });
  expect(r.notices.some((n) => n.includes("3000×1500") && n.includes("2000×1000"))).toBe(true);
}, 20_000);

test("Anthropic (strict): an image block with a base64 source", async () => {
  const p = project();
  const fake = startFakeSse({ strict: true, replies: [{ fixture: "anthropic-text-thinking.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "CLAUDEAI", { CLAUDEAI_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fake.url }, "claude-sonnet-4-5", { id: "claude-sonnet-4-5", contextWindow: 200000, supportsTools: true, supportsImages: true }, "see @shot.png");
  expect(r.errors).toEqual([]);
  const msgs = fake.streamBodies()[0]!.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  const block = msgs.findLast((m) => m.role === "user")!.content.find((b) => b.type === "image") as { source: { type: string; media_type: string; data: string } };
  expect(block.source.type).toBe("base64");
  expect(block.source.media_type).toBe("image/png");
  expect(await dims(block.source.data)).toEqual({ width: 40, height: 20, format: "png" });
}, 20_000);

test("Gemini (strict): inlineData with the mime type; a pasted quoted path outside the project is attached", async () => {
  const p = project();
  const outside = join(p.root, "My Shots");
  mkdirSync(outside);
  writeFileSync(join(outside, "Screen 1.png"), makePng(10, 30));
  const fake = startFakeSse({ strict: true, replies: [{ fixture: "gemini-text.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "GOOGLEAI", { GOOGLE_API_KEY: "g", GOOGLE_GEMINI_BASE_URL: fake.url }, "gemini-2.5-flash", { id: "gemini-2.5-flash", contextWindow: 1000000, supportsTools: true, supportsImages: true }, `what does this show '${join(outside, "Screen 1.png")}'`);
  expect(r.errors).toEqual([]);
  const contents = fake.streamBodies()[0]!.contents as Array<{ role: string; parts: Array<{ text?: string; inlineData?: { mimeType: string; data: string } }> }>;
  const inline = contents.at(-1)!.parts.find((x) => x.inlineData)!.inlineData!;
  expect(inline.mimeType).toBe("image/png");
  expect(await dims(inline.data)).toEqual({ width: 10, height: 30, format: "png" });
}, 20_000);

test("limits: a file over the size cap and a file that is not an image are not attached, with a notice", async () => {
  const p = project();
  writeFileSync(join(p.dir, "huge.png"), "");
  truncateSync(join(p.dir, "huge.png"), 21 * 1024 * 1024);
  writeFileSync(join(p.dir, "fake.png"), "this is text");
  const fake = startFakeSse({ strict: true, replies: [{ fixture: "openai-text.sse" }] });
  cleanups.push(() => fake.stop());
  const r = await runPrompt(p, "OPENAI", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` }, "gpt-4o", { id: "gpt-4o", contextWindow: 128000, supportsTools: true }, "look @huge.png @fake.png");
  expect(r.errors).toEqual([]);
  expect(r.notices.some((n) => n.startsWith("warn:") && n.includes("huge.png") && n.includes("20 MB"))).toBe(true);
  expect(r.notices.some((n) => n.startsWith("warn:") && n.includes("fake.png"))).toBe(true);
  const msgs = fake.streamBodies()[0]!.messages as Array<{ role: string; content: unknown }>;
  expect(typeof msgs.findLast((m) => m.role === "user")!.content).toBe("string");
}, 20_000);

test("after a switch to a model without vision, images already in the history are not sent again", async () => {
  const p = project();
  const fake = startFakeOllama({
    models: [
      { name: "llava:7b", contextLength: 8192, capabilities: ["completion", "vision"] },
      { name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] },
    ],
  });
  cleanups.push(() => fake.stop());
  const env = { ...p.env, OLLAMA_HOST: fake.url };
  const provider = createProvider("OLLAMA", env);
  const info = await provider.modelInfo("llava:7b");
  const wired = wireSession({ cfg: loadConfig({ cwd: p.dir, env, flags: {} }), resolved: { providerId: "OLLAMA", provider, baseUrl: fake.url, model: "llava:7b", info }, permissionMode: "default", interactive: false });
  cleanups.push(() => wired.dispose());
  const errors: string[] = [];
  wired.session.subscribe((e) => {
    if (e.type === "error") errors.push(e.message);
  });
  wired.session.submit({ type: "user_input", text: "look at @shot.png" });
  await wired.session.idle();
  wired.session.submit({ type: "set_model", provider: "OLLAMA", model: "qwen3:8b" });
  await wired.session.idle();
  wired.session.submit({ type: "user_input", text: "and now?" });
  await wired.session.idle();
  expect(errors).toEqual([]);
  const chats = fake.chatRequests() as Array<{ model: string; messages: Array<{ role: string; content: string; images?: string[] }> }>;
  expect(chats[0]!.messages.some((m) => m.images?.length)).toBe(true);
  const last = chats.at(-1)!;
  expect(last.model).toBe("qwen3:8b");
  expect(last.messages.some((m) => m.images)).toBe(false);
  expect(last.messages.some((m) => m.content.includes("not shown: this model cannot see images"))).toBe(true);
}, 20_000);
