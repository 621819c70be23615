// Issue 25 (daily-driver parity, part a) in the compiled binary, headless: the todo tool's stream-json event and
// its survival across --resume and compaction, `-p "!cmd"` (sandboxed, no model call), and --max-budget-usd.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { startFakeSse } from "../support/fake-sse-servers.ts";
import { isolatedBinary, runAt, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
beforeAll(() => {
  b = isolatedBinary();
});
afterAll(() => b.cleanup());

let n = 0;
function project(): string {
  const dir = join(b.dir, `p${++n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "hello.txt"), "hello from the project\n");
  return dir;
}
const events = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
const TODOS = [
  { content: "Read the config loader", status: "done" },
  { content: "Add the budget flag", status: "in_progress" },
  { content: "Write the tests", status: "pending" },
];

describe("todo tool (compiled binary)", () => {
  let fake: FakeOllama;
  beforeAll(() => {
    fake = startFakeOllama({
      models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }],
      replies: [{ toolCalls: [{ name: "todo", arguments: { todos: TODOS } }] }, { text: "Plan written.", chunkCount: 2 }],
      defaultReply: { text: "Still on it." },
    });
  });
  afterAll(() => fake.stop());

  test("stream-json carries todo.updated with the whole list; no approval asked; --resume keeps sending it", async () => {
    const dir = project();
    const env = { OLLAMA_HOST: fake.url };
    const r = await runAt(b, dir, ["-p", "plan the work", "--model", "qwen3:8b", "--output-format", "stream-json"], env);
    expect(r.code).toBe(0);
    const ev = events(r.stdout);
    const update = ev.find((e) => e.type === "todo.updated");
    expect(update?.items).toEqual(TODOS);
    expect(ev.some((e) => e.type === "approval.requested")).toBe(false);
    // After the tool's own completion, before the turn ends.
    const types = ev.map((e) => e.type);
    expect(types.indexOf("todo.updated")).toBeGreaterThan(types.indexOf("tool.completed"));
    expect(types.indexOf("todo.updated")).toBeLessThan(types.indexOf("turn.completed"));
    // The system prompt tells the model about it; the tool is advertised.
    const first = fake.requests.find((q) => q.path === "/api/chat")?.body as { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };
    expect(first.messages[0]?.content).toContain("`todo` tool");
    expect(first.tools?.map((t) => t.function.name)).toContain("todo");

    // Resumed: the open list goes with every request, verbatim.
    const id = readdirSync(join(b.env.CHATCLI_HOME!, "sessions")).find((f) => !f.endsWith(".json"))!.replace(/\.jsonl$/, "");
    const before = fake.requests.length;
    const again = await runAt(b, dir, ["--resume", id, "-p", "go on", "--model", "qwen3:8b", "--output-format", "stream-json"], env);
    expect(again.code).toBe(0);
    const sent = JSON.stringify(fake.requests.slice(before).filter((q) => q.path === "/api/chat").at(-1)?.body);
    expect(sent).toContain("[x] Read the config loader");
    expect(sent).toContain("[~] Add the budget flag");
    expect(sent).toContain("[ ] Write the tests");
  }, 60_000);
});

describe("`!` shell passthrough, headless (compiled binary)", () => {
  test('-p "!cat hello.txt": the output on stdout, exit 0, no model request', async () => {
    const fake = startFakeOllama({ models: [{ name: "qwen3:8b", capabilities: ["completion", "tools"] }], defaultReply: { text: "should not be asked" } });
    try {
      const dir = project();
      const r = await runAt(b, dir, ["-p", "!cat hello.txt", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
      expect(r.stdout).toContain("hello from the project");
      expect(r.code).toBe(0);
      expect(fake.requests.filter((q) => q.path === "/api/chat")).toHaveLength(0);
      const failing = await runAt(b, dir, ["-p", "!cat missing.txt", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
      expect(failing.code).toBe(1);
      const bare = await runAt(b, dir, ["-p", "!", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
      expect(bare.code).toBe(2);
      const json = await runAt(b, dir, ["-p", "!echo hi there", "--model", "qwen3:8b", "--output-format", "stream-json"], { OLLAMA_HOST: fake.url });
      const ev = events(json.stdout);
      expect(ev.find((e) => e.type === "turn.started")?.input).toBe("!echo hi there");
      expect(ev.find((e) => e.type === "tool.completed")?.result).toContain("hi there");
      expect(ev.find((e) => e.type === "turn.completed")?.stopReason).toBe("shell");
    } finally {
      fake.stop();
    }
  }, 60_000);

  test("no provider is needed; a dangerous command is refused though the user typed it; a protected path is not written unapproved", async () => {
    const dir = project();
    // Nothing listens on port 9: the command still runs (no model call).
    const noServer = { OLLAMA_HOST: "http://127.0.0.1:9" };
    const echo = await runAt(b, dir, ["-p", "!echo runs without a model"], noServer);
    expect(echo.stdout).toContain("runs without a model");
    expect(echo.code).toBe(0);
    const r = await runAt(b, dir, ["-p", "!rm -rf ~", "--output-format", "stream-json"], noServer);
    expect(r.code).toBe(1);
    const done = events(r.stdout).find((e) => e.type === "tool.completed");
    expect(done?.errorCode).toBe("permission_denied");
    const p = await runAt(b, dir, ["-p", "!echo 'alias ls=rm' >> ~/.bashrc"], noServer);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain(".bashrc");
    expect(await Bun.file(join(b.home, ".bashrc")).exists()).toBe(false);
  }, 30_000);
});

describe("--max-budget-usd (compiled binary)", () => {
  const openai = (url: string) => ({ OPENAI_API_KEY: "sk-test-123456789", OPENAI_BASE_URL: `${url}/v1` });

  test("a request over the limit is not sent: a clear message, exit 3; within the limit the run works", async () => {
    const sse = startFakeSse({ defaultReply: { fixture: "openai-text.sse" } });
    try {
      const dir = project();
      const args = ["-p", "hi", "--provider", "openai", "--model", "gpt-4o"];
      const over = await runAt(b, dir, [...args, "--max-budget-usd", "0.0001"], openai(sse.url));
      expect(over.code).toBe(3);
      expect(over.stderr).toContain("Budget limit reached");
      expect(sse.streamBodies()).toHaveLength(0);
      const json = await runAt(b, dir, [...args, "--max-budget-usd", "0.0001", "--output-format", "json"], openai(sse.url));
      expect(json.code).toBe(3);
      expect((JSON.parse(json.stdout) as { stopReason: string }).stopReason).toBe("budget");
      const ok = await runAt(b, dir, [...args, "--max-budget-usd", "5"], openai(sse.url));
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("Hello, world!");
      // The settings key, and a bad flag value.
      mkdirSync(join(dir, ".chatcli"), { recursive: true });
      writeFileSync(join(dir, ".chatcli", "settings.json"), JSON.stringify({ maxBudgetUsd: 0.0001 }));
      const bySettings = await runAt(b, dir, args, openai(sse.url));
      expect(bySettings.code).toBe(3);
      const bad = await runAt(b, dir, [...args, "--max-budget-usd", "-1"], openai(sse.url));
      expect(bad.code).toBe(2);
    } finally {
      sse.stop();
    }
  }, 60_000);
});

describe("plain mode (--no-tui, compiled binary)", () => {
  test("`!cmd` prints its output; /help lists the new commands and `!`; /todo and /diff answer", async () => {
    const fake = startFakeOllama({ models: [{ name: "qwen3:8b", capabilities: ["completion", "tools"] }], defaultReply: { text: "fine" } });
    try {
      const dir = project();
      const r = await runAt(b, dir, ["--no-tui", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url }, "!echo plain-hi\n/help\n/todo\n/diff\n");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("plain-hi");
      for (const s of ["/diff", "/undo", "/init", "/todo", "!cmd"]) expect(r.stdout).toContain(s);
      expect(r.stdout).toContain("No todo list yet.");
      expect(r.stdout).toContain("No file changed in this session.");
      expect(fake.requests.filter((q) => q.path === "/api/chat")).toHaveLength(0);
    } finally {
      fake.stop();
    }
  }, 30_000);
});
