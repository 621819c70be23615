// README claims that a newcomer tries first and that once said something false: checked on the compiled binary
// (copied to a temp dir with an empty HOME) against the fake Ollama server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  mkdirSync(join(b.dir, ".git"), { recursive: true });
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 16384, capabilities: ["completion", "tools"] }], defaultReply: { text: "Done." } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const oneshot = (args: string[]) => run(b, ["-p", "go", ...args], { OLLAMA_HOST: fake.url });

describe("headless: the denial hint names a mode that would have allowed the action", () => {
  test("a file edit asked in default mode: accept-edits (or bypass) would allow it", async () => {
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "w.txt", content: "w" } }], chunks: [] }, { text: "No." });
    const r = await oneshot([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('permission needed for "w.txt"');
    expect(r.stderr).toContain("--permission-mode accept-edits or bypass");
    expect(existsSync(join(b.dir, "w.txt"))).toBe(false);
  });

  // Sandbox off: with it, this command would run inside the project without asking.
  test("a command that asks in accept-edits: only bypass or a rule would allow it, so accept-edits is not suggested", async () => {
    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "touch made && echo hi" } }], chunks: [] }, { text: "No." });
    const r = await oneshot(["--permission-mode", "accept-edits", "--sandbox", "off"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('permission needed for "touch made && echo hi"');
    expect(r.stderr).toContain("--permission-mode bypass");
    expect(r.stderr).not.toContain("accept-edits");
    expect(existsSync(join(b.dir, "made"))).toBe(false);
  });
});

test("stream-json: a -p run's last event is turn.completed (session.ended belongs to the TUI and plain modes)", async () => {
  const r = await oneshot(["--output-format", "stream-json"]);
  expect(r.code).toBe(0);
  const types = r.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
  expect(types[0]).toBe("session.started");
  expect(types.at(-1)).toBe("turn.completed");
  expect(types).not.toContain("session.ended");
});
