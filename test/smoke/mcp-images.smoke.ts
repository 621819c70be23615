// MCP tool images through the compiled binary (issue 17): a scripted vision model (fake Ollama) calls a stdio MCP
// server's image tool; the next request carries the image on the tool message, and the session file keeps it. A
// text-only model gets the `[image: mime, size]` description alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

const FIXTURE = join(import.meta.dir, "..", "mcp", "fixtures", "mcp-test-server.ts");
let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({
    models: [
      { name: "llava:7b", contextLength: 32768, capabilities: ["completion", "tools", "vision"] },
      { name: "coder:7b", contextLength: 32768, capabilities: ["completion", "tools"] },
    ],
  });
  mkdirSync(join(b.home, ".chatcli"), { recursive: true });
  writeFileSync(join(b.home, ".chatcli", "coder_policy.json"), JSON.stringify({ rules: [{ pattern: "mcp__t__*", action: "allow" }] }));
  writeFileSync(join(b.home, ".chatcli", "settings.json"), JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [FIXTURE] } } }));
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

type OllamaMsg = { role: string; content: string; images?: string[] };
const lastTool = (req: Record<string, unknown> | undefined) => ((req?.messages as OllamaMsg[] | undefined) ?? []).findLast((m) => m.role === "tool");

test("a vision model receives the MCP tool's image after the call; the session file keeps it", async () => {
  fake.enqueue({ toolCalls: [{ name: "mcp__t__image", arguments: { width: 30, height: 12 } }], chunks: [] }, { text: "A gradient." });
  const before = fake.chatRequests().length;
  const r = await run(b, ["-p", "what does the picture show?", "--model", "llava:7b"], { OLLAMA_HOST: fake.url });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("A gradient.");
  const tool = lastTool(fake.chatRequests().slice(before)[1]);
  expect(tool?.content).toMatch(/here is the image\n\[image: image\/png, \d+ B\]/);
  expect(tool?.images).toHaveLength(1);
  expect(await new Bun.Image(Buffer.from(tool!.images![0]!, "base64")).metadata()).toEqual({ width: 30, height: 12, format: "png" });
  const sessions = join(b.env.CHATCLI_HOME!, "sessions");
  const saved = readdirSync(sessions).filter((f) => f.endsWith(".jsonl")).map((f) => readFileSync(join(sessions, f), "utf8")).join("\n");
  expect(saved).toContain(tool!.images![0]!);
}, 60_000);

test("a text-only model gets the [image: mime, size] text and no image", async () => {
  fake.enqueue({ toolCalls: [{ name: "mcp__t__image", arguments: {} }], chunks: [] }, { text: "Described." });
  const before = fake.chatRequests().length;
  const r = await run(b, ["-p", "what does the picture show?", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
  expect(r.code).toBe(0);
  const tool = lastTool(fake.chatRequests().slice(before)[1]);
  expect(tool?.content).toMatch(/\[image: image\/png, \d+ B\]/);
  expect(tool?.images).toBeUndefined();
  // Nor does its session file hold one: only the vision session's file has images.
  const sessions = join(b.env.CHATCLI_HOME!, "sessions");
  const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
  expect(files.length).toBe(2);
  expect(files.filter((f) => readFileSync(join(sessions, f), "utf8").includes('"images":[')).length).toBe(1);
}, 60_000);
