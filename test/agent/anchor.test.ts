import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { foldAnchor } from "../../src/llm/anchor.ts";
import { wireSession } from "../../src/cli/wire-session.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createProvider } from "../../src/llm/registry.ts";
import type { Message } from "../../src/protocol/message.ts";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

test("foldAnchor appends to the last user message or tool result, on a copy; otherwise adds a user message", () => {
  const history: Message[] = [
    { role: "user", content: "q" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", name: "read", content: "result" },
  ];
  const out = foldAnchor(history, "R");
  expect(out.at(-1)).toEqual({ role: "tool", toolCallId: "c1", name: "read", content: "result\n\nR" });
  expect(history[2]!.content).toBe("result");
  expect(foldAnchor([{ role: "user", content: "hi" }], "R")).toEqual([{ role: "user", content: "hi\n\nR" }]);
  expect(foldAnchor([{ role: "assistant", content: "a" }], "R").at(-1)).toEqual({ role: "user", content: "R" });
  // A continuation request ends with the assistant's partial: it stays last, the anchor goes before it.
  const cont = foldAnchor([...history, { role: "assistant", content: "partial" }], "R");
  expect(cont.at(-1)).toEqual({ role: "assistant", content: "partial" });
  expect(cont.at(-2)!.content).toBe("result\n\nR");
  expect(foldAnchor(history, "")).toEqual(history);
  expect(foldAnchor(history, undefined)).toEqual(history);
});

function project(): { root: string; project: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), "chatcli-anchor-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, "src", "main.ts"), "console.log('main');\n");
  return { root, project: dir, env: { HOME: home, CHATCLI_HOME: join(home, ".chatcli"), TMPDIR: root, PATH: process.env.PATH ?? "/usr/bin:/bin", INITIAL_BACKOFF: "0.01", MAX_RETRIES: "0" } };
}

/**
 * Issue 26 #9: the anchor was a `system` message at the end of every request; a server with a strict chat
 * template (the fake in strict mode) refuses a system message that is not first. A tool turn and the answer
 * after it must both be accepted, the anchor must reach the model each time, and it is never persisted.
 */
test("an OpenAI-compatible server with a strict chat template accepts every request of a tool run", async () => {
  const p = project();
  const fake: FakeSseServer = startFakeSse({ strict: true, replies: [{ fixture: "openai-tools.sse" }, { fixture: "openai-text.sse" }] });
  const env = { ...p.env, OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` };
  const wired = wireSession({
    cfg: loadConfig({ cwd: p.project, env, flags: {} }),
    resolved: { providerId: "OPENAI", provider: createProvider("OPENAI", env), baseUrl: `${fake.url}/v1`, model: "gpt-4o", info: { id: "gpt-4o", contextWindow: 128000, supportsTools: true } },
    permissionMode: "default",
    interactive: false,
  });
  cleanups.push(() => {
    wired.dispose();
    fake.stop();
    rmSync(p.root, { recursive: true, force: true });
  });
  const errors: string[] = [];
  wired.session.subscribe((e) => {
    if (e.type === "error") errors.push(e.message);
  });
  wired.session.submit({ type: "user_input", text: "look at src/main.ts" });
  await wired.session.idle();

  expect(errors).toEqual([]);
  const bodies = fake.streamBodies();
  expect(bodies).toHaveLength(2);
  for (const b of bodies) {
    const msgs = b.messages as Array<{ role: string; content: string | null }>;
    expect(msgs.filter((m) => m.role === "system").length).toBe(1);
    expect(msgs[0]!.role).toBe("system");
    const anchored = msgs.filter((m) => m.content?.includes("Reminder: the user's current request is"));
    expect(anchored).toEqual([msgs.at(-1)!]);
  }
  expect((bodies[1]!.messages as Array<{ role: string }>).at(-1)!.role).toBe("tool");
  expect(wired.session.messages.some((m) => m.content.includes("Reminder:"))).toBe(false);
});

test("Ollama and OpenAI wires send a mid-conversation system note as user text", async () => {
  const p = project();
  const ollama: FakeOllama = startFakeOllama({ defaultReply: { text: "ok" } });
  const fake = startFakeSse({ strict: true, defaultReply: { fixture: "openai-text.sse" } });
  cleanups.push(() => {
    ollama.stop();
    fake.stop();
    rmSync(p.root, { recursive: true, force: true });
  });
  const messages: Message[] = [
    { role: "user", content: "q" },
    { role: "assistant", content: "a" },
    { role: "system", content: "[summary of earlier turns]" },
    { role: "user", content: "next" },
  ];
  const request = { model: "m", system: [{ text: "sys" }], messages, purpose: "main" as const };
  for await (const ev of createProvider("OPENAI", { ...p.env, OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${fake.url}/v1` }).stream({ ...request, model: "gpt-4o" })) {
    expect(ev.type === "error" ? ev.error.message : "").toBe("");
  }
  for await (const ev of createProvider("OLLAMA", { ...p.env, OLLAMA_HOST: ollama.url }).stream({ ...request, model: "qwen3:8b" })) {
    expect(ev.type === "error" ? ev.error.message : "").toBe("");
  }
  const sentOllama = ollama.chatRequests()[0]!.messages as Array<{ role: string }>;
  const sentOpenAi = fake.streamBodies()[0]!.messages as Array<{ role: string }>;
  for (const sent of [sentOllama, sentOpenAi]) expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "user"]);
});
