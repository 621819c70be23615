// Request slots per endpoint from the settings files and OLLAMA_NUM_PARALLEL (issue 20).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load-config.ts";
import { endpointSlots } from "../../../src/agent/subagents/endpoint-slots.ts";
import "../../../src/llm/providers/index.ts";

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

function config(settings: unknown, env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), "chatcli-slots-"));
  const home = join(dir, "home", ".chatcli");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(dir, "project"), { recursive: true });
  writeFileSync(join(home, "settings.json"), JSON.stringify(settings));
  return loadConfig({ cwd: join(dir, "project"), env: { HOME: join(dir, "home"), CHATCLI_HOME: home, ...env }, flags: {} });
}

describe("endpoint slots", () => {
  test("Ollama on this machine: 1; OLLAMA_NUM_PARALLEL as configured; providers.OLLAMA.concurrency over both", () => {
    expect(endpointSlots("OLLAMA", config({}).settings, {}).limit).toBe(1);
    expect(endpointSlots("OLLAMA", config({}).settings, { OLLAMA_NUM_PARALLEL: "3" }).limit).toBe(3);
    const c = config({ providers: { OLLAMA: { concurrency: 2 } }, agents: { maxConcurrent: 5 } });
    expect(endpointSlots("OLLAMA", c.settings, { OLLAMA_NUM_PARALLEL: "3" }).limit).toBe(2);
    expect(c.settings.agents?.maxConcurrent).toBe(5);
    expect(endpointSlots("OLLAMA", c.settings, { OLLAMA_HOST: "http://gpu-box.example:11434" }).limit).toBe(2);
    expect(endpointSlots("OLLAMA", config({}).settings, { OLLAMA_HOST: "http://gpu-box.example:11434" }).limit).toBe(4);
  });

  test("cloud providers: 4 by default, providers.<ID>.concurrency; an OpenAI-compatible entry its own concurrency", () => {
    expect(endpointSlots("OPENAI", config({}).settings, {}).limit).toBe(4);
    expect(endpointSlots("OPENAI", config({ providers: { OPENAI: { concurrency: 9 } } }).settings, {}).limit).toBe(9);
    const c = config({ providers: { openaiCompatible: [{ name: "local3", baseUrl: "http://127.0.0.1:9/v1", concurrency: 3 }] } });
    expect(endpointSlots("LOCAL3", c.settings, {}).limit).toBe(3);
  });

  test("a bad concurrency value is a settings error", () => {
    expect(() => config({ providers: { OLLAMA: { concurrency: 0 } } })).toThrow();
  });
});
