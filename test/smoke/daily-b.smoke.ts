// Issue 25 (images, web fetch, --offline, theme, vim) in the compiled binary: headless runs against the fake
// Ollama (the requests it received are the proof), the fetch tool against a local HTTP server, and the TUI in tmux
// (palette escapes read back with `capture-pane -e`, vim's NORMAL/INSERT in the status line).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { makePng } from "../support/png.ts";

let b: BinaryEnv;
let ollama: FakeOllama;
let web: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  b = isolatedBinary();
  ollama = startFakeOllama({
    models: [
      { name: "llava:7b", contextLength: 8192, capabilities: ["completion", "tools", "vision"] },
      { name: "qwen3:8b", contextLength: 8192, capabilities: ["completion", "tools"] },
    ],
    defaultReply: { text: "done" },
  });
  web = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("<html><head><title>Local docs</title></head><body><h1>Setup</h1><p>Run the thing.</p></body></html>", { headers: { "content-type": "text/html" } }),
  });
  writeFileSync(join(b.dir, "shot.png"), makePng(3000, 1200));
});
afterAll(() => {
  ollama.stop();
  web.stop(true);
  b.cleanup();
});

const env = () => ({ OLLAMA_HOST: `:${ollama.port}` });
type ChatMessage = { role: string; content: string; images?: string[]; tool_name?: string };
const lastChat = () => ollama.chatRequests().at(-1) as { messages: ChatMessage[]; tools?: Array<{ function: { name: string } }> };

describe("images (headless)", () => {
  test("@shot.png reaches a vision model scaled down to 2000 px on the long side", async () => {
    const r = await run(b, ["-p", "what is in @shot.png?", "--model", "llava:7b"], env());
    expect(r.code).toBe(0);
    const user = lastChat().messages.findLast((m) => m.role === "user")!;
    expect(user.images).toHaveLength(1);
    expect(await new Bun.Image(Buffer.from(user.images![0]!, "base64")).metadata()).toEqual({ width: 2000, height: 800, format: "png" });
  }, 30_000);

  test("a text-only model: nothing sent, and the user is told", async () => {
    const r = await run(b, ["-p", "what is in @shot.png?", "--model", "qwen3:8b"], env());
    expect(r.code).toBe(0);
    expect(r.stderr + r.stdout).toContain("cannot see images");
    expect(lastChat().messages.findLast((m) => m.role === "user")!.images).toBeUndefined();
  }, 30_000);
});

describe("fetch tool and --offline (headless)", () => {
  const fetchCall = () => ollama.enqueue({ toolCalls: [{ name: "fetch", arguments: { url: `http://127.0.0.1:${web.port}/docs` } }] }, { text: "read it" });
  const toolResult = () => lastChat().messages.findLast((m) => m.role === "tool")?.content ?? "";

  test("loopback is refused by default", async () => {
    fetchCall();
    const r = await run(b, ["-p", "read the docs", "--model", "qwen3:8b", "--permission-mode", "bypass"], env());
    expect(r.code).toBe(0);
    expect(toolResult()).toContain("Refused");
    expect(toolResult()).toContain("allowPrivateNetworks");
  }, 30_000);

  test("allowed with webFetch.allowPrivateNetworks in the user's settings: HTML as Markdown", async () => {
    mkdirSync(b.env.CHATCLI_HOME!, { recursive: true });
    writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), JSON.stringify({ webFetch: { allowPrivateNetworks: true } }));
    try {
      fetchCall();
      const r = await run(b, ["-p", "read the docs", "--model", "qwen3:8b", "--permission-mode", "bypass"], env());
      expect(r.code).toBe(0);
      expect(toolResult()).toContain("Title: Local docs");
      expect(toolResult()).toContain("# Setup");
    } finally {
      writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), "{}");
    }
  }, 30_000);

  test("--offline and webFetch:false: the model is not offered the tool; update refuses", async () => {
    await run(b, ["-p", "hi", "--model", "qwen3:8b"], env());
    expect(lastChat().tools?.map((t) => t.function.name)).toContain("fetch");
    await run(b, ["-p", "hi", "--model", "qwen3:8b", "--offline"], env());
    expect(lastChat().tools?.map((t) => t.function.name)).not.toContain("fetch");
    writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), JSON.stringify({ webFetch: false }));
    try {
      await run(b, ["-p", "hi", "--model", "qwen3:8b"], env());
      expect(lastChat().tools?.map((t) => t.function.name)).not.toContain("fetch");
    } finally {
      writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), "{}");
    }
    const u = await run(b, ["update", "--offline"], env());
    expect(u.code).toBe(2);
    expect(u.stderr).toContain("--offline");
  }, 60_000);
});

test("NO_COLOR: headless, plain and subcommand output carries no escape codes", async () => {
  const outs = [
    await run(b, ["-p", "hi", "--model", "qwen3:8b"], { ...env(), NO_COLOR: "1" }),
    await run(b, ["--no-tui", "--model", "qwen3:8b"], { ...env(), NO_COLOR: "1" }, "hello\n/exit\n"),
    await run(b, ["providers"], { ...env(), NO_COLOR: "1" }),
    await run(b, ["--help"], { NO_COLOR: "1" }),
  ];
  for (const o of outs) {
    expect(o.code).toBe(0);
    expect(o.stdout + o.stderr).not.toContain("\x1b");
  }
  expect(outs[1]!.stdout).toContain("done");
}, 60_000);

describe.skipIf(!hasTmux())("theme and vim (TUI in tmux)", () => {
  const sock = () => join(b.dir, "..", `tmux-db-${Math.random().toString(36).slice(2, 8)}.sock`);
  const captureEscapes = (t: Tmux) => Bun.spawnSync(["tmux", "-S", t.socket, "capture-pane", "-e", "-p", "-t", t.name], { stdout: "pipe" }).stdout.toString();
  const status = (s: string) => s.trimEnd().split("\n").at(-1) ?? "";

  test("a light background (the terminal answers OSC 11) gets the light palette; NO_COLOR gets no colour at all", async () => {
    const socket = sock();
    // The pane's background is white (set before chatcli starts): tmux answers the OSC 11 query with it.
    const t = new Tmux(socket, `sleep 0.5; ${paneCommand(b, "--model qwen3:8b", { env: env() })}`, 100, 24);
    Bun.spawnSync(["tmux", "-S", socket, "set", "-g", "window-style", "bg=#ffffff"]);
    try {
      await t.waitFor((s) => s.includes("qwen3:8b"));
      // The light palette's dim text (#57606a) draws the status line: as truecolor, or as tmux's nearest of 256 (59).
      await t.waitFor(() => /38;2;87;96;106m|38;5;59mOLLAMA/.test(captureEscapes(t)));
    } finally {
      t.kill();
    }
    const mono = new Tmux(sock(), paneCommand(b, "--model qwen3:8b", { env: { ...env(), NO_COLOR: "1" } }), 100, 24);
    try {
      await mono.waitFor((s) => s.includes("qwen3:8b"));
      await Bun.sleep(300);
      // No visible character is coloured (blank cells may keep the renderer's clear colour: nothing to see).
      const screen = captureEscapes(mono);
      expect(screen).toContain("qwen3:8b");
      expect(screen).not.toMatch(/\x1b\[[0-9;]*[34]8;[25];[0-9;]*m[^\x1b\s]/);
    } finally {
      mono.kill();
    }
  }, 30_000);

  test('"editor": {"vim": true}: INSERT, Esc → NORMAL in the status line, dd clears, u brings it back, /vim turns it off', async () => {
    writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), JSON.stringify({ editor: { vim: true } }));
    const t = new Tmux(sock(), paneCommand(b, "--model qwen3:8b", { env: env() }), 100, 24);
    try {
      await t.waitFor((s) => status(s).includes("INSERT"));
      t.sendLiteral("hello vim world");
      t.send("Escape");
      await t.waitFor((s) => status(s).includes("NORMAL"));
      t.sendLiteral("dd");
      await t.waitFor((s) => !s.includes("hello vim world"));
      t.sendLiteral("u");
      await t.waitFor((s) => s.includes("hello vim world"));
      t.sendLiteral("0wcw");
      t.sendLiteral("big");
      await t.waitFor((s) => s.includes("hello big world") && status(s).includes("INSERT"));
      t.send("Escape");
      await t.waitFor((s) => status(s).includes("NORMAL"));
      t.send("Enter");
      await t.waitFor((s) => s.includes("done") && status(s).includes("INSERT"));
      t.sendLiteral("/vim");
      t.send("Enter");
      await t.waitFor((s) => s.includes("Vim mode off") && !status(s).includes("INSERT"));
    } finally {
      t.kill();
      writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), "{}");
    }
  }, 40_000);
});
