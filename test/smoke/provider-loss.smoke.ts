// Issue 15 items 2 and 9 through the compiled binary: a reasoning model's inline <think> text never reaches the
// answer (-p text, json, stream-json), and a local provider lost mid-session fails at once (no retry events) with
// the message that says where it looked and how to start it; the TUI puts the prompt back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeSse } from "../support/fake-sse-servers.ts";
import { startFakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, runAt, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
beforeAll(() => {
  b = isolatedBinary();
});
afterAll(() => b.cleanup());

function project(name: string): string {
  const dir = join(b.dir, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

const openaiAt = (url: string) => ({ OPENAI_API_KEY: "sk-test-123456789", OPENAI_BASE_URL: `${url}/v1` });
const events = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });

describe("inline thinking (compiled binary)", () => {
  test("-p text, json and stream-json: no tag text and no thinking in the answer", async () => {
    const sse = startFakeSse({ defaultReply: { fixture: "openai-inline-think.sse" } });
    try {
      const dir = project("think");
      const args = ["-p", "what number?", "--provider", "openai", "--model", "qwen3-8b"];
      const txt = await runAt(b, dir, args, openaiAt(sse.url));
      expect(txt.code).toBe(0);
      expect(txt.stdout.trim()).toBe("The answer is 42.");
      const json = await runAt(b, dir, [...args, "--output-format", "json"], openaiAt(sse.url));
      expect(json.code).toBe(0);
      const out = JSON.parse(json.stdout) as { result: string };
      expect(out.result.trim()).toBe("The answer is 42.");
      const stream = await runAt(b, dir, [...args, "--output-format", "stream-json"], openaiAt(sse.url));
      const completed = events(stream.stdout).find((e) => e.type === "message.completed") as { message: { content: string } } | undefined;
      expect(completed?.message.content.trim()).toBe("The answer is 42.");
      for (const s of [txt.stdout, json.stdout]) {
        expect(s).not.toContain("think>");
        expect(s).not.toContain("The user wants");
      }
      // The thinking is not sent back to the model as part of the answer either.
      const history = JSON.stringify(sse.streamBodies().at(-1)?.messages ?? []);
      expect(history).not.toContain("think>");
    } finally {
      sse.stop();
    }
  }, 30_000);
});

describe("a local provider lost mid-session (compiled binary)", () => {
  test("OpenAI-compatible server on 127.0.0.1 stopped: the next -p fails without retrying, names the host and how to start it", async () => {
    const sse = startFakeSse({ defaultReply: { fixture: "openai-text.sse" } });
    const dir = project("lost-openai");
    const env = openaiAt(sse.url);
    const first = await runAt(b, dir, ["-p", "hi", "--provider", "openai", "--model", "gpt-4o"], env);
    expect(first.code).toBe(0);
    sse.stop();
    // The default retry policy (5 tries): a retry would show as a `retry` event.
    const lost = await runAt(b, dir, ["-p", "and now?", "--continue", "--provider", "openai", "--model", "gpt-4o", "--output-format", "stream-json"], env);
    expect(lost.code).toBe(1);
    const evs = events(lost.stdout);
    expect(evs.filter((e) => e.type === "retry")).toEqual([]);
    const err = evs.find((e) => e.type === "error") as { message: string; error?: { message: string; retryable: boolean } } | undefined;
    expect(err?.error?.retryable).toBe(false);
    expect(err?.error?.message).toContain(new URL(sse.url).host);
    const text = await runAt(b, dir, ["-p", "and now?", "--continue", "--provider", "openai", "--model", "gpt-4o"], env);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`Cannot reach OPENAI at ${sse.url}/v1`);
    expect(text.stderr).toContain("llama-server");
    expect(text.stderr).toContain("OPENAI_BASE_URL");
    expect(text.stderr).not.toMatch(/retrying/i);
  }, 30_000);

  test("Ollama stopped while a tool runs: the next model call fails without retrying, with the Ollama message", async () => {
    const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "never" } });
    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "sleep 3" } }], chunks: [] });
    const dir = project("lost-ollama");
    const run = runAt(b, dir, ["-p", "wait a bit", "-m", "qwen3:8b", "--permission-mode", "bypass", "--output-format", "stream-json"], { OLLAMA_HOST: fake.url });
    // Stop the server once the model asked for the tool, before the request that carries its result.
    for (let i = 0; i < 200 && fake.chatRequests().length < 1; i++) await Bun.sleep(25);
    expect(fake.chatRequests().length).toBe(1);
    fake.stop();
    const lost = await run;
    expect(lost.code).toBe(1);
    const evs = events(lost.stdout);
    expect(evs.some((e) => e.type === "tool.completed")).toBe(true);
    expect(evs.filter((e) => e.type === "retry")).toEqual([]);
    const err = evs.find((e) => e.type === "error") as { error?: { message: string; retryable: boolean } } | undefined;
    expect(err?.error).toMatchObject({ message: `connection refused (${fake.url})`, retryable: false });
    // What a person reads (stderr, as in every output format).
    expect(lost.stderr).toContain(`Cannot reach Ollama at ${fake.url}`);
    expect(lost.stderr).toContain("ollama serve");
  }, 30_000);

  test("plain mode (--no-tui): the same message, no retry lines", async () => {
    const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "never" } });
    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "sleep 3" } }], chunks: [] });
    const dir = project("lost-plain");
    const run = runAt(b, dir, ["--no-tui", "-m", "qwen3:8b", "--permission-mode", "bypass"], { OLLAMA_HOST: fake.url }, "wait a bit\n");
    for (let i = 0; i < 200 && fake.chatRequests().length < 1; i++) await Bun.sleep(25);
    fake.stop();
    const r = await run;
    expect(r.stdout).toContain(`Cannot reach Ollama at ${fake.url}`);
    expect(r.stdout).not.toMatch(/retry \d/i);
    expect(r.stdout).not.toContain("Unable to connect");
  }, 30_000);

  test.skipIf(!hasTmux())("TUI: Ollama stopped mid-session; the next prompt fails at once with the good message and comes back to the prompt box", async () => {
    const fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "first answer" } });
    const dir = project("lost-tui");
    const tmux = new Tmux(join(b.home, "lost-tui.sock"), paneCommand(b, "-m qwen3:8b", { cwd: dir, env: { OLLAMA_HOST: fake.url } }), 110, 30);
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("hello there");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("first answer"));
      fake.stop();
      tmux.sendLiteral("second question");
      tmux.send("Enter");
      // 8 s to show it: a single retry would wait 3 s first and show a "Retry" line; five take 45 s.
      const screen = await tmux.waitFor((s) => s.includes("Cannot reach Ollama") && s.includes("prompt is back"), 8000);
      expect(screen).toContain(new URL(fake.url).host);
      expect(screen).not.toMatch(/Retry \d/);
      expect(screen).not.toContain("Unable to connect");
      // The prompt box (the bordered line under the transcript) holds the text again.
      expect(screen.split("\n").some((l) => /^│›\s*second question\s*│$/.test(l))).toBe(true);
    } finally {
      tmux.kill();
    }
  }, 40_000);
});
