// The provider and model pickers, the fallback chain and /compact in the TUI of the compiled binary (tmux):
// each switch must reach the next request, the status line must show the new provider, model and window.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let sse: FakeSseServer;
let ollama: FakeOllama;

const oaChunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}`;
const openAiText = (text: string) => ({ events: [oaChunk({ role: "assistant", content: text }), oaChunk({}, "stop"), "data: [DONE]"] });

beforeAll(() => {
  b = isolatedBinary();
  // The default model (gpt-5.4) is listed second: the /provider picker must still take it.
  sse = startFakeSse({ json: { "/v1/models": [{ body: { object: "list", data: [{ id: "gpt-4o", object: "model" }, { id: "gpt-5.4", object: "model" }] } }] } });
  ollama = startFakeOllama({
    models: [
      { name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] },
      { name: "llama3.2:3b", contextLength: 4096, capabilities: ["completion"] },
    ],
    defaultReply: { text: "answer from ollama" },
  });
});
afterAll(() => {
  sse.stop();
  ollama.stop();
  b.cleanup();
});

function start(args: string, extra: Record<string, string> = {}): Tmux {
  const env = { OLLAMA_HOST: ollama.url, OPENAI_API_KEY: "sk-test-1234567", OPENAI_BASE_URL: `${sse.url}/v1`, ...extra };
  return new Tmux(join(b.dir, "..", `tmux-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, args, { env }), 100, 32);
}

const statusLine = (screen: string) => screen.split("\n").filter((l) => l.includes(" · ")).at(-1) ?? "";

describe.skipIf(!hasTmux())("provider and model switching in the TUI (compiled binary)", () => {
  test("/provider picker → OPENAI: status shows its default model and window; the next request goes there", async () => {
    const t = start("--model qwen3:8b");
    try {
      await t.waitFor((s) => statusLine(s).includes("OLLAMA · qwen3:8b") && statusLine(s).includes("/8.2k"));
      t.sendLiteral("/provider");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Provider") && s.includes("OPENAI"));
      t.send("Down");
      await Bun.sleep(150);
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("OPENAI · gpt-5.4") && statusLine(s).includes("/400k"));
      const before = ollama.chatRequests().length;
      sse.enqueue(openAiText("answer from openai"));
      t.sendLiteral("hello there");
      t.send("Enter");
      await t.waitFor((s) => s.includes("answer from openai"));
      expect(sse.streamBodies().at(-1)!.model).toBe("gpt-5.4");
      expect(ollama.chatRequests().length).toBe(before);

      // Typed forms: `/model name:tag` stays on the current provider only when its prefix is no provider;
      // `/model OLLAMA:llama3.2:3b` and `/provider OLLAMA` switch providers.
      t.sendLiteral("/model OLLAMA:llama3.2:3b");
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("OLLAMA · llama3.2:3b") && statusLine(s).includes("/4.1k"));
      t.sendLiteral("/model qwen3:8b");
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("OLLAMA · qwen3:8b") && statusLine(s).includes("/8.2k"));
      t.sendLiteral("and now?");
      t.send("Enter");
      await t.waitFor((s) => s.includes("answer from ollama"));
      expect(ollama.chatRequests().at(-1)!.model).toBe("qwen3:8b");
      t.sendLiteral("/provider OPENAI");
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("OPENAI · gpt-5.4"));
    } finally {
      t.kill();
    }
  }, 30_000);

  test("/model picker lists every available provider's models and switches to the one picked", async () => {
    const t = start("--model qwen3:8b");
    try {
      await t.waitFor((s) => statusLine(s).includes("OLLAMA · qwen3:8b"));
      t.sendLiteral("/model");
      t.send("Enter");
      const screen = await t.waitFor((s) => s.includes("OLLAMA:llama3.2:3b") && s.includes("OPENAI:gpt-5.4"));
      const rows = screen.split("\n").filter((l) => /(OLLAMA|OPENAI):/.test(l));
      const target = rows.findIndex((l) => l.includes("OLLAMA:llama3.2:3b"));
      const current = rows.findIndex((l) => l.includes("▶"));
      for (let i = current; i < target; i++) t.send("Down");
      for (let i = current; i > target; i--) t.send("Up");
      await Bun.sleep(150);
      t.send("Enter");
      await t.waitFor((s) => statusLine(s).includes("OLLAMA · llama3.2:3b"));
      t.sendLiteral("hi");
      t.send("Enter");
      await t.waitFor((s) => s.includes("answer from ollama"));
      expect(ollama.chatRequests().at(-1)!.model).toBe("llama3.2:3b");
    } finally {
      t.kill();
    }
  }, 30_000);

  test("fallback chain: the switch is shown, /stats bills the entry that answered, and the dead one cools down", async () => {
    for (let i = 0; i < 3; i++) sse.enqueue({ status: 500, body: '{"error":{"message":"down"}}' });
    const t = start("--provider openai --model gpt-4o", { CHATCLI_FALLBACK_PROVIDERS: "OLLAMA:qwen3:8b", INITIAL_BACKOFF: "0.05" });
    try {
      await t.waitFor((s) => statusLine(s).includes("OPENAI · gpt-4o"));
      const posts = sse.streamBodies().length;
      t.sendLiteral("hello");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Provider switched OPENAI:gpt-4o → OLLAMA:qwen3:8b") && s.includes("answer from ollama"));
      expect(sse.streamBodies().length - posts).toBe(3); // 1 try + 2 retries inside the chain
      t.sendLiteral("/stats");
      t.send("Enter");
      const stats = await t.waitFor((s) => s.includes("By model:"));
      expect(stats).toContain("OLLAMA:qwen3:8b");
      expect(stats).not.toContain("OPENAI:gpt-4o  in");
      t.sendLiteral("again");
      t.send("Enter");
      await t.waitFor((s) => s.split("answer from ollama").length > 2);
      expect(sse.streamBodies().length - posts).toBe(3); // OPENAI is cooling down: not tried
    } finally {
      t.kill();
    }
  }, 30_000);
});

describe.skipIf(!hasTmux())("/compact in the TUI (compiled binary)", () => {
  test("/compact <instruction> sends the instruction to the summarizer and replaces the history; failure leaves it", async () => {
    const local = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "## Current Task State\n- Done: the questions" } });
    const t = new Tmux(join(b.dir, "..", "tmux-compact.sock"), paneCommand(b, "--model qwen3:8b", { env: { OLLAMA_HOST: local.url, MAX_RETRIES: "1" } }), 100, 40);
    try {
      await t.waitFor((s) => statusLine(s).includes("qwen3:8b"));
      for (let i = 0; i < 6; i++) {
        local.enqueue({ text: `reply number ${i}` });
        t.sendLiteral(`question ${i} about src/file${i}.ts`);
        t.send("Enter");
        await t.waitFor((s) => s.includes(`reply number ${i}`));
      }
      local.enqueue({ status: 500, errorBody: '{"error":"summarizer down"}' });
      t.sendLiteral("/compact");
      t.send("Enter");
      await t.waitFor((s) => s.includes("the history is unchanged"));
      expect(t.capture()).toContain("question 0 about src/file0.ts");

      const before = local.chatRequests().length;
      t.sendLiteral("/compact keep every file name");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Earlier conversation, summarized"));
      const summaryRequest = local.chatRequests()[before] as { messages: Array<{ content: string }> };
      expect(summaryRequest.messages.length).toBe(1);
      expect(summaryRequest.messages[0]!.content).toContain("keep every file name");

      local.enqueue({ text: "after compaction" });
      t.sendLiteral("next");
      t.send("Enter");
      await t.waitFor((s) => s.includes("after compaction"));
      const next = local.chatRequests().at(-1) as { messages: Array<{ role: string; content: string }> };
      expect(next.messages.some((m) => m.content.startsWith("[STRUCTURED SUMMARY"))).toBe(true);
      expect(next.messages.some((m) => m.content === "question 0 about src/file0.ts")).toBe(false);
      expect(next.messages.some((m) => m.role === "user" && m.content === "question 5 about src/file5.ts")).toBe(true);
    } finally {
      t.kill();
      local.stop();
    }
  }, 30_000);
});
