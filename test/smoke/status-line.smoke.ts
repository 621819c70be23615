// Status line and notice order in the compiled binary (tmux), OLLAMA_HOST forms and MAX_RETRIES=0 (-p):
// no `$0.0000` for an unpriced model, the first request's size before any turn in the same format as /stats
// (32,768 → 32.8k), the fallback entry named while it serves and the primary again after, "Interrupted." and
// the microcompact line under the block they follow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeSse, type FakeSseServer } from "../support/fake-sse-servers.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let ollama: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  // 40,960 advertised, capped at 32,768 for num_ctx: the window shown is 32.8k.
  ollama = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, capabilities: ["completion", "tools"] }], defaultReply: { text: "local answer" } });
});
afterAll(() => {
  ollama.stop();
  b.cleanup();
});

function tmux(args: string, extra: Record<string, string>, rows = 30): Tmux {
  return new Tmux(join(b.dir, "..", `tmux-sl-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, args, { env: { OLLAMA_HOST: `:${ollama.port}`, ...extra } }), 100, rows);
}
const statusLine = (screen: string) => screen.split("\n").filter((l) => l.includes(" · ")).at(-1) ?? "";
/** Index of the first line containing `needle` (-1 when absent). */
const lineOf = (screen: string, needle: string) => screen.split("\n").findIndex((l) => l.includes(needle));

describe.skipIf(!hasTmux())("status line (compiled binary in tmux)", () => {
  test("local model: no cost segment; before the first turn the first request's size, as /stats reports it", async () => {
    const t = tmux("--model qwen3:8b", {});
    try {
      const idle = await t.waitFor((s) => statusLine(s).includes("OLLAMA · qwen3:8b"));
      const sl = statusLine(idle);
      expect(sl).not.toContain("$");
      const m = /· ([\d.]+k)\/32\.8k \((\d+)%\)/.exec(sl);
      expect(m).not.toBeNull();
      expect(m![1]).not.toBe("0");
      t.sendLiteral("/stats");
      t.send("Enter");
      const stats = await t.waitFor((s) => s.includes("Context: "));
      expect(stats).toContain(`Context: ${m![1]} / 32.8k tokens (${m![2]}%)`);
      expect(stats).toContain("cost n/a");
      t.sendLiteral("hi");
      t.send("Enter");
      const after = await t.waitFor((s) => s.includes("local answer") && !statusLine(s).includes("esc to interrupt"));
      expect(statusLine(after)).not.toContain("$");
    } finally {
      t.kill();
    }
  }, 30_000);

  test("fallback: the serving entry is named while it serves; the primary, with its cost, once it answers again", async () => {
    const sse: FakeSseServer = startFakeSse({ defaultReply: { fixture: "openai-text.sse" } });
    for (let i = 0; i < 3; i++) sse.enqueue({ status: 500, body: '{"error":{"message":"down"}}' });
    const t = tmux("--provider openai --model gpt-4o", {
      OPENAI_API_KEY: "sk-test-1234567",
      OPENAI_BASE_URL: `${sse.url}/v1`,
      CHATCLI_FALLBACK_PROVIDERS: "OLLAMA:qwen3:8b",
      INITIAL_BACKOFF: "0.05",
      CHATCLI_FALLBACK_COOLDOWN_BASE: "1",
    });
    try {
      await t.waitFor((s) => statusLine(s).includes("OPENAI · gpt-4o"));
      t.sendLiteral("hello");
      t.send("Enter");
      const switched = await t.waitFor((s) => s.includes("local answer") && statusLine(s).includes("OLLAMA:qwen3:8b (fallback)"));
      expect(statusLine(switched)).not.toContain("gpt-4o");
      await Bun.sleep(1100); // the primary's cooldown ends
      t.sendLiteral("again");
      t.send("Enter");
      const back = await t.waitFor((s) => s.includes("Hello, world!") && statusLine(s).includes("OPENAI · gpt-4o"));
      expect(back).toContain("primary available again");
      expect(statusLine(back)).toMatch(/· \$0\.\d+ ·/);
    } finally {
      t.kill();
      sse.stop();
    }
  }, 30_000);

  test('"Interrupted." and the microcompact line come after the tool group they follow', async () => {
    const big = "line of a big file with enough words in it\n".repeat(300);
    for (let i = 0; i < 3; i++) writeFileSync(join(b.dir, `big${i}.txt`), big);
    const local = startFakeOllama({
      models: [{ name: "qwen3:8b", contextLength: 40_960, capabilities: ["completion", "tools"] }],
      replies: [
        { toolCalls: [{ name: "read", arguments: { path: "big0.txt" } }] },
        { toolCalls: [{ name: "read", arguments: { path: "big1.txt" } }] },
        { text: "both read" },
        { toolCalls: [{ name: "exec", arguments: { command: "sleep 20" } }] },
      ],
    });
    const t = tmux("--model qwen3:8b", {
      OLLAMA_HOST: local.url,
      CHATCLI_PERMISSION_MODE: "bypass",
      CHATCLI_MICROCOMPACT_TRUNCATE_TURNS: "1",
      CHATCLI_MICROCOMPACT_MIN_CONTENT: "100",
      CHATCLI_CODER_UI: "compact",
    }, 40);
    try {
      await t.waitFor((s) => statusLine(s).includes("qwen3:8b"));
      t.sendLiteral("read both");
      t.send("Enter");
      const s1 = await t.waitFor((s) => s.includes("both read"));
      // big0's result is shortened when the request after big1's group is built: the line sits under that group.
      const mc = lineOf(s1, "microcompact:");
      expect(mc).toBeGreaterThan(lineOf(s1, "big1.txt"));
      expect(mc).toBeLessThan(lineOf(s1, "both read"));
      t.sendLiteral("now run it");
      t.send("Enter");
      await t.waitFor((s) => s.includes("sleep 20"));
      await Bun.sleep(400);
      t.send("Escape");
      const s2 = await t.waitFor((s) => s.includes("Interrupted."));
      expect(lineOf(s2, "Interrupted.")).toBeGreaterThan(lineOf(s2, "sleep 20"));
    } finally {
      t.kill();
      local.stop();
    }
  }, 30_000);
});

describe("OLLAMA_HOST forms and MAX_RETRIES=0 (-p)", () => {
  test("OLLAMA_HOST=127.0.0.1:PORT and :PORT reach the server; an unreachable host:port is named as the normalised URL; providers probes it", async () => {
    for (const host of [`127.0.0.1:${ollama.port}`, `:${ollama.port}`]) {
      const r = await run(b, ["-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: host });
      expect(r.stdout).toContain("local answer");
      expect(r.code).toBe(0);
    }
    // Port 9 (discard) on 127.0.0.1 refuses: the message shows the normalised URL, never the raw value.
    const down = await run(b, ["-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: "127.0.0.1:9", MAX_RETRIES: "0" });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("Cannot reach Ollama at http://127.0.0.1:9.");
    const bare = await run(b, ["providers"], { OLLAMA_HOST: `:${ollama.port}` });
    expect(bare.stdout).toContain(`Ollama answering at http://127.0.0.1:${ollama.port}`);
  }, 30_000);

  test("MAX_RETRIES=0: one request, no retry line; unset: the retry happens", async () => {
    const failing = startFakeOllama({ models: [{ name: "qwen3:8b", capabilities: ["completion"] }], replies: [{ status: 503, errorBody: '{"error":"busy"}' }, { status: 503, errorBody: '{"error":"busy"}' }], defaultReply: { text: "after a retry" } });
    try {
      const chats = () => failing.requests.filter((q) => q.path === "/api/chat").length;
      const once = await run(b, ["-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: failing.url, MAX_RETRIES: "0" });
      expect(once.code).toBe(1);
      expect(chats()).toBe(1);
      expect(once.stderr).not.toContain("retrying");
      const retried = await run(b, ["-p", "hi", "--model", "qwen3:8b"], { OLLAMA_HOST: failing.url, INITIAL_BACKOFF: "0.05" });
      expect(retried.stdout).toContain("after a retry");
      expect(chats()).toBe(3);
      expect(retried.stderr).toContain("retrying");
    } finally {
      failing.stop();
    }
  }, 30_000);
});
