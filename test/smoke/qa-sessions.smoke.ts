// Independent acceptance pass over issues 8 (context management), 10 (sessions and workspace context) and 11
// (distribution), black-box against the compiled binary in a temp dir with an empty HOME.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { runAt, hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

const ANSWER = `Answer: ${"the quick brown fox jumps over the lazy dog. ".repeat(35)}`;

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: ANSWER } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

type ChatRequest = { messages: Array<{ role: string; content: string }>; options?: { num_ctx?: number } };
const requestsSince = (n: number) => fake.chatRequests().slice(n) as unknown as ChatRequest[];

/** A project folder of its own under the test's work dir (its own sessions for --continue). */
function project(name: string, marker: ".git" | ".agent" = ".git"): string {
  const dir = join(b.dir, name);
  mkdirSync(join(dir, marker), { recursive: true });
  return dir;
}

function runIn(cwd: string, args: string[], env: Record<string, string> = {}, stdin?: string) {
  return runAt(b, cwd, args, { OLLAMA_HOST: fake.url, ...env }, stdin);
}

describe("issue 8: a long session on an 8K window", () => {
  test("40 piped prompts in --no-tui: every prompt is answered, every request fits the 8K window", async () => {
    const dir = project("long");
    const before = fake.chatRequests().length;
    const script = Array.from({ length: 40 }, (_, i) => `turn ${i}: please consider ${"lorem ipsum dolor sit amet ".repeat(55)}`).join("\n") + "\n";
    const r = await runIn(dir, ["--no-tui", "-m", "qwen3:8b"], {}, script);
    expect(r.code).toBe(0);
    // None dropped ("Queue full") or merged: one answer per line.
    expect(r.stdout).not.toContain("Queue full");
    expect(r.stdout.split("\n").filter((l) => l.startsWith("Answer:"))).toHaveLength(40);
    const reqs = requestsSince(before);
    const asked = new Set(reqs.map((q) => q.messages.filter((m) => m.role === "user").at(-1)?.content.match(/^turn (\d+):/)?.[1]).filter(Boolean));
    expect(asked.size).toBe(40);
    expect(r.stdout).toContain("Context compacted");
    for (const q of reqs) {
      expect(q.options?.num_ctx).toBe(8192);
      // chars/4 of the whole serialized request body's messages: a generous upper bound of its tokens.
      expect(JSON.stringify(q.messages).length / 4).toBeLessThan(8192);
    }
  }, 60_000);
});

describe("issue 10: sessions", () => {
  test("a torn last line (kill -9 mid-write) is skipped with a warning; --continue carries the history and keeps appending", async () => {
    const dir = project("torn");
    const first = await runIn(dir, ["-p", "remember the word mango", "-m", "qwen3:8b"]);
    expect(first.code).toBe(0);
    const sessions = join(b.env.CHATCLI_HOME!, "sessions");
    const file = readdirSync(sessions).filter((f) => f.endsWith(".jsonl")).map((f) => join(sessions, f)).find((f) => readFileSync(f, "utf8").includes("mango"))!;
    appendFileSync(file, '{"v":1,"ts":1,"type":"message","message":{"role":"user","cont');
    const before = fake.chatRequests().length;
    const second = await runIn(dir, ["-p", "which word?", "--continue", "-m", "qwen3:8b"]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("torn last line");
    expect(requestsSince(before)[0]!.messages.map((m) => m.content)).toContain("remember the word mango");
    // The file stays loadable after the repair: a third run sees both earlier prompts and no new warning.
    const before3 = fake.chatRequests().length;
    const third = await runIn(dir, ["-p", "and now?", "--continue", "-m", "qwen3:8b"]);
    expect(third.code).toBe(0);
    expect(third.stderr).not.toContain("torn");
    const contents = requestsSince(before3)[0]!.messages.map((m) => m.content);
    expect(contents).toContain("remember the word mango");
    expect(contents).toContain("which word?");
  });
});

describe.skipIf(!hasTmux())("issues 8 + 10 in the TUI", () => {
  test("/context with a quoted path with spaces, /compact <instruction> reported after the swap, /session save then --resume NAME; no update check on start", async () => {
    const dir = project("tui");
    mkdirSync(join(dir, "docs"), { recursive: true });
    writeFileSync(join(dir, "docs", "api notes.md"), "API NOTES ALPHA\r\nsecond line\r\n");
    const releaseHits: string[] = [];
    const release = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (releaseHits.push(new URL(req.url).pathname), new Response("no", { status: 404 })) });
    const tmux = new Tmux(join(b.dir, "qa-tui.sock"), paneCommand(b, "-m qwen3:8b", { cwd: dir, env: { OLLAMA_HOST: fake.url, CHATCLI_RELEASE_URL: `http://127.0.0.1:${release.port}` } }), 100, 30);
    const type = async (text: string, until: (s: string) => boolean) => {
      tmux.sendLiteral(text);
      await Bun.sleep(150);
      tmux.send("Enter");
      return tmux.waitFor(until, 10_000);
    };
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      await type('/context create notes "docs/api notes.md"', (s) => s.includes('Context "notes" saved'));
      await type("/context attach notes", (s) => s.includes('Context "notes" attached'));
      let before = fake.chatRequests().length;
      for (const q of ["question one", "question two", "question three"]) {
        const n = fake.chatRequests().length;
        await type(q, () => fake.chatRequests().length > n);
        await tmux.waitFor((s) => s.includes("Ask anything") && !/esc to interrupt|Esc to interrupt/i.test(s));
      }
      const system = requestsSince(before)[0]!.messages[0]!.content;
      expect(system).toContain("API NOTES ALPHA");

      before = fake.chatRequests().length;
      const screen = await type("/compact keep the word mango", (s) => s.includes("Context compacted"));
      expect(screen).toMatch(/Context compacted \([\d.]+k? → [\d.]+k? tokens\)/);
      const summaryRequest = requestsSince(before)[0]!;
      expect(summaryRequest.messages.at(-1)!.content).toContain("USER INSTRUCTION: keep the word mango");

      await type("/session save qa-notes", (s) => s.includes('saved as "qa-notes"'));
      tmux.send("C-c");
      await Bun.sleep(200);
      tmux.send("C-c");
    } finally {
      tmux.kill();
      release.stop(true);
    }
    expect(releaseHits).toEqual([]);

    const list = await runIn(dir, ["sessions"]);
    expect(list.stdout).toContain("qa-notes");
    const before = fake.chatRequests().length;
    const resumed = await runIn(b.dir, ["-p", "go on", "--resume", "qa-notes", "-m", "qwen3:8b"]);
    expect(resumed.code).toBe(0);
    const sent = requestsSince(before)[0]!.messages.map((m) => m.content);
    expect(sent.some((c) => c.startsWith("[STRUCTURED SUMMARY"))).toBe(true);
    expect(sent).toContain("question three");
  }, 60_000);
});

describe("issue 10: workspace context", () => {
  test("bootstrap files: .agent/ root wins over .git/, project before ~/.chatcli, CLAUDE.md only without AGENTS.md, an edited file is re-read between turns", async () => {
    const top = project("boot");
    writeFileSync(join(top, "AGENTS.md"), "TOP-LEVEL AGENTS (outside the .agent root)\n");
    const root = join(top, "pkg");
    mkdirSync(join(root, ".agent"), { recursive: true });
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    writeFileSync(join(root, "AGENTS.md"), "PROJECT AGENTS v1\n");
    writeFileSync(join(root, "CLAUDE.md"), "PROJECT CLAUDE\n");
    writeFileSync(join(root, "RULES.md"), "PROJECT RULES\n");
    mkdirSync(b.env.CHATCLI_HOME!, { recursive: true });
    writeFileSync(join(b.env.CHATCLI_HOME!, "AGENTS.md"), "USER AGENTS\n");
    const cwd = join(root, "src", "deep");

    // Two turns in one process; the file changes between them.
    const before = fake.chatRequests().length;
    const proc = Bun.spawn([b.bin, "--no-tui", "-m", "qwen3:8b"], { cwd, env: { ...b.env, OLLAMA_HOST: fake.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.write("first\n");
    proc.stdin.flush();
    const deadline = Date.now() + 10_000;
    while (requestsSince(before).length < 1 && Date.now() < deadline) await Bun.sleep(20);
    await Bun.sleep(300); // the turn's answer finishes streaming
    writeFileSync(join(root, "AGENTS.md"), "PROJECT AGENTS v2 (edited)\n");
    proc.stdin.write("second\n");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);

    const [one, two] = requestsSince(before).map((q) => q.messages[0]!.content);
    expect(one).toContain("PROJECT AGENTS v1");
    expect(one).not.toContain("TOP-LEVEL AGENTS");
    expect(one).not.toContain("PROJECT CLAUDE");
    expect(one).toContain("PROJECT RULES");
    expect(one!.indexOf("PROJECT AGENTS v1")).toBeLessThan(one!.indexOf("USER AGENTS"));
    expect(two).toContain("PROJECT AGENTS v2 (edited)");
    expect(two).not.toContain("PROJECT AGENTS v1");

    // Without AGENTS.md the project's CLAUDE.md is used as it is.
    const noAgents = join(b.dir, "claude-only");
    mkdirSync(join(noAgents, ".git"), { recursive: true });
    writeFileSync(join(noAgents, "CLAUDE.md"), "CLAUDE ONLY PROJECT\n");
    const n = fake.chatRequests().length;
    expect((await runIn(noAgents, ["-p", "hi", "-m", "qwen3:8b"])).code).toBe(0);
    expect(requestsSince(n)[0]!.messages[0]!.content).toContain("CLAUDE ONLY PROJECT");
  }, 30_000);

  test("@path with an escaped space and CRLF content attaches the file; a huge file is cut with a notice", async () => {
    const dir = project("mentions");
    writeFileSync(join(dir, "my notes.txt"), "línea uno ✓\r\nline two\r\n");
    writeFileSync(join(dir, "big.log"), "x".repeat(200_000));
    const n = fake.chatRequests().length;
    const r = await runIn(dir, ["-p", "read @my\\ notes.txt and @big.log and @missing.txt please", "-m", "qwen3:8b"]);
    expect(r.code).toBe(0);
    const user = requestsSince(n)[0]!.messages.find((m) => m.role === "user")!.content;
    expect(user).toContain("línea uno ✓");
    expect(user.length).toBeLessThan(120_000);
    // Headless, what was not attached as written is said on stderr.
    expect(r.stderr).toContain("@big.log: attached the first");
    expect(r.stderr).toContain("@missing.txt: no such file");
  });
});

describe("issue 8: overflow recovery", () => {
  test("413 with a non-JSON body every time: up to 3 recovery attempts, then a clear message; stdout stays pure JSON", async () => {
    const dir = project("overflow");
    const tooLarge = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192 }], defaultReply: { status: 413, errorBody: "<html><body>413 Request Entity Too Large</body></html>", headers: { "content-type": "text/html" } } });
    try {
      const env = { OLLAMA_HOST: tooLarge.url, MAX_RETRIES: "0" };
      const r = await runIn(dir, ["-p", `summarize this: ${"data line\n".repeat(3000)}`, "-m", "qwen3:8b", "--output-format", "json"], env);
      expect(r.code).toBe(1);
      const sizes = tooLarge.chatRequests().map((q) => JSON.stringify(q.messages).length);
      expect(sizes.length).toBeGreaterThanOrEqual(2);
      expect(sizes.length).toBeLessThanOrEqual(4);
      for (let i = 1; i < sizes.length; i++) expect(sizes[i]!).toBeLessThan(sizes[i - 1]!);
      const result = JSON.parse(r.stdout) as { is_error: boolean; error: string };
      expect(result.is_error).toBe(true);
      expect(result.error).toContain("recovery attempts");

      // Text mode: the answer channel (stdout) is empty, the reason is on stderr.
      const t = await runIn(dir, ["-p", "hello", "-m", "qwen3:8b"], env);
      expect(t.code).toBe(1);
      expect(t.stdout).toBe("");
      expect(t.stderr).toContain("recovery attempts");
    } finally {
      tooLarge.stop();
    }
  });

  test("a plain-text 500 from a proxy in front of Ollama is reported on stderr only", async () => {
    const dir = project("proxy500");
    const proxy = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192 }], defaultReply: { status: 500, errorBody: "upstream exploded", headers: { "content-type": "text/plain" } } });
    try {
      const r = await runIn(dir, ["-p", "hello", "-m", "qwen3:8b"], { OLLAMA_HOST: proxy.url, MAX_RETRIES: "0" });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("upstream exploded");
    } finally {
      proxy.stop();
    }
  });
});

test("issue 10: no part of an API key reaches the session file or `chatcli sessions`, even when the title cuts it", async () => {
  const dir = project("secrets");
  const home = join(b.dir, "secret-home");
  const key = "sk-ant-api03-QA0123456789abcdefghijklmnop";
  const token = "tok-qa-987654321-very-secret";
  const env = { CHATCLI_HOME: home, ANTHROPIC_API_KEY: key, MY_SERVICE_TOKEN: token };
  // The token straddles the title's 80-character cut.
  const prompt = `please keep this for later, the deploy token for staging is ${token} and the key ${key}`;
  expect((await runIn(dir, ["-p", prompt, "-m", "qwen3:8b"], env)).code).toBe(0);
  const files = readdirSync(join(home, "sessions")).filter((f) => f.endsWith(".jsonl"));
  const text = readFileSync(join(home, "sessions", files[0]!), "utf8");
  const list = (await runIn(dir, ["sessions"], env)).stdout;
  for (const out of [text, list]) {
    expect(out).not.toContain("tok-qa-98");
    expect(out).not.toContain("QA0123456789");
  }
  expect(list).toContain("please keep this for later");
});

test.skipIf(!hasTmux())("issue 8: /compact that fails, and /compact cancelled with Esc, both leave the history as it was and say so", async () => {
  const dir = project("compact-fail");
  const turns = ["q1", "q2", "q3", "q4", "q5", "q6"];
  const own = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 8192 }],
    replies: [...turns.map((q) => ({ text: `answer to ${q}` })), { status: 500, errorBody: JSON.stringify({ error: "summarizer exploded" }) }, { text: "slow summary ".repeat(400), chunkCount: 400, chunkDelayMs: 25 }],
    defaultReply: { text: "after" },
  });
  const tmux = new Tmux(join(b.dir, "qa-compact.sock"), paneCommand(b, "-m qwen3:8b", { cwd: dir, env: { OLLAMA_HOST: own.url, MAX_RETRIES: "0" } }), 100, 30);
  const type = (text: string) => {
    tmux.sendLiteral(text);
    tmux.send("Enter");
  };
  try {
    await tmux.waitFor((s) => s.includes("Ask anything"));
    for (const q of turns) {
      type(q);
      await tmux.waitFor((s) => s.includes(`answer to ${q}`) && s.includes("Ask anything"));
    }
    type("/compact");
    await tmux.waitFor((s) => s.includes("Compaction failed") && s.includes("summarizer exploded") && s.includes("history is unchanged"));
    type("/compact");
    // The 8th request is the slow summary: cancel it while it streams (it would take 10 s).
    await tmux.waitFor(() => own.chatRequests().length >= 8);
    await Bun.sleep(300);
    tmux.send("Escape");
    await tmux.waitFor((s) => s.includes("Compaction cancelled; the history is unchanged."));
    const n = own.chatRequests().length;
    type("q7");
    await tmux.waitFor((s) => s.includes("after"));
    const sent = (own.chatRequests()[n] as unknown as ChatRequest).messages.map((m) => m.content);
    for (const q of turns) expect(sent).toContain(q);
    expect(sent.some((c) => c.includes("STRUCTURED SUMMARY") || c.includes("slow summary"))).toBe(false);
  } finally {
    tmux.kill();
    own.stop();
  }
}, 60_000);
