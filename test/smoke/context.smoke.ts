/** Context management through the compiled binary: continuation after a length stop, recovery from a context-length error. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "default" } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

describe("context management (binary)", () => {
  test("a reply cut at the output limit is continued and printed as one answer", async () => {
    fake.enqueue({ text: "The first part, ", doneReason: "length" }, { text: "and the rest." });
    const r = await run(b, ["-p", "write something long", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The first part, and the rest.");
  });

  test("a context-length rejection is recovered by shrinking the request, then answered", async () => {
    const before = fake.chatRequests().length;
    fake.enqueue({ status: 400, errorBody: JSON.stringify({ error: "prompt exceeds the context length" }) }, { text: "Recovered answer." });
    const big = `Please look at this log:\n${"2026-01-01 INFO something happened here\n".repeat(3000)}`;
    const r = await run(b, ["-p", big, "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url, MAX_RETRIES: "0", CHATCLI_CONTEXT_WINDOW: "200000" });
    expect(r.stdout).toContain("Recovered answer.");
    expect(r.code).toBe(0);
    const reqs = fake.chatRequests().slice(before) as Array<{ messages: Array<{ content: string }> }>;
    expect(reqs.length).toBe(2);
    expect(JSON.stringify(reqs[1]!.messages).length).toBeLessThan(JSON.stringify(reqs[0]!.messages).length);
  });
});
