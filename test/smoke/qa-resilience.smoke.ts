// Independent QA pass on resilience and long sessions, against the compiled binary in a temp dir with an empty
// HOME: the provider going away and coming back, kill -9 mid-tool, odd model output (lone surrogates, thinking
// only, a 500 KB write), two chatcli processes in one project, tiny and resized terminals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from "../support/fake-ollama.ts";
import { runAt, hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";
import { withoutAnchor } from "../support/anchor-text.ts";

type WireMessage = { role: string; content: string; tool_calls?: Array<{ function: { name: string; arguments: unknown } }>; tool_name?: string };

let b: BinaryEnv;
beforeAll(() => {
  b = isolatedBinary();
});
afterAll(() => b.cleanup());

const MODELS = [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }];

function project(name: string): string {
  const dir = join(b.dir, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

function runIn(cwd: string, fake: FakeOllama, args: string[], env: Record<string, string> = {}) {
  return runAt(b, cwd, args, { OLLAMA_HOST: fake.url, ...env });
}

/** Every assistant tool call is answered by the tool messages right after it (what Ollama's chat template needs). */
function pairedOnTheWire(messages: WireMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i]!.tool_calls?.length ?? 0;
    for (let k = 1; k <= calls; k++) if (messages[i + k]?.role !== "tool") return false;
  }
  return true;
}

const sessionFiles = () => {
  const dir = join(b.env.CHATCLI_HOME!, "sessions");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")) : [];
};

describe("odd model output (headless)", () => {
  let fake: FakeOllama;
  beforeAll(() => {
    fake = startFakeOllama({ models: MODELS, defaultReply: { text: "ok" } });
  });
  afterAll(() => fake.stop());

  test("lone surrogates in the JSON stream: no crash, json output stays valid JSON, the next turn still works", async () => {
    const dir = project("surrogates");
    fake.enqueue({ rawLineFirst: '{"model":"qwen3:8b","message":{"role":"assistant","content":"lone \\ud800 high, \\udc00 low, pair \\ud83d\\ude00."},"done":false}', text: " end" });
    const r = await runIn(dir, fake, ["-p", "say it", "-m", "qwen3:8b", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { result: string };
    expect(out.result).toContain("pair 😀.");
    expect(out.result).toContain(" end");
    const again = await runIn(dir, fake, ["-p", "again", "--continue", "-m", "qwen3:8b"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("ok");
  });

  test("a model that sends only thinking: a notice, exit 0, and the session continues", async () => {
    const dir = project("thinking-only");
    fake.enqueue({ thinking: ["only thinking, ", "nothing else"], chunks: [] });
    const r = await runIn(dir, fake, ["-p", "think", "-m", "qwen3:8b"]);
    expect(r.code).toBe(0);
    const again = await runIn(dir, fake, ["-p", "and now?", "--continue", "-m", "qwen3:8b"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("ok");
  });

  test("a 500 KB native write: the file is written, and the next request fits the window again (the arguments are compacted)", async () => {
    const dir = project("big-write");
    const content = ("abcdefghij".repeat(10) + "\n").repeat(5_000);
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "big.txt", content } }], chunks: [] }, { text: "wrote it" });
    const before = fake.chatRequests().length;
    const r = await runIn(dir, fake, ["-p", "write a big file", "-m", "qwen3:8b", "--permission-mode", "bypass"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("wrote it");
    expect(readFileSync(join(dir, "big.txt"), "utf8")).toBe(content);
    const reqs = fake.chatRequests().slice(before) as Array<{ messages: WireMessage[] }>;
    expect(reqs).toHaveLength(2);
    const second = reqs[1]!.messages;
    expect(pairedOnTheWire(second)).toBe(true);
    // chars/4 of the serialized messages bounds their tokens: under the 32K window (it was ~130K before).
    expect(JSON.stringify(second).length / 4).toBeLessThan(32_768);
    const write = second.find((m) => m.tool_calls?.length)!.tool_calls![0]!.function;
    expect(write.name).toBe("write");
    expect((write.arguments as { path: string }).path).toBe("big.txt");
    // The resumed session carries the compacted history, not the 500 KB.
    const n = fake.chatRequests().length;
    const next = await runIn(dir, fake, ["-p", "next", "--continue", "-m", "qwen3:8b"]);
    expect(next.code).toBe(0);
    expect(JSON.stringify((fake.chatRequests()[n] as { messages: WireMessage[] }).messages).length / 4).toBeLessThan(32_768);
  }, 20_000);
});

describe.skipIf(!hasTmux())("resilience in the TUI", () => {
  test("the provider goes away mid-session and comes back on the same port: clear error, prompt kept, then it works without a restart; --continue headless too", async () => {
    const dir = project("provider-away");
    const opts: FakeOllamaOptions = { models: MODELS, defaultReply: { text: "first answer" } };
    let fake = startFakeOllama(opts);
    const port = fake.port;
    const env = { OLLAMA_HOST: fake.url, MAX_RETRIES: "0" };
    const tmux = new Tmux(join(b.home, "qa-res-1.sock"), paneCommand(b, "-m qwen3:8b", { cwd: dir, env }), 100, 30);
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("hello");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("first answer"));
      fake.stop();
      await Bun.sleep(100);
      tmux.sendLiteral("are you there");
      await Bun.sleep(100);
      tmux.send("Enter");
      const down = await tmux.waitFor((s) => s.includes("prompt is back in the input box"), 10_000);
      expect(down).toMatch(/│›? ?are you there/);
      fake = startFakeOllama({ ...opts, port, defaultReply: { text: "back again" } });
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("back again"), 10_000);
    } finally {
      tmux.kill();
    }
    try {
      const r = await runIn(dir, fake, ["-p", "still there?", "--continue", "-m", "qwen3:8b"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("back again");
      fake.stop();
      const off = await runIn(dir, fake, ["-p", "and now?", "--continue", "-m", "qwen3:8b"], { MAX_RETRIES: "0" });
      expect(off.code).toBe(1);
      expect(off.stderr).toContain(`Cannot reach Ollama at http://127.0.0.1:${port}`);
      fake = startFakeOllama({ ...opts, port, defaultReply: { text: "third time" } });
      const on = await runIn(dir, fake, ["-p", "and now?", "--continue", "-m", "qwen3:8b"]);
      expect(on.code).toBe(0);
      expect(on.stdout).toContain("third time");
    } finally {
      fake.stop();
    }
  }, 30_000);

  test("kill -9 mid-tool, then --continue: the transcript comes back and the next request has a result for every call", async () => {
    const dir = project("kill-mid-tool");
    const fake = startFakeOllama({ models: MODELS, defaultReply: { text: "carried on" } });
    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "echo started; sleep 20" } }], chunks: [] });
    const tmux = new Tmux(join(b.home, "qa-res-2.sock"), paneCommand(b, "-m qwen3:8b --permission-mode bypass", { cwd: dir, env: { OLLAMA_HOST: fake.url } }), 100, 30);
    try {
      await tmux.waitFor((s) => s.includes("Ask anything"));
      tmux.sendLiteral("run the long thing");
      tmux.send("Enter");
      await tmux.waitFor((s) => s.includes("started"));
      const shell = Number(tmux.display("#{pane_pid}"));
      const pids = Bun.spawnSync(["pgrep", "-P", String(shell)], { stdout: "pipe" }).stdout.toString().trim().split("\n").filter(Boolean).map(Number);
      for (const pid of pids) {
        // the chatcli child of the pane's shell; its `sleep 20` grandchild is orphaned and ends by itself
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("chatcli")) process.kill(pid, "SIGKILL");
      }
    } finally {
      tmux.kill();
    }
    const again = new Tmux(join(b.home, "qa-res-3.sock"), paneCommand(b, "-m qwen3:8b --continue", { cwd: dir, env: { OLLAMA_HOST: fake.url } }), 100, 30);
    try {
      const screen = await again.waitFor((s) => s.includes("Ask anything") && s.includes("run the long thing"));
      expect(screen).toContain("did not finish");
      const n = fake.chatRequests().length;
      again.sendLiteral("go on");
      again.send("Enter");
      await again.waitFor((s) => s.includes("carried on"));
      const messages = (fake.chatRequests()[n] as { messages: WireMessage[] }).messages;
      expect(pairedOnTheWire(messages)).toBe(true);
      expect(messages.some((m) => m.role === "tool")).toBe(true);
      expect(messages.filter((m) => m.role === "user").map((m) => withoutAnchor(m.content))).toContain("go on");
    } finally {
      again.kill();
      fake.stop();
    }
  }, 30_000);

  test("two chatcli processes in one project: separate session files and workspaces, both answer, both 'always' rules land in coder_policy.json", async () => {
    const dir = project("two-at-once");
    const tmp = join(b.home, "tmp-two");
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const fake = startFakeOllama({ models: MODELS, defaultReply: { text: "all done" } });
    const before = sessionFiles().length;
    const env = { OLLAMA_HOST: fake.url, TMPDIR: tmp };
    // Sandbox off: with it, `touch` inside the project needs no approval, and the 'always' answers are the point here.
    const one = new Tmux(join(b.home, "qa-res-4.sock"), paneCommand(b, "-m qwen3:8b --sandbox off", { cwd: dir, env }), 100, 30);
    const two = new Tmux(join(b.home, "qa-res-5.sock"), paneCommand(b, "-m qwen3:8b --sandbox off", { cwd: dir, env }), 100, 30);
    try {
      await one.waitFor((s) => s.includes("Ask anything"));
      await two.waitFor((s) => s.includes("Ask anything"));
      for (const [t, file] of [[one, "one.txt"], [two, "two.txt"]] as const) {
        fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: `touch ${file}` } }], chunks: [] });
        t.sendLiteral(`make ${file}`);
        t.send("Enter");
        await t.waitFor((s) => s.includes("[a] always"));
      }
      await Bun.sleep(400); // keys within the approval guard are ignored on purpose
      one.send("a");
      two.send("a");
      await one.waitFor((s) => s.includes("all done"));
      await two.waitFor((s) => s.includes("all done"));
      expect(existsSync(join(dir, "one.txt")) && existsSync(join(dir, "two.txt"))).toBe(true);
      expect(readdirSync(tmp).filter((n) => n.startsWith("chatcli-agent-"))).toHaveLength(2);
      const policy = JSON.parse(readFileSync(join(dir, ".chatcli", "coder_policy.json"), "utf8")) as { rules: Array<{ pattern: string; action: string }> };
      expect(policy.rules).toContainEqual({ pattern: "exec touch one.txt", action: "allow" });
      expect(policy.rules).toContainEqual({ pattern: "exec touch two.txt", action: "allow" });
      expect(sessionFiles().length - before).toBe(2);
    } finally {
      one.kill();
      two.kill();
      fake.stop();
    }
  }, 30_000);

  test("a 20×8 terminal and repeated resizes while streaming: no crash, the answer arrives, the prompt still takes input", async () => {
    const dir = project("tiny");
    const fake = startFakeOllama({ models: MODELS, defaultReply: { text: "done resizing" } });
    const lines = Array.from({ length: 300 }, (_, i) => `streamed line ${i} ${"wide ".repeat(i % 30)}`);
    fake.enqueue({ chunks: lines.map((l) => l + "\n"), chunkDelayMs: 5 });
    const tmux = new Tmux(join(b.home, "qa-res-6.sock"), paneCommand(b, "-m qwen3:8b", { cwd: dir, env: { OLLAMA_HOST: fake.url }, after: "echo EXITED=$?; sleep 30" }), 20, 8);
    try {
      await tmux.waitFor((s) => s.includes("›"));
      tmux.sendLiteral("stream a lot");
      tmux.send("Enter");
      const sizes = [[120, 40], [20, 8], [60, 12], [20, 8], [100, 30], [33, 9]] as const;
      for (let i = 0; i < 18; i++) {
        const [x, y] = sizes[i % sizes.length]!;
        Bun.spawnSync(["tmux", "-S", tmux.socket, "resize-window", "-t", tmux.name, "-x", String(x), "-y", String(y)]);
        await Bun.sleep(60);
      }
      Bun.spawnSync(["tmux", "-S", tmux.socket, "resize-window", "-t", tmux.name, "-x", "20", "-y", "8"]);
      await Bun.sleep(1_000);
      expect(tmux.capture()).not.toContain("EXITED=");
      tmux.sendLiteral("next");
      tmux.send("Enter");
      // At 20×8 the answer still shows (bottom of the transcript follows new output).
      await tmux.waitFor((s) => s.includes("done") && s.includes("resizing"), 10_000);
      expect(tmux.capture()).not.toContain("EXITED=");
      expect(fake.chatRequests().length).toBe(2);
    } finally {
      tmux.kill();
      fake.stop();
    }
  }, 30_000);
});
