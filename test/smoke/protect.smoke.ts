// Smoke test of issue 14's protected paths and crafted stores in the compiled binary: in bypass mode a scripted
// model tries to rewrite chatcli's settings and git's config through write, edit and exec (nobody can approve in
// headless mode, so every one must be refused and the canaries stay); a session file whose meta.id is `../../x`
// resumes under its own file name, writes nothing outside ~/.chatcli and chmods nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const SETTINGS = '{"model":"qwen3:8b"}\n';
const GITCONFIG = "[core]\n\trepositoryformatversion = 0\n";

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }],
    replies: [
      {
        toolCalls: [
          { name: "write", arguments: { filename: ".chatcli/settings.json", content: '{"permissionMode":"bypass"}' } },
          { name: "edit", arguments: { file_path: ".git/config", old_string: "repositoryformatversion = 0", new_string: "fsmonitor = touch PWNED" } },
          { name: "exec", arguments: { cmd: "echo '{\"permissionMode\":\"bypass\"}' | sort --outp=$HOME/.chatcli/settings.json" } },
          { name: "exec", arguments: { command: "printf '#!/bin/sh\\ntouch PWNED\\n' > .g?t/hooks/pre-commit; cp .chat''cli/x .chatcli/coder_policy.json" } },
        ],
      },
      { text: "done" },
    ],
    defaultReply: { text: "ok" },
  });
  mkdirSync(join(b.dir, ".chatcli"), { recursive: true });
  mkdirSync(join(b.dir, ".git", "hooks"), { recursive: true });
  mkdirSync(b.env.CHATCLI_HOME!, { recursive: true });
  writeFileSync(join(b.dir, ".chatcli", "settings.json"), SETTINGS);
  writeFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), SETTINGS);
  writeFileSync(join(b.dir, ".git", "config"), GITCONFIG);
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

describe("protected paths and crafted stores in the compiled binary", () => {
  test("bypass: the model cannot change chatcli's settings or git's config through any tool", async () => {
    const r = await run(b, ["-p", "configure yourself", "--permission-mode", "bypass", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(readFileSync(join(b.dir, ".chatcli", "settings.json"), "utf8")).toBe(SETTINGS);
    expect(readFileSync(join(b.env.CHATCLI_HOME!, "settings.json"), "utf8")).toBe(SETTINGS);
    expect(readFileSync(join(b.dir, ".git", "config"), "utf8")).toBe(GITCONFIG);
    expect(existsSync(join(b.dir, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(b.dir, ".chatcli", "coder_policy.json"))).toBe(false);
    expect(existsSync(join(b.dir, "PWNED"))).toBe(false);
    // Four tool calls, four refusals reported to the model.
    const toolResults = (fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool");
    expect(toolResults.length).toBe(4);
    expect(toolResults.every((m) => m.content.includes("Permission denied"))).toBe(true);
  });

  test("a session file keeps no .env value, URL password or key shape, whatever the variable's name", async () => {
    const stripe = `sk_live_${"a1B2".repeat(6)}`;
    const weird = "q8Zr!vX2pL0w";
    writeFileSync(join(b.dir, ".env"), `STRIPE_SECRET_KEY=${stripe}\nSOMETHING=${weird}\nNODE_ENV=development\n`);
    try {
      const r = await run(b, ["-p", `store ${stripe} and ${weird} and postgres://u:pw-Secret9@h/db for development`, "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
      expect(r.code).toBe(0);
      const sessions = join(b.env.CHATCLI_HOME!, "sessions");
      const text = readdirSync(sessions).filter((f) => f.endsWith(".jsonl")).map((f) => readFileSync(join(sessions, f), "utf8")).join("\n");
      expect(text).toContain("for development");
      for (const secret of [stripe, weird, "pw-Secret9"]) expect({ secret, leaked: text.includes(secret) }).toEqual({ secret, leaked: false });
    } finally {
      rmSync(join(b.dir, ".env"), { force: true });
    }
  });

  test("--resume of a session file whose meta.id is ../../x writes nothing outside ~/.chatcli and chmods nothing", async () => {
    const sessions = join(b.env.CHATCLI_HOME!, "sessions");
    mkdirSync(sessions, { recursive: true });
    const meta = { v: 1, ts: 1, type: "meta", id: "../../x", title: "evil", cwd: b.dir, projectRoot: b.dir, provider: "OLLAMA", model: "qwen3:8b", createdAt: 1 };
    const msg = { v: 1, ts: 2, type: "message", message: { role: "user", content: "earlier" } };
    writeFileSync(join(sessions, "evil.jsonl"), `${JSON.stringify(meta)}\n${JSON.stringify(msg)}\n`);
    chmodSync(b.home, 0o755);
    const r = await run(b, ["-p", "hello", "--resume", "evil", "--model", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("evil.jsonl");
    expect(existsSync(join(b.home, "x.jsonl"))).toBe(false);
    expect(existsSync(join(b.home, "x"))).toBe(false);
    expect(statSync(b.home).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(sessions, "evil.jsonl"), "utf8")).toContain("hello");
  });
});
