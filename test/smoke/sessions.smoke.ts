// Smoke test of sessions in the compiled binary: one-shots continue the project's last session, `chatcli sessions`
// lists and imports, and the TUI resumed with --resume shows the earlier transcript.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { hasTmux, isolatedBinary, paneCommand, run, Tmux, type BinaryEnv } from "../support/binary.ts";
import { withoutAnchor } from "../support/anchor-text.ts";

let b: BinaryEnv;
let fake: FakeOllama;
let firstId = "";

beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 8192, capabilities: ["completion"] }], replies: [{ text: "Noted: pineapple." }, { text: "The word was pineapple." }], defaultReply: { text: "ok" } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

describe("sessions in the compiled binary", () => {
  test("-p twice with --continue: the second request carries the first exchange; sessions lists it", async () => {
    const env = { OLLAMA_HOST: fake.url, OLLAMA_API_KEY: "super-secret-key-123" };
    const first = await run(b, ["-p", "remember pineapple"], env);
    expect(first.code).toBe(0);
    const second = await run(b, ["-p", "which word?", "--continue"], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("The word was pineapple.\n");
    const sent = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    const contents = sent.map((m) => withoutAnchor(m.content));
    expect(contents).toContain("remember pineapple");
    expect(contents).toContain("Noted: pineapple.");
    expect(contents.indexOf("remember pineapple")).toBeLessThan(contents.indexOf("which word?"));

    const dir = join(b.env.CHATCLI_HOME!, "sessions");
    const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const list = await run(b, ["sessions"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("remember pineapple");
    expect(list.stdout).toContain("4 msg");
    firstId = files[0]!.replace(".jsonl", "");
    expect(list.stdout).toContain(firstId);

    const none = await run(b, ["-p", "x", "--resume", "no-such-session"], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no-such-session");
  });

  test("sessions import reads a ChatCLI v2 file", async () => {
    const file = join(b.dir, "old.json");
    writeFileSync(file, JSON.stringify({ version: 2, title: "Imported chat", chat_history: [{ role: "user", content: "old question" }, { role: "assistant", content: "old answer" }] }));
    const r = await run(b, ["sessions", "import", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Imported 2 message(s)");
    expect((await run(b, ["sessions"])).stdout).toContain("Imported chat");
  });

  test.skipIf(!hasTmux())("the TUI resumed with --resume shows the earlier transcript", async () => {
    const tmux = new Tmux(join(b.dir, "tmux-sessions.sock"), paneCommand(b, `--resume ${firstId}`, { env: { OLLAMA_HOST: fake.url } }));
    try {
      const screen = await tmux.waitFor((s) => s.includes("The word was pineapple.") && s.includes("which word?"));
      expect(screen).toContain("remember pineapple");
      tmux.send("C-c");
      await Bun.sleep(150);
      tmux.send("C-c");
    } finally {
      tmux.kill();
    }
  }, 15_000);
});
