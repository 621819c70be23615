/** Model choice against a fake Ollama through the real `ollama` client (issue 2's "With no --model" rules). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "../../src/llm/providers/index.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { CliFailure, resolveModel } from "../../src/cli/resolve-model.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

let dir: string;
let fake: FakeOllama;
let empty: FakeOllama;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-resolve-"));
  mkdirSync(join(dir, ".git"));
  fake = startFakeOllama({ models: [{ name: "llama3.2:3b", contextLength: 8192 }, { name: "qwen3:8b", contextLength: 40960 }] });
  empty = startFakeOllama({ models: [] });
});
afterAll(() => {
  fake.stop();
  empty.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cfg(env: Record<string, string>, flags: { model?: string } = {}) {
  return loadConfig({ cwd: dir, env: { HOME: dir, CHATCLI_HOME: join(dir, "home"), ...env }, flags });
}

async function failure(p: Promise<unknown>): Promise<CliFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof CliFailure) return err;
    throw err;
  }
  throw new Error("expected a CliFailure");
}

describe("resolveModel (Ollama)", () => {
  test("no model chosen: the first installed one, and the notice says which", async () => {
    const r = await resolveModel(cfg({ OLLAMA_HOST: fake.url }));
    expect(r.model).toBe("llama3.2:3b");
    expect(r.notice).toContain("llama3.2:3b");
    expect(r.notice).toContain("first installed");
    expect(r.info?.contextWindow).toBe(8192);
  });

  test("LLM_MODEL beats the first installed model and nothing is announced", async () => {
    const r = await resolveModel(cfg({ OLLAMA_HOST: fake.url, LLM_MODEL: "qwen3:8b" }));
    expect(r.model).toBe("qwen3:8b");
    expect(r.notice).toBeUndefined();
  });

  test("an unknown model lists the installed ones; exit 1", async () => {
    const f = await failure(resolveModel(cfg({ OLLAMA_HOST: fake.url }, { model: "mistral:7b" })));
    expect(f.exitCode).toBe(1);
    expect(f.message).toContain("mistral:7b");
    expect(f.message).toContain("llama3.2:3b, qwen3:8b");
  });

  test("Ollama not running: where it looked and how to start it; exit 1", async () => {
    const f = await failure(resolveModel(cfg({ OLLAMA_HOST: "http://127.0.0.1:9" })));
    expect(f.exitCode).toBe(1);
    expect(f.message).toContain("http://127.0.0.1:9");
    expect(f.message).toContain("ollama serve");
  });

  test("OLLAMA_HOST unset: the Ollama CLI's default address is used", async () => {
    const c = cfg({});
    const r = await resolveModel(c, (async () => {
      throw Object.assign(new TypeError("fetch failed"), { code: "ECONNREFUSED" });
    }) as unknown as typeof fetch).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(CliFailure);
    expect((r as CliFailure).message).toContain("http://127.0.0.1:11434");
  });

  test("no models installed: says how to pull one", async () => {
    const f = await failure(resolveModel(cfg({ OLLAMA_HOST: empty.url })));
    expect(f.exitCode).toBe(1);
    expect(f.message).toContain("ollama pull");
  });

  test("an unknown provider is bad usage (exit 2) listing the known ones", async () => {
    const f = await failure(resolveModel(cfg({ LLM_PROVIDER: "nope" })));
    expect(f.exitCode).toBe(2);
    expect(f.message).toContain("OLLAMA");
  });
});

describe("resolveModel: the fallback chain", () => {
  const entries = (r: Awaited<ReturnType<typeof resolveModel>>) =>
    (r.provider as unknown as { health?: () => Array<{ entry: { provider: string; model: string } }> }).health?.().map((h) => `${h.entry.provider}:${h.entry.model}`);

  test("the seed's env form names the primary first: that entry is the primary, not a second try with the default model", async () => {
    const r = await resolveModel(cfg({ OLLAMA_HOST: fake.url, CHATCLI_FALLBACK_PROVIDERS: "OLLAMA,OLLAMA:llama3.2:3b" }, { model: "qwen3:8b" }));
    expect(entries(r)).toEqual(["OLLAMA:qwen3:8b", "OLLAMA:llama3.2:3b"]);
  });

  test("CHATCLI_FALLBACK_MODEL_<ID> for the primary's provider is a real second entry", async () => {
    const r = await resolveModel(cfg({ OLLAMA_HOST: fake.url, CHATCLI_FALLBACK_PROVIDERS: "OLLAMA", CHATCLI_FALLBACK_MODEL_OLLAMA: "llama3.2:3b" }, { model: "qwen3:8b" }));
    expect(entries(r)).toEqual(["OLLAMA:qwen3:8b", "OLLAMA:llama3.2:3b"]);
  });
});
