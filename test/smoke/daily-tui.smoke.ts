// Issue 25 (daily-driver parity, part a) in the compiled binary's TUI (tmux): the live todo checklist above the
// prompt (collapsed in compact mode), `!cmd` and shell mode, /diff and /undo, /init's AGENTS.md approval, /help,
// the budget in the status line, and the bell when a turn ends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama, type FakeReply } from "../support/fake-ollama.ts";
import { startFakeSse } from "../support/fake-sse-servers.ts";
import { hasTmux, isolatedBinary, paneCommand, Tmux, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
beforeAll(() => {
  b = isolatedBinary();
});
afterAll(() => b.cleanup());

let n = 0;
function project(): string {
  const dir = join(b.dir, `t${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
const MODEL = [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }];
function session(fake: FakeOllama, dir: string, args = "--model qwen3:8b", env: Record<string, string> = {}, rows = 34): Tmux {
  return new Tmux(join(b.dir, "..", `tmux-dd-${Math.random().toString(36).slice(2, 8)}.sock`), paneCommand(b, args, { cwd: dir, env: { OLLAMA_HOST: fake.url, ...env } }), 110, rows);
}
const statusLine = (screen: string) => screen.split("\n").filter((l) => l.includes(" · ")).at(-1) ?? "";
async function say(t: Tmux, text: string): Promise<void> {
  t.sendLiteral(text);
  await Bun.sleep(60);
  t.send("Enter");
}

describe.skipIf(!hasTmux())("daily-driver features in the TUI (compiled binary)", () => {
  test("todo: the checklist above the prompt while the agent works, `3/7 done` in compact mode", async () => {
    const todos = [
      { content: "Survey the code", status: "done" },
      { content: "Change the parser", status: "in_progress" },
      { content: "Run the tests", status: "pending" },
    ];
    const replies: FakeReply[] = [{ toolCalls: [{ name: "todo", arguments: { todos } }] }, { text: "Working on the parser.", chunkCount: 2 }];
    const fake = startFakeOllama({ models: MODEL, replies, defaultReply: { text: "ok" } });
    const dir = project();
    const t = session(fake, dir);
    try {
      await t.waitFor((s) => s.includes("qwen3:8b"));
      await say(t, "fix the parser");
      const full = await t.waitFor((s) => s.includes("Working on the parser.") && s.includes("Todo 1/3 done"));
      const lines = full.split("\n");
      const header = lines.findIndex((l) => l.includes("Todo 1/3 done"));
      expect(lines[header + 1]).toContain("✓ Survey the code");
      expect(lines[header + 2]).toContain("▸ Change the parser");
      expect(lines[header + 3]).toContain("○ Run the tests");
      // Above the prompt box.
      expect(lines.findIndex((l, i) => i > header && l.includes("╭"))).toBeGreaterThan(header + 3);
      await say(t, "/ui compact");
      const compact = await t.waitFor((s) => s.includes("☐ 1/3 done"));
      expect(compact).not.toContain("○ Run the tests");
    } finally {
      t.kill();
    }
    // Saved with the session: `--continue` shows the open list again.
    const resumed = session(fake, dir, "--model qwen3:8b --continue");
    try {
      const screen = await resumed.waitFor((s) => s.includes("Todo 1/3 done"));
      expect(screen).toContain("▸ Change the parser");
    } finally {
      resumed.kill();
      fake.stop();
    }
  }, 40_000);

  test("`!cmd` runs without a model call and its output is context for the next prompt; `!` toggles shell mode", async () => {
    const fake = startFakeOllama({ models: MODEL, defaultReply: { text: "Noted the listing." } });
    const dir = project();
    writeFileSync(join(dir, "marker-file.txt"), "x\n");
    const t = session(fake, dir);
    try {
      await t.waitFor((s) => s.includes("qwen3:8b"));
      await say(t, "!ls");
      await t.waitFor((s) => s.includes("marker-file.txt"));
      await say(t, "!seq 1 9");
      // Two "exit code 0": the `!ls` block's and this one's (while it runs, only its live tail shows).
      const seq = await t.waitFor((s) => s.split("exit code 0").length === 3 && s.split("\n").some((l) => l.trim() === "9"));
      expect(seq.split("\n").some((l) => l.trim() === "1")).toBe(true);
      expect(fake.requests.filter((q) => q.path === "/api/chat")).toHaveLength(0);
      await say(t, "what is in the listing?");
      await t.waitFor((s) => s.includes("Noted the listing."));
      const sent = JSON.stringify(fake.requests.filter((q) => q.path === "/api/chat").at(-1)?.body);
      expect(sent).toContain("$ ls");
      expect(sent).toContain("marker-file.txt");
      await say(t, "!");
      const on = await t.waitFor((s) => statusLine(s).includes("! shell"));
      expect(on).toMatch(/│! /);
      await say(t, "echo shell-mode-line");
      await t.waitFor((s) => s.includes("shell-mode-line") && s.split("\n").some((l) => l.includes("exit code 0") || l.includes("shell-mode-line")));
      const before = fake.requests.length;
      await say(t, "!");
      const off = await t.waitFor((s) => !statusLine(s).includes("! shell"));
      expect(off).toMatch(/│› /);
      expect(fake.requests.length).toBe(before);
    } finally {
      t.kill();
      fake.stop();
    }
  }, 40_000);

  test("/diff shows every file the session changed with stats; /undo puts the code back to before the last turn", async () => {
    const replies: FakeReply[] = [
      { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "line one\nline two changed\n" } }] },
      { text: "Edited notes.", chunkCount: 2 },
      { toolCalls: [{ name: "write", arguments: { path: "fresh.txt", content: "brand new\n" } }] },
      { text: "Created fresh.", chunkCount: 2 },
    ];
    const fake = startFakeOllama({ models: MODEL, replies, defaultReply: { text: "ok" } });
    const dir = project();
    writeFileSync(join(dir, "notes.txt"), "line one\nline two\n");
    const t = session(fake, dir, "--model qwen3:8b --permission-mode accept-edits", {}, 44);
    try {
      await t.waitFor((s) => s.includes("qwen3:8b"));
      await say(t, "edit the notes");
      await t.waitFor((s) => s.includes("Edited notes."));
      await say(t, "create a file");
      await t.waitFor((s) => s.includes("Created fresh."));
      await say(t, "/diff");
      const diff = await t.waitFor((s) => s.includes("2 files changed"));
      expect(diff).toMatch(/fresh\.txt\s+\| \+1 -0/);
      expect(diff).toMatch(/notes\.txt\s+\| \+1 -1/);
      expect(diff).toContain("+line two changed");
      expect(diff).toContain("-line two");
      expect(diff).toContain("+brand new");
      await say(t, "/undo");
      await t.waitFor((s) => s.includes("Undoing"));
      await Bun.sleep(800);
      expect(existsSync(join(dir, "fresh.txt"))).toBe(false);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("line one\nline two changed\n");
      await say(t, "/undo");
      await Bun.sleep(1000);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("line one\nline two\n");
    } finally {
      t.kill();
      fake.stop();
    }
  }, 60_000);

  test("/init: read-only analysis, AGENTS.md shown as a diff for approval (even in accept-edits), other writes refused", async () => {
    const replies: FakeReply[] = [
      { toolCalls: [{ name: "write", arguments: { path: "other.txt", content: "nope\n" } }, { name: "exec", arguments: { command: "touch made-by-init" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "AGENTS.md", content: "# Agents\n\nBuild: `make`\nTest: `make test`\n" } }] },
      { text: "AGENTS.md written.", chunkCount: 2 },
    ];
    const fake = startFakeOllama({ models: MODEL, replies, defaultReply: { text: "ok" } });
    const dir = project();
    writeFileSync(join(dir, "Makefile"), "test:\n\techo ok\n");
    const t = session(fake, dir, "--model qwen3:8b --permission-mode accept-edits", {}, 40);
    try {
      await t.waitFor((s) => s.includes("qwen3:8b"));
      await say(t, "/help");
      const help = await t.waitFor((s) => s.includes("/init"));
      expect(help).toContain("/diff");
      expect(help).toContain("/undo");
      expect(help).toContain("!cmd");
      await say(t, "/init");
      const ask = await t.waitFor((s) => s.includes("AGENTS.md") && s.includes("+Build: `make`"), 15_000);
      expect(ask).toContain("[y]");
      // The transcript shows the command typed, not the prompt sent for it.
      expect(ask).toContain("› /init");
      expect(ask).not.toContain("Work read-only first");
      const sent = JSON.stringify(fake.requests.filter((q) => q.path === "/api/chat")[0]?.body);
      expect(sent).toContain("AGENTS.md");
      await Bun.sleep(400); // the approval box ignores keys for 250 ms after it is drawn
      t.send("y");
      await t.waitFor((s) => s.includes("AGENTS.md written."));
      expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toContain("Test: `make test`");
      expect(existsSync(join(dir, "other.txt"))).toBe(false);
      expect(existsSync(join(dir, "made-by-init"))).toBe(false);
    } finally {
      t.kill();
      fake.stop();
    }
  }, 60_000);

  test("budget in the status line; the bell rings when a turn longer than notify.afterSeconds ends", async () => {
    const sse = startFakeSse({ defaultReply: { fixture: "openai-text.sse" } });
    const fake = startFakeOllama({ models: MODEL });
    const dir = project();
    mkdirSync(join(dir, ".chatcli"), { recursive: true });
    writeFileSync(join(dir, ".chatcli", "settings.json"), JSON.stringify({ notify: { mode: "bell", afterSeconds: 0 } }));
    const env = { OPENAI_API_KEY: "sk-test-123456789", OPENAI_BASE_URL: `${sse.url}/v1` };
    const t = session(fake, dir, "--provider openai --model gpt-4o --max-budget-usd 2", env);
    const raw = join(b.dir, "..", `pane-${n}.raw`);
    Bun.spawnSync(["tmux", "-S", t.socket, "pipe-pane", "-t", t.name, "-o", `cat >> '${raw}'`]);
    try {
      const idle = await t.waitFor((s) => statusLine(s).includes("gpt-4o"));
      expect(statusLine(idle)).toContain("$0.0000/$2.00");
      await say(t, "hi");
      const done = await t.waitFor((s) => s.includes("Hello, world!") && statusLine(s).includes("/$2.00") && !statusLine(s).includes("$0.0000/"));
      expect(statusLine(done)).toMatch(/\$0\.\d{4}\/\$2\.00/);
      await Bun.sleep(300);
      expect(readFileSync(raw, "latin1")).toContain("\x07");
    } finally {
      t.kill();
      fake.stop();
      sse.stop();
    }
  }, 40_000);
});
