// OLLAMA_HOST as the Ollama CLI accepts it (no scheme, no port, `:port`): one normalised URL for requests and messages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { normalizeOllamaHost } from "../../src/llm/providers/ollama.ts";
import { createProvider, getProviderDefinition, resolveBaseUrl } from "../../src/llm/registry.ts";
import { discoverProviders } from "../../src/llm/discovery.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { CliFailure, resolveModel } from "../../src/cli/resolve-model.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

let dir: string;
let fake: FakeOllama;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-ollama-host-"));
  mkdirSync(join(dir, ".git"));
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192 }], defaultReply: { text: "pong" } });
});
afterAll(() => {
  fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cfg = (env: Record<string, string>) => loadConfig({ cwd: dir, env: { HOME: dir, CHATCLI_HOME: join(dir, "home"), ...env }, flags: {} });

describe("normalizeOllamaHost", () => {
  test.each([
    ["127.0.0.1", "http://127.0.0.1:11434"],
    [":11500", "http://127.0.0.1:11500"],
    ["box:8080", "http://box:8080"],
    ["box:80", "http://box:80"],
    ["http://box", "http://box:80"],
    ["https://box", "https://box:443"],
    ["http://127.0.0.1:11434/", "http://127.0.0.1:11434"],
    ["[::1]", "http://[::1]:11434"],
    ["  ", "http://127.0.0.1:11434"],
  ])("%p → %p", (raw, want) => {
    expect(normalizeOllamaHost(raw)).toBe(want);
  });

  test("resolveBaseUrl gives the normalised URL (and the default when unset)", () => {
    const def = getProviderDefinition("OLLAMA")!;
    expect(resolveBaseUrl(def, { OLLAMA_HOST: "127.0.0.1" })).toBe("http://127.0.0.1:11434");
    expect(resolveBaseUrl(def, {})).toBe("http://127.0.0.1:11434");
  });
});

describe("requests go to the normalised URL", () => {
  test.each([
    ["127.0.0.1:PORT", (p: number) => `127.0.0.1:${p}`],
    [":PORT", (p: number) => `:${p}`],
  ] as const)("OLLAMA_HOST=%s reaches the server (model listing and chat)", async (_label, host) => {
    const before = fake.requests.length;
    const r = await resolveModel(cfg({ OLLAMA_HOST: host(fake.port) }));
    expect(r.model).toBe("qwen3:8b");
    expect(r.baseUrl).toBe(`http://127.0.0.1:${fake.port}`);
    let text = "";
    for await (const ev of createProvider("OLLAMA", { OLLAMA_HOST: host(fake.port) }).stream({ model: "qwen3:8b", system: [], messages: [{ role: "user", content: "ping" }], purpose: "main" })) {
      if (ev.type === "text_delta") text += ev.text;
    }
    expect(text).toBe("pong");
    expect(fake.requests.slice(before).map((q) => q.path)).toContain("/api/chat");
  });

  test("discovery probes the normalised URL and names it", async () => {
    const rows = await discoverProviders({ OLLAMA_HOST: `:${fake.port}` });
    const row = rows.find((r) => r.id === "OLLAMA");
    expect(row?.available).toBe(true);
    expect(row?.reason).toContain(`http://127.0.0.1:${fake.port}`);
  });

  test("OLLAMA_HOST=127.0.0.1 that nothing answers: the message names http://127.0.0.1:11434, where the request went", async () => {
    const urls: string[] = [];
    const refuse = Object.assign(
      async (input: string | URL | Request) => {
        urls.push(input instanceof Request ? input.url : String(input));
        throw Object.assign(new TypeError("fetch failed"), { code: "ECONNREFUSED" });
      },
      { preconnect: fetch.preconnect },
    ) as typeof fetch;
    let failure: unknown;
    try {
      await resolveModel(cfg({ OLLAMA_HOST: "127.0.0.1", LLM_MODEL: "qwen3:8b", MAX_RETRIES: "1" }), refuse);
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(CliFailure);
    expect((failure as CliFailure).message).toContain("Cannot reach Ollama at http://127.0.0.1:11434.");
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.every((u) => u.startsWith("http://127.0.0.1:11434/"))).toBe(true);
  });
});
