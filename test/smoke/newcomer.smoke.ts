// Issue 15 (items 11): what a newcomer hits on the command line of the compiled binary — usage errors, settings
// errors, a wrong OLLAMA_HOST, the --max-turns note, a terminal hang-up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const coder = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [coder], defaultReply: { text: "Hello there.", chunkCount: 2 } });
});
afterAll(() => {
  fake?.stop();
  b?.cleanup();
});

describe("usage and settings errors (compiled binary)", () => {
  test("--rewind without --resume/--continue: exit 2 naming the flags it needs, nothing sent to the model", async () => {
    const before = fake.chatRequests().length;
    for (const args of [["--rewind", "1"], ["-p", "hi", "--rewind", "1"]]) {
      const r = await run(b, args, { OLLAMA_HOST: fake.url });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--resume");
      expect(r.stderr).toContain("--continue");
    }
    const pt = await run(b, ["--rewind", "1"], { OLLAMA_HOST: fake.url, CHATCLI_LANG: "pt-BR" });
    expect(pt.code).toBe(2);
    expect(pt.stderr).toContain("precisa de --resume");
    expect(fake.chatRequests().length).toBe(before);
  });

  test("settings: every bad key in one message; broken JSON with line and column", async () => {
    const dir = join(b.dir, ".chatcli");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "settings.json");
    try {
      writeFileSync(file, JSON.stringify({ contextWindow: "big", permissionMode: "yolo", ui: { mode: "tiny" } }, null, 2));
      const bad = await run(b, ["-p", "hi"], { OLLAMA_HOST: fake.url });
      expect(bad.code).toBe(2);
      for (const key of ['"contextWindow"', '"permissionMode"', '"ui.mode"']) expect(bad.stderr).toContain(key);
      writeFileSync(file, '{\n  "model": "coder:7b"\n  "provider": "ollama"\n}\n');
      const broken = await run(b, ["-p", "hi"], { OLLAMA_HOST: fake.url });
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain(file);
      expect(broken.stderr).toContain("line 3, column 3");
    } finally {
      writeFileSync(file, "{}");
    }
  });
});

describe("OLLAMA_HOST that cannot work (compiled binary)", () => {
  test("a malformed value is quoted back, exit 2", async () => {
    for (const value of ["http://[broken", "ht!tp://a b"]) {
      const r = await run(b, ["-p", "hi"], { OLLAMA_HOST: value });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`OLLAMA_HOST="${value}"`);
      expect(r.stderr).not.toContain("Invalid URL");
    }
  });

  test("a server that answers but is not Ollama is called that, not quoted", async () => {
    const pages: Array<{ body: string; status: number }> = [
      { body: "<html><body>Welcome to nginx</body></html>", status: 404 },
      { body: "OK", status: 200 },
    ];
    for (const page of pages) {
      const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page.body, { status: page.status }) });
      try {
        for (const args of [["-p", "hi"], ["-p", "hi", "-m", "coder:7b"], ["models"]]) {
          const r = await run(b, args, { OLLAMA_HOST: `127.0.0.1:${server.port}` });
          expect(r.code).toBe(1);
          expect(r.stderr).toContain(`http://127.0.0.1:${server.port}`);
          expect(r.stderr).toContain("not Ollama");
          expect(r.stderr).not.toContain("<html>");
        }
      } finally {
        server.stop(true);
      }
    }
  });
});

describe("plain words (compiled binary)", () => {
  test("--max-turns stopping says what happened and what to do, without jargon", async () => {
    for (let i = 0; i < 2; i++) fake.enqueue({ toolCalls: [{ name: "glob", arguments: { pattern: `*${i}` } }], chunks: [] });
    const r = await run(b, ["-p", "loop", "--model", "coder:7b", "--max-turns", "2"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Stopped after 2 steps");
    expect(r.stderr).toContain("--max-turns");
    expect(r.stderr).not.toMatch(/infinite loop|max_turns/);
  });
});

describe("text meant for the model stays with the model (compiled binary)", () => {
  test("-p: a denied write reads 'Denied: write app.txt' on stderr; the model got its instructions", async () => {
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "app.txt", content: "x" } }], chunks: [] }, { text: "Could not write it." });
    const r = await run(b, ["-p", "create app.txt", "--model", "coder:7b"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("✗ Denied: write app.txt");
    expect(r.stderr).not.toMatch(/Do not retry|continue with anoth/);
    const sent = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    expect(sent.find((m) => m.role === "tool")?.content).toContain("Do not retry");
  });
});

describe.skipIf(!hasTmux())("overlays in a real terminal (compiled binary, tmux)", () => {
  for (const mode of ["", "--inline"]) {
    test(`/model ${mode || "full screen"}: the picker is drawn whole, over nothing, and Esc gives the keys back`, async () => {
      const models = startFakeOllama({ models: [coder, { name: "other:1b", contextLength: 8192, capabilities: ["completion"] }, { name: "third:2b", contextLength: 8192, capabilities: ["completion"] }], defaultReply: { text: Array.from({ length: 30 }, (_, i) => `ZZZZ ${i} ${"Z".repeat(70)}`).join("\n\n"), chunkCount: 4 } });
      const tmux = new Tmux(join(b.dir, `pick${mode}.sock`), paneCommand(b, `--model coder:7b ${mode}`, { env: { OLLAMA_HOST: models.url } }), 100, 30);
      try {
        await tmux.waitFor((s) => s.includes("Ask anything"));
        tmux.sendLiteral("hello");
        tmux.send("Enter");
        await tmux.waitFor((s) => s.includes("ZZZZ 29"));
        tmux.sendLiteral("/model");
        await Bun.sleep(200);
        tmux.send("Enter");
        const screen = await tmux.waitFor((s) => s.includes("OLLAMA:third:2b") && s.includes("╰"));
        const lines = screen.split("\n");
        const top = lines.findIndex((l) => l.includes("─ Model"));
        const bottom = lines.findIndex((l, i) => i > top && l.startsWith("╰"));
        expect(top).toBeGreaterThanOrEqual(0);
        expect(bottom - top + 1).toBe(5); // three models and the border
        for (const l of lines.slice(top, bottom + 1)) expect(l).not.toContain("Z");
        for (const m of ["OLLAMA:coder:7b", "OLLAMA:other:1b", "OLLAMA:third:2b"]) expect(screen).toContain(m);
        tmux.send("Escape");
        await tmux.waitFor((s) => !s.includes("─ Model"));
        tmux.sendLiteral("typed after");
        await tmux.waitFor((s) => s.includes("› typed after") || s.includes("›typed after"));
      } finally {
        tmux.kill();
        models.stop();
      }
    }, 30_000);
  }
});

describe.skipIf(!hasTmux())("terminal hang-up (compiled binary, tmux)", () => {
  test("closing the terminal (SIGHUP, then a dead tty) logs one line about it, no raw-mode error or stack trace", async () => {
    const logs = join(b.env.CHATCLI_HOME!, "logs");
    const logText = () => (existsSync(logs) ? readdirSync(logs).map((f) => readFileSync(join(logs, f), "utf8")).join("\n") : "");
    const before = logText().length;
    const tmux = new Tmux(join(b.dir, "hup.sock"), paneCommand(b, "", { env: { OLLAMA_HOST: fake.url }, after: "true" }));
    try {
      await tmux.waitFor((s) => s.includes("Ask anything") && s.includes("coder:7b"));
      const shell = tmux.display("#{pane_pid}");
      const pid = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/)[0]);
      tmux.kill(); // the pane's pty closes: the kernel sends SIGHUP and the tty answers EIO from now on
      const end = Date.now() + 8000;
      while (existsSync(`/proc/${pid}`) && Date.now() < end) await Bun.sleep(50);
      expect(existsSync(`/proc/${pid}`)).toBe(false);
      await Bun.sleep(100);
      const added = logText().slice(before);
      expect(added).toMatch(/hang-up|SIGHUP/);
      expect(added).not.toContain("setRawMode");
      expect(added).not.toMatch(/\n\s+at /);
    } finally {
      tmux.kill();
    }
  });
});
