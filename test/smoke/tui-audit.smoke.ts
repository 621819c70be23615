// Audit of issues 6 and 7 against the compiled binary in tmux: the git branch on the status line, a mouse
// selection reaching tmux's clipboard through OSC 52, and Esc Esc putting back a file an `exec` command changed
// (a file chatcli never wrote, in a directory that is not a git repo).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({
    models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }],
    defaultReply: { text: "Nothing more to do." },
  });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

function launch(cwd: string, args: string): Tmux {
  return new Tmux(join(b.dir, `tmux-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, args, { env: { OLLAMA_HOST: fake.url }, cwd }), 110, 32);
}

test.skipIf(!hasTmux())("status line shows the git branch; a mouse selection lands in tmux's clipboard (OSC 52)", async () => {
  const repo = join(b.dir, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/audit-branch\n");
  const tmux = launch(repo, "");
  try {
    Bun.spawnSync(["tmux", "-S", tmux.socket, "set-option", "-g", "set-clipboard", "on"]);
    const first = await tmux.waitFor((s) => s.includes("qwen3:8b"));
    expect(first.split("\n").find((l) => l.includes("qwen3:8b · "))).toContain("⎇ audit-branch");
    tmux.sendLiteral("hello there");
    tmux.send("Enter");
    const screen = await tmux.waitFor((s) => s.includes("Nothing more to do."));
    const row = screen.split("\n").findIndex((l) => l.includes("› hello there"));
    const col = screen.split("\n")[row]!.indexOf("hello") + 1; // 1-based for SGR mouse reports
    for (const seq of [`\x1b[<0;${col};${row + 1}M`, `\x1b[<32;${col + 2};${row + 1}M`, `\x1b[<32;${col + 4};${row + 1}M`, `\x1b[<0;${col + 4};${row + 1}m`]) {
      tmux.sendLiteral(seq);
      await Bun.sleep(40);
    }
    let buffer = "";
    for (let i = 0; i < 40 && !buffer; i++) {
      await Bun.sleep(50);
      buffer = Bun.spawnSync(["tmux", "-S", tmux.socket, "show-buffer"], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
    }
    expect(buffer).toBe("hello");
    tmux.send("C-d");
  } finally {
    tmux.kill();
  }
}, 20_000);

test.skipIf(!hasTmux())("Esc Esc, restore code: a file an exec command changed is put back, the created file deleted", async () => {
  const work = join(b.dir, "plain");
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, "notes.txt"), "original\n");
  fake.enqueue(
    { toolCalls: [{ name: "exec", arguments: { command: "echo changed-by-exec > notes.txt && echo new > made.txt" } }] },
    { text: "Changed the notes.", chunkCount: 2 },
  );
  const tmux = launch(work, "--permission-mode bypass");
  try {
    await tmux.waitFor((s) => s.includes("qwen3:8b"));
    tmux.sendLiteral("change the notes");
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Changed the notes."));
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("changed-by-exec\n");
    tmux.send("Escape");
    await Bun.sleep(120);
    tmux.send("Escape");
    const menu = await tmux.waitFor((s) => s.includes("Select a checkpoint"));
    expect(menu).toContain("+2 files");
    tmux.send("Down");
    tmux.send("Enter");
    await tmux.waitFor((s) => s.includes("Restore code only"));
    tmux.send("Down");
    tmux.send("Down");
    tmux.send("Enter");
    const confirm = await tmux.waitFor((s) => s.includes("Will change"));
    expect(confirm).toContain("notes.txt");
    expect(confirm).toContain("made.txt");
    expect(confirm).toContain("Cancel");
    expect(confirm).not.toContain("Not restorable");
    tmux.send("Enter"); // restore and delete the created file
    await tmux.waitFor((s) => s.includes("Restored 1 file, deleted 1"));
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(work, "made.txt"))).toBe(false);
    tmux.send("C-d");
  } finally {
    tmux.kill();
  }
}, 20_000);
