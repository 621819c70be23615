// Smoke test of tool-use summaries in the compiled binary: a stream-json one-shot whose model reads two files
// prints a `tool_use_summary` event (label + the ids of the calls it covers) written by the fast model, and the
// main model is never asked for it. Both models are Ollama (one OLLAMA_HOST), so a small router on 127.0.0.1
// sends /api/chat to the main or the fast fake server by model name; each fake records what it got.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

const MAIN = "qwen3:8b";
const FAST = "qwen3:0.6b";

let b: BinaryEnv;
let main: FakeOllama;
let fast: FakeOllama;
let router: ReturnType<typeof Bun.serve>;
let url: string;

beforeAll(() => {
  b = isolatedBinary();
  writeFileSync(join(b.dir, "a.txt"), "alpha\n");
  writeFileSync(join(b.dir, "b.txt"), "beta\n");
  main = startFakeOllama({ models: [{ name: MAIN, contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "unexpected extra request" } });
  fast = startFakeOllama({ models: [{ name: FAST, contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "unexpected extra request" } });
  router = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const body = req.method === "POST" ? await req.text() : undefined;
      let target = main.url;
      try {
        const parsed = body ? (JSON.parse(body) as { model?: string; name?: string }) : {};
        if (parsed.model === FAST || parsed.name === FAST) target = fast.url;
      } catch {
        // not JSON: the main server answers
      }
      return fetch(`${target}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, ...(body !== undefined ? { body } : {}) });
    },
  });
  url = `http://127.0.0.1:${router.port}`;
});
afterAll(() => {
  router.stop(true);
  main.stop();
  fast.stop();
  b.cleanup();
});

type Line = { type: string; [k: string]: unknown };

describe("tool-use summaries (compiled binary)", () => {
  test("stream-json carries the fast model's label for the batch before the process exits", async () => {
    main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }] }, { text: "Both files hold greek letters." });
    // Slower than the final answer: the process must wait for it before exiting.
    fast.enqueue({ text: "Summary: “Read a.txt and b.txt”", headerDelayMs: 400 });
    const r = await run(b, ["-p", "what is in a.txt and b.txt?", "--model", MAIN, "--output-format", "stream-json"], { OLLAMA_HOST: url, CHATCLI_FAST_MODEL: `OLLAMA:${FAST}` });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Line);
    const started = lines.filter((l) => l.type === "tool.started");
    expect(started).toHaveLength(2);
    const summary = lines.find((l) => l.type === "tool_use_summary");
    expect(summary).toEqual({ type: "tool_use_summary", batchId: started[0]!.batchId, label: "Read a.txt and b.txt", callIds: started.map((s) => s.callId) });
    expect(fast.chatRequests()).toHaveLength(1);
    expect(fast.chatRequests()[0]!.tools).toBeUndefined();
    expect(main.chatRequests()).toHaveLength(2);
    for (const c of main.chatRequests()) expect(JSON.stringify(c.messages)).not.toContain("You label batches of tool calls");
  });

  test("without a fast model nothing is generated and nothing is printed for it", async () => {
    const before = { main: main.chatRequests().length, fast: fast.chatRequests().length };
    main.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }] }, { text: "Done." });
    const r = await run(b, ["-p", "read both", "--model", MAIN, "--output-format", "stream-json"], { OLLAMA_HOST: url });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("tool_use_summary");
    expect(main.chatRequests().length - before.main).toBe(2);
    expect(fast.chatRequests().length).toBe(before.fast);
  });
});

// The fast model on its own Ollama host (settings `fastModel: { model, baseUrl }`), no router: in compact mode the
// label, which lands while the next answer streams, replaces the group's `Read × 2` header; a resumed session in
// full mode shows the saved label as its own line after the group.
describe("tool-use summaries in the TUI (compiled binary)", () => {
  test.skipIf(!hasTmux())("compact header replaced by the late label; the label restored on --resume", async () => {
    const own = isolatedBinary();
    const m2 = startFakeOllama({ models: [{ name: MAIN, contextLength: 8192, capabilities: ["completion", "tools"] }], defaultReply: { text: "unexpected extra request" } });
    const f2 = startFakeOllama({ models: [{ name: FAST, contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: "unexpected extra request" } });
    writeFileSync(join(own.dir, "a.txt"), "alpha\n");
    writeFileSync(join(own.dir, "b.txt"), "beta\n");
    mkdirSync(own.env.CHATCLI_HOME!, { recursive: true });
    writeFileSync(join(own.env.CHATCLI_HOME!, "settings.json"), JSON.stringify({ fastModel: { model: `OLLAMA:${FAST}`, baseUrl: f2.url }, ui: { mode: "compact" } }));
    m2.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }] }, { text: "Both files hold greek letters, streamed slowly.", chunkCount: 20, chunkDelayMs: 100 });
    f2.enqueue({ text: "Read a.txt and b.txt", headerDelayMs: 300 });
    const sock = join(own.dir, "tmux-summaries.sock");
    try {
      const tmux = new Tmux(sock, paneCommand(own, `--model ${MAIN}`, { env: { OLLAMA_HOST: m2.url } }));
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("read both");
      tmux.send("Enter");
      const screen = await tmux.waitFor((s) => s.includes("streamed slowly.") && s.includes("Read a.txt and b.txt"));
      expect(screen.split("Read a.txt and b.txt").length - 1).toBe(1);
      expect(screen).not.toContain("Read × 2");
      const lines = screen.split("\n");
      expect(lines.findIndex((l) => l.includes("Read a.txt and b.txt"))).toBeLessThan(lines.findIndex((l) => l.includes("Both files hold")));
      expect(f2.chatRequests()).toHaveLength(1);
      expect(m2.chatRequests().map((b) => b.model)).toEqual([MAIN, MAIN]);
      tmux.sendLiteral("/exit");
      tmux.send("Enter");
      await Bun.sleep(500);
      tmux.kill();
      const resumed = new Tmux(`${sock}.2`, paneCommand(own, `--model ${MAIN} --resume`, { env: { OLLAMA_HOST: m2.url } }));
      try {
        await resumed.waitFor((s) => s.includes("streamed slowly.") && s.includes("Ask anything"));
        resumed.sendLiteral("/ui full");
        resumed.send("Enter");
        const full = await resumed.waitFor((s) => s.includes("Read × 2") && s.includes("Read a.txt and b.txt"));
        const fl = full.split("\n");
        expect(full.split("Read a.txt and b.txt").length - 1).toBe(1);
        expect(fl.findIndex((l) => l.includes("● Read a.txt and b.txt"))).toBeGreaterThan(fl.findIndex((l) => l.includes("Read × 2")));
      } finally {
        resumed.kill();
      }
    } finally {
      m2.stop();
      f2.stop();
      own.cleanup();
    }
  }, 20_000);
});
