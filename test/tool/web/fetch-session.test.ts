// The fetch tool inside a real session (fake Ollama on the wire): offered to the model, asked about with its URL as
// the action, denied headless without an answer; not offered at all under --offline.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../../src/llm/providers/index.ts";
import { wireSession } from "../../../src/cli/wire-session.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { createProvider } from "../../../src/llm/registry.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import { startFakeOllama } from "../../support/fake-ollama.ts";

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

async function session(offline: boolean) {
  const root = mkdtempSync(join(tmpdir(), "chatcli-fetch-session-"));
  const dir = join(root, "p");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }],
    replies: [{ toolCalls: [{ name: "fetch", arguments: { url: "https://docs.example/guide" } }] }, { text: "ok" }],
  });
  const env = { HOME: join(root, "h"), CHATCLI_HOME: join(root, "h", ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "", OLLAMA_HOST: fake.url, MAX_RETRIES: "0" };
  const provider = createProvider("OLLAMA", env);
  const wired = wireSession({
    cfg: loadConfig({ cwd: dir, env, flags: offline ? { offline: true } : {} }),
    resolved: { providerId: "OLLAMA", provider, baseUrl: fake.url, model: "qwen3:8b", info: await provider.modelInfo("qwen3:8b") },
    permissionMode: "default",
    interactive: false,
  });
  cleanups.push(() => {
    wired.dispose();
    fake.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const events: AgentEvent[] = [];
  wired.session.subscribe((e) => events.push(e));
  wired.session.submit({ type: "user_input", text: "read the guide" });
  await wired.session.idle();
  const tools = (fake.chatRequests()[0]!.tools as Array<{ function: { name: string } }> | undefined)?.map((t) => t.function.name) ?? [];
  return { events, tools, fake };
}

test("offered to the model; the approval names the URL; headless without an answer it is denied", async () => {
  const s = await session(false);
  expect(s.tools).toContain("fetch");
  const asked = s.events.find((e) => e.type === "approval.requested");
  expect(asked && asked.type === "approval.requested" ? asked.action : "").toBe("https://docs.example/guide");
  const tool = (s.fake.chatRequests()[1]!.messages as Array<{ role: string; content: string }>).findLast((m) => m.role === "tool");
  expect(tool?.content).not.toContain("URL: https://docs.example/guide");
}, 20_000);

test("--offline: the model is not offered fetch, and a call to it is an unknown tool", async () => {
  const s = await session(true);
  expect(s.tools).not.toContain("fetch");
  const tool = (s.fake.chatRequests()[1]!.messages as Array<{ role: string; content: string }>).findLast((m) => m.role === "tool");
  expect(tool?.content).toContain('Unknown tool "fetch"');
}, 20_000);
