// Smoke test of Esc+Esc rewind in the compiled binary (run by .ci/run after the build): two exchanges with the
// fake Ollama server in which the model writes a file through a native tool call, then Esc Esc, restore
// conversation and code to the start of the second exchange: the file is back as it was, and the prompt holds
// the second message again. Then `--resume <id> --rewind 1` headlessly undoes that rewind.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }],
    replies: [
      { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "version one\n" } }] },
      { text: "Wrote version one.", chunkCount: 2 },
      { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "version two\n" } }] },
      { text: "Wrote version two.", chunkCount: 2 },
    ],
    defaultReply: { text: "Nothing more to do." },
  });
  writeFileSync(join(b.dir, "notes.txt"), "original\n");
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

const notes = () => readFileSync(join(b.dir, "notes.txt"), "utf8");

test.skipIf(!hasTmux())("Esc Esc, restore conversation and code: the file is back as it was", async () => {
  const tmux = new Tmux(join(b.dir, "tmux.sock"), paneCommand(b, "--permission-mode accept-edits", { env: { OLLAMA_HOST: fake.url } }), 110, 32);
  try {
    await tmux.waitFor((s) => s.includes("qwen3:8b"));
    tmux.sendLiteral("write version one");
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Wrote version one."));
    expect(notes()).toBe("version one\n");
    tmux.sendLiteral("now version two");
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Wrote version two."));
    expect(notes()).toBe("version two\n");

    tmux.send("Escape");
    await Bun.sleep(120);
    tmux.send("Escape");
    const menu = await tmux.waitFor((s) => s.includes("Select a checkpoint"));
    const rows = menu.split("\n").filter((l) => / msgs? /.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows[1]).toContain("now version two");
    expect(rows[1]).toContain("+1 file");
    tmux.send("Down");
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Restore conversation and code"));
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Will change"));
    tmux.send("Enter");
    const after = await tmux.waitFor((s) => s.includes("Restored 1 file"));
    expect(notes()).toBe("version one\n");
    expect(after).toContain("› now version two");
    expect(after).not.toContain("Wrote version two.");
    expect(after).toContain("Wrote version one.");
    tmux.send("C-c");
    await Bun.sleep(150);
    tmux.send("C-c");
    await Bun.sleep(500);
  } finally {
    tmux.kill();
  }

  // Headless: resume that session and take the newest checkpoint, "(before rewind) …", which undoes the rewind.
  const snapshots = readdirSync(join(b.env.CHATCLI_HOME!, "snapshots"));
  expect(snapshots).toHaveLength(1);
  const r = await run(b, ["--resume", snapshots[0]!, "--rewind", "1", "-p", "thanks"], { OLLAMA_HOST: fake.url });
  expect(r.stderr).toContain("rewound to checkpoint 1");
  expect(r.code).toBe(0);
  expect(notes()).toBe("version two\n");
}, 40_000);
