// Issue 2 through the compiled binary, the way a user runs it: num_ctx on every request, project files that
// must not change the binary (bunfig preload, .env autoload), settings errors without stack traces, a closed
// stdout, the first installed model announced, unknown models, and --no-tui answering every input line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { runAt, hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const STACK = /^\s+at .+[:(]/m;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "first:1b", contextLength: 4096, capabilities: ["completion", "tools"] }, { name: "second:2b", contextLength: 16384, capabilities: ["completion", "tools"] }],
    defaultReply: { text: "Plain answer.", chunkCount: 3 },
  });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

function projectDir(name: string): string {
  const d = join(b.dir, name);
  mkdirSync(join(d, ".git"), { recursive: true });
  return d;
}

function runIn(cwd: string, args: string[], env: Record<string, string> = {}, stdin?: string) {
  return runAt(b, cwd, args, { OLLAMA_HOST: fake.url, ...env }, stdin);
}

function sessionModel(stdout: string): string | undefined {
  const first = stdout.split("\n").find((l) => l.includes('"session.started"'));
  return first ? (JSON.parse(first) as { model?: string }).model : undefined;
}

describe("compiled binary: foundation", () => {
  test("no model chosen: the first installed one is used and named on stderr", async () => {
    const r = await run(b, ["-p", "hi"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Plain answer.\n");
    expect(r.stderr).toContain("first:1b");
  });

  test("an unknown model lists the installed ones, exit 1", async () => {
    const r = await run(b, ["-p", "hi", "--model", "missing:7b"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("missing:7b");
    expect(r.stderr).toContain("first:1b, second:2b");
    expect(r.stdout).toBe("");
  });

  test("num_ctx is sent with every /api/chat request of a run (tool turn + answer)", async () => {
    const before = fake.chatRequests().length;
    fake.enqueue({ toolCalls: [{ name: "glob", arguments: { pattern: "*.md" } }], chunks: [] }, { text: "Done." });
    const r = await run(b, ["-p", "list the markdown files", "--model", "second:2b"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    const sent = fake.chatRequests().slice(before).filter((q) => q.model === "second:2b");
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const q of sent) expect((q.options as { num_ctx?: number } | undefined)?.num_ctx).toBe(16384);
  });

  test("a bunfig.toml preload and Bun's .env autoload in the project do not touch the binary", async () => {
    const d = projectDir("bunfig-project");
    const marker = join(d, "PRELOADED");
    writeFileSync(join(d, "evil.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "yes");\n`);
    writeFileSync(join(d, "bunfig.toml"), `preload = ["./evil.ts"]\n[run]\npreload = ["./evil.ts"]\n`);
    // If Bun autoloaded ./.env, LLM_MODEL=first:1b would already be set and CHATCLI_DOTENV could not override it.
    writeFileSync(join(d, ".env"), "LLM_MODEL=first:1b\n");
    writeFileSync(join(d, "other.env"), "LLM_MODEL=second:2b\n");
    const r = await runIn(d, ["-p", "hi", "--output-format", "stream-json"], { CHATCLI_DOTENV: "other.env" });
    expect(r.code).toBe(0);
    expect(sessionModel(r.stdout)).toBe("second:2b");
    expect(existsSync(marker)).toBe(false);
    // chatcli's own loader does read ./.env when CHATCLI_DOTENV is not set.
    const own = await runIn(d, ["-p", "hi", "--output-format", "stream-json"]);
    expect(sessionModel(own.stdout)).toBe("first:1b");
    expect(existsSync(marker)).toBe(false);
  });

  test("invalid settings: file, key and expectation on stderr, exit 2, never a stack trace", async () => {
    const cases: Array<{ name: string; write: (file: string) => void; expect: string[] }> = [
      { name: "array", write: (f) => writeFileSync(f, "[1, 2]"), expect: ["must contain a JSON object"] },
      { name: "wrong-type", write: (f) => writeFileSync(f, `{"model": 5}`), expect: ['"model"', "expected string"] },
      { name: "nested-enum", write: (f) => writeFileSync(f, `{"ui": {"screen": "huge"}}`), expect: ['"ui.screen"', '"fullscreen"'] },
      { name: "bad-json", write: (f) => writeFileSync(f, `{"model": `), expect: ["not valid JSON"] },
      { name: "unreadable", write: (f) => mkdirSync(f), expect: ["cannot read settings file"] },
    ];
    for (const c of cases) {
      const d = projectDir(`settings-${c.name}`);
      const file = join(d, ".chatcli", "settings.json");
      mkdirSync(join(d, ".chatcli"), { recursive: true });
      c.write(file);
      const r = await runIn(d, ["-p", "hi"]);
      expect({ name: c.name, code: r.code }).toEqual({ name: c.name, code: 2 });
      expect(r.stderr).toContain(file);
      for (const s of c.expect) expect(r.stderr).toContain(s);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stdout).toBe("");
    }
  });

  test("bad usage is exit 2 with one line on stderr: empty prompt, bad --output-format, unknown command", async () => {
    for (const args of [["-p", ""], ["-p", "hi", "--output-format", "xml"], ["frobnicate"]]) {
      const r = await run(b, args, { OLLAMA_HOST: fake.url });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toStartWith("chatcli: ");
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stdout).toBe("");
    }
  });

  test("a reader that closes stdout early (| head -c) ends the run quietly: exit 0, no stack trace", async () => {
    // The stream-json header lines alone overflow `head -c 20`; the run may end before it calls the model.
    const rc = join(b.dir, "pipe-rc");
    const errFile = join(b.dir, "pipe-err");
    const script = `{ "$BIN" -p hi --model first:1b --output-format stream-json 2>"$ERR"; echo $? > "$RC"; } | head -c 20 > /dev/null`;
    const p = Bun.spawn(["sh", "-c", script], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url, BIN: b.bin, RC: rc, ERR: errFile }, stdout: "ignore", stderr: "pipe" });
    await p.exited;
    expect(readFileSync(errFile, "utf8")).not.toMatch(/EPIPE|\s+at /);
    expect(readFileSync(rc, "utf8").trim()).toBe("0");
  });

  test("--no-tui answers every input line, including one typed while a turn runs", async () => {
    fake.enqueue({ text: "First reply.", chunkCount: 4, chunkDelayMs: 30 }, { text: "Second reply." });
    const r = await run(b, ["--no-tui", "--model", "first:1b"], { OLLAMA_HOST: fake.url }, "one\ntwo\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("First reply.");
    expect(r.stdout).toContain("Second reply.");
  });

  test.skipIf(!hasTmux())("the TUI names the first installed model when none was chosen", async () => {
    const tmux = new Tmux(join(b.dir, "found-tmux.sock"), paneCommand(b, "", { env: { OLLAMA_HOST: fake.url } }));
    try {
      const screen = await tmux.waitFor((s) => s.includes("Ask anything"));
      expect(screen).toContain("first:1b");
      await tmux.waitFor((s) => s.includes("first installed"));
    } finally {
      tmux.kill();
    }
  });
});
