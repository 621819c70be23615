// Hooks and plugins in the compiled binary, as a user runs it: a `.ts` plugin from a temp HOME loaded by Bun's
// runtime transpiler through the `chatcli/plugin` module the binary provides, its tool called end to end by the
// scripted model (fake Ollama); hooks firing headless and in the TUI (tmux); `chatcli hooks list|test|trust`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { HookScripts, hooksBlock } from "../support/hook-scripts.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let scripts: HookScripts;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };
const env = () => ({ OLLAMA_HOST: fake.url });
const settingsFile = () => join(b.home, ".chatcli", "settings.json");

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
  scripts = new HookScripts(join(b.dir, "..", "hookdir"));
  mkdirSync(join(b.home, ".chatcli", "plugins"), { recursive: true });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

describe("plugins (compiled binary)", () => {
  test("a .ts plugin in ~/.chatcli/plugins is loaded and the model calls its tool end to end", async () => {
    copyFileSync(join(import.meta.dir, "../../examples/plugins/line-count.ts"), join(b.home, ".chatcli", "plugins", "line-count.ts"));
    writeFileSync(join(b.dir, "five.txt"), "1\n2\n3\n4\n5\n");
    fake.enqueue({ toolCalls: [{ name: "line_count", arguments: { path: "five.txt" } }], chunks: [] }, { text: "five.txt has 5 lines." });
    const r = await run(b, ["-p", "how many lines in five.txt?", "--model", "coder:7b", "--permission-mode", "bypass", "--output-format", "stream-json"], env());
    expect(r.code).toBe(0);
    const first = fake.chatRequests().at(-2)!;
    expect((first.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain("line_count");
    const second = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    expect(second.find((m) => m.role === "tool")?.content).toContain("five.txt has 5 lines.");
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; name?: string; isError?: boolean });
    expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ name: "line_count", isError: false });
  });

  test("a plugin that throws at load is named in a warning; the run goes on", async () => {
    writeFileSync(join(b.home, ".chatcli", "plugins", "zz-broken.ts"), `throw new Error("broken on purpose");\n`);
    fake.enqueue({ text: "fine" });
    const r = await run(b, ["-p", "hi", "--model", "coder:7b"], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("fine");
    expect(r.stderr).toContain("zz-broken");
    expect(r.stderr).toContain("broken on purpose");
  });
});

test("a plugin's provider (the built-ins' provider contract) can be the one chosen with --provider", async () => {
  writeFileSync(
    join(b.home, ".chatcli", "plugins", "echo-provider.ts"),
    `import { definePlugin } from "chatcli/plugin";
const provider = {
  id: "ECHOPLUG", displayName: "Echo plugin", envKeys: [], needsAuth: false, defaultModel: "echo-1", baseUrlEnv: "ECHOPLUG_BASE_URL", defaultBaseUrl: "http://unused",
  capabilities: { streaming: true, nativeTools: false, images: false, promptCaching: false, local: true },
  create: () => ({
    id: "ECHOPLUG",
    listModels: async () => [{ id: "echo-1", contextWindow: 8192, supportsTools: false }],
    modelInfo: async (id) => ({ id, contextWindow: 8192, supportsTools: false }),
    async *stream(request) {
      const last = request.messages.filter((m) => m.role === "user").at(-1);
      yield { type: "text_delta", text: "plugin provider heard: " + String(last?.content ?? "").split("\\n")[0] };
      yield { type: "usage", usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 } };
      yield { type: "done", stopReason: "stop" };
    },
  }),
};
export default definePlugin({ name: "echo-provider", providers: [provider] });
`,
  );
  const r = await run(b, ["-p", "ping", "--provider", "ECHOPLUG", "--model", "echo-1"], env());
  expect(r.stderr).not.toContain("unknown");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("plugin provider heard: ping");
});

describe("hooks (compiled binary)", () => {
  test("headless: SessionStart, UserPromptSubmit, PreToolUse (exit 2 blocks the write), PostToolUse, Stop and SessionEnd fire", async () => {
    writeFileSync(
      settingsFile(),
      JSON.stringify({
        hooks: hooksBlock([
          { event: "SessionStart", command: scripts.command("h-start", {}) },
          { event: "UserPromptSubmit", command: scripts.command("h-ups", {}) },
          { event: "PreToolUse", matcher: "Write|Edit", command: scripts.command("h-pre", { stderr: "no writes from the binary", exit: 2 }) },
          { event: "PostToolUse", command: scripts.command("h-post", {}) },
          { event: "Stop", command: scripts.command("h-stop", {}) },
          { event: "SessionEnd", command: scripts.command("h-end", {}) },
        ]),
      }),
    );
    fake.enqueue(
      { toolCalls: [{ name: "write", arguments: { path: "blocked.txt", content: "x" } }, { name: "read", arguments: { path: "five.txt" } }], chunks: [] },
      { text: "The write was blocked." },
    );
    const r = await run(b, ["-p", "write blocked.txt", "--model", "coder:7b", "--permission-mode", "bypass"], env());
    expect(r.code).toBe(0);
    expect(existsSync(join(b.dir, "blocked.txt"))).toBe(false);
    const toolMsgs = (fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool");
    expect(toolMsgs[0]?.content).toContain("no writes from the binary");
    expect(scripts.inputs("h-start")[0]).toMatchObject({ source: "startup", hook_event_name: "SessionStart" });
    expect(scripts.inputs("h-ups")[0]).toMatchObject({ prompt: "write blocked.txt" });
    expect(scripts.inputs("h-pre")[0]).toMatchObject({ tool_name: "write", tool_input: { path: "blocked.txt" } });
    expect(scripts.inputs("h-post").map((i) => i.tool_name)).toEqual(["read"]);
    expect(scripts.inputs("h-stop")).toHaveLength(1);
    expect(scripts.inputs("h-end")[0]).toMatchObject({ reason: "other" });
  });

  test("chatcli hooks list / test / trust", async () => {
    writeFileSync(settingsFile(), JSON.stringify({ hooks: hooksBlock([{ event: "PreToolUse", matcher: "exec", command: scripts.command("t-deny", { stdout: { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "no shell today" } } }) }]) }));
    const list = await run(b, ["hooks", "list"], env());
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("PreToolUse");
    expect(list.stdout).toContain("t-deny.sh");
    const tested = await run(b, ["hooks", "test", "PreToolUse", "--tool", "bash", "--input", JSON.stringify({ command: "ls" })], env());
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain("no shell today");
    expect(tested.stdout).toContain("Combined decision: deny");
    expect(scripts.inputs("t-deny")[0]).toMatchObject({ tool_name: "exec", tool_input: { command: "ls" } });
    const bad = await run(b, ["hooks", "test", "NoSuchEvent"], env());
    expect(bad.code).toBe(2);
    // A project hook: untrusted (listed as skipped, a headless run skips it with a notice), then trusted.
    mkdirSync(join(b.dir, ".chatcli"), { recursive: true });
    writeFileSync(join(b.dir, ".chatcli", "settings.json"), JSON.stringify({ hooks: hooksBlock([{ event: "UserPromptSubmit", command: scripts.command("p-ups", {}) }]) }));
    expect((await run(b, ["hooks", "list"], env())).stdout).toContain("NOT trusted");
    fake.enqueue({ text: "ok" });
    const skipped = await run(b, ["-p", "hello", "--model", "coder:7b"], env());
    expect(skipped.stderr).toContain("chatcli hooks trust");
    expect(scripts.inputs("p-ups")).toHaveLength(0);
    const trusted = await run(b, ["hooks", "trust"], env());
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("p-ups.sh");
    fake.enqueue({ text: "ok" });
    await run(b, ["-p", "hello again", "--model", "coder:7b"], env());
    expect(scripts.inputs("p-ups").map((i) => i.prompt)).toEqual(["hello again"]);
    writeFileSync(join(b.dir, ".chatcli", "settings.json"), "{}");
    writeFileSync(settingsFile(), "{}");
  });
});

describe.skipIf(!hasTmux())("hooks in the TUI (compiled binary in tmux)", () => {
  test("SessionStart fires when the TUI starts; a hook failure is shown on screen; /plugins lists plugins; SessionEnd fires at exit", async () => {
    copyFileSync(join(import.meta.dir, "../../examples/plugins/line-count.ts"), join(b.home, ".chatcli", "plugins", "line-count.ts"));
    writeFileSync(join(b.home, ".chatcli", "plugins", "zz-broken.ts"), `throw new Error("broken on purpose");\n`);
    writeFileSync(
      settingsFile(),
      JSON.stringify({
        hooks: hooksBlock([
          { event: "SessionStart", command: scripts.command("tui-start", {}) },
          { event: "UserPromptSubmit", command: scripts.command("tui-ups", { stderr: "ups hook crashed", exit: 1 }) },
          { event: "SessionEnd", command: scripts.command("tui-end", {}) },
        ]),
      }),
    );
    fake.enqueue({ text: "hello from the model" });
    const t = new Tmux(join(b.dir, "..", `tmux-hooks-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, "--model coder:7b", { env: env() }), 100, 30);
    try {
      await t.waitFor((s) => s.includes("Ask anything"));
      for (let i = 0; i < 100 && scripts.inputs("tui-start").length === 0; i++) await Bun.sleep(50);
      expect(scripts.inputs("tui-start")[0]).toMatchObject({ source: "startup" });
      t.sendLiteral("hi there");
      t.send("Enter");
      const screen = await t.waitFor((s) => s.includes("hello from the model"));
      expect(screen).toContain("ups hook crashed");
      // /plugins lists the loaded plugins, their tools and the load errors.
      t.sendLiteral("/plugins");
      t.send("Enter");
      const listed = await t.waitFor((s) => s.includes("line_count") && s.includes("broken on purpose"));
      expect(listed).toContain("line-count 1.0.0");
      t.send("C-d");
      for (let i = 0; i < 100 && scripts.inputs("tui-end").length === 0; i++) await Bun.sleep(50);
      expect(scripts.inputs("tui-end")[0]).toMatchObject({ reason: "prompt_input_exit" });
    } finally {
      t.kill();
      writeFileSync(settingsFile(), "{}");
    }
  }, 30_000);
});

test("the settings hooks block survives a round trip of the file (sanity of the fixture)", () => {
  expect(existsSync(settingsFile())).toBe(true);
  expect(readFileSync(settingsFile(), "utf8")).toBe("{}");
});
