// MAX_RETRIES counts tries (the first included): 0 and 1 mean one try, the default is 5 tries.
import { afterEach, describe, expect, test } from "bun:test";
import "../../src/llm/providers/index.ts";
import { createProvider } from "../../src/llm/registry.ts";
import { retryPolicyFromEnv } from "../../src/llm/retry.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { collect, ofType, last } from "./helpers.ts";

let fake: FakeOllama | undefined;
afterEach(() => fake?.stop());

describe("retryPolicyFromEnv", () => {
  test("MAX_RETRIES is the number of tries; 0 and 1 mean no retry; unset/empty/garbage/negative → 5; capped at 20", () => {
    const tries = (v: string | undefined) => retryPolicyFromEnv(v === undefined ? {} : { MAX_RETRIES: v }).maxTries;
    expect(tries("0")).toBe(1);
    expect(tries("1")).toBe(1);
    expect(tries("2")).toBe(2);
    expect(tries(" 3 ")).toBe(3);
    expect(tries(undefined)).toBe(5);
    expect(tries("")).toBe(5);
    expect(tries("lots")).toBe(5);
    expect(tries("-1")).toBe(5);
    expect(tries("99")).toBe(20);
  });
});

describe("MAX_RETRIES against a failing server", () => {
  const chat = () => fake!.requests.filter((r) => r.path === "/api/chat").length;
  const run = (extra: Record<string, string>) =>
    collect(createProvider("OLLAMA", { OLLAMA_HOST: fake!.url, INITIAL_BACKOFF: "0.01", ...extra }).stream({ model: "qwen3:8b", system: [], messages: [{ role: "user", content: "hi" }], purpose: "main" }));

  test("MAX_RETRIES=0 sends one request and reports the error without a retry", async () => {
    fake = startFakeOllama({ defaultReply: { status: 503, errorBody: '{"error":"busy"}' } });
    const evs = await run({ MAX_RETRIES: "0" });
    expect(chat()).toBe(1);
    expect(ofType(evs, "retry")).toHaveLength(0);
    expect(last(evs)).toMatchObject({ type: "error" });
  });

  test("MAX_RETRIES=3 sends three requests (two retries)", async () => {
    fake = startFakeOllama({ defaultReply: { status: 503, errorBody: '{"error":"busy"}' } });
    const evs = await run({ MAX_RETRIES: "3" });
    expect(chat()).toBe(3);
    expect(ofType(evs, "retry")).toHaveLength(2);
  });
});
