// Append-only session files in the compiled binary (issue 26): `kill -9` in the middle of a turn loses at most
// that unfinished turn (records are written as they happen; only the fsync waits for the turn's end), and the
// next `--continue` carries every earlier exchange. Also: the full outputs a preview names outlive the process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../src/store/session-file.ts";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, runAt, type BinaryEnv } from "../support/binary.ts";
import { withoutAnchor } from "../support/anchor-text.ts";

type WireMessage = { role: string; content: string; tool_calls?: unknown[] };

let b: BinaryEnv;
let fake: FakeOllama;
beforeAll(() => {
  b = isolatedBinary();
  fake = startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 32768, capabilities: ["completion", "tools"] }], defaultReply: { text: "ok" } });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

function project(name: string): string {
  const dir = join(b.dir, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

const sessionsDir = () => join(b.env.CHATCLI_HOME!, "sessions");

describe("session files survive kill -9", () => {
  test("killed mid-turn: the finished turns and what the unfinished one had written come back with --continue", async () => {
    const dir = project("killed");
    const env = { ...b.env, OLLAMA_HOST: fake.url };
    fake.enqueue({ text: "first answer" });
    const first = await runAt(b, dir, ["-p", "first prompt", "-m", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(first.code).toBe(0);

    fake.enqueue({ toolCalls: [{ name: "exec", arguments: { command: "echo started; sleep 5" } }], chunks: [] });
    const proc = Bun.spawn([b.bin, "-p", "second prompt", "--continue", "-m", "qwen3:8b", "--permission-mode", "bypass", "--output-format", "stream-json"], { cwd: dir, env, stdout: "pipe", stderr: "ignore", stdin: "ignore" });
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes('"tool.started"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`exited before the tool started:\n${out}`);
      out += new TextDecoder().decode(value);
    }
    proc.kill("SIGKILL");
    await proc.exited;

    const files = readdirSync(sessionsDir()).filter((f) => f.endsWith(".jsonl"));
    const s = files.map((f) => loadSession(join(sessionsDir(), f))).find((x) => x.meta.projectRoot.endsWith("killed"))!;
    expect(s.warnings.filter((w) => !w.includes("torn last line"))).toEqual([]);
    const contents = s.history.map((m) => m.content);
    expect(contents.slice(0, 3)).toEqual(["first prompt", "first answer", "second prompt"]);
    expect(s.history[3]).toMatchObject({ role: "assistant", toolCalls: [{ name: "exec" }] });

    fake.enqueue({ text: "carried on" });
    const n = fake.chatRequests().length;
    const third = await runAt(b, dir, ["-p", "third prompt", "--continue", "-m", "qwen3:8b"], { OLLAMA_HOST: fake.url });
    expect(third.code).toBe(0);
    expect(third.stdout).toContain("carried on");
    const sent = (fake.chatRequests()[n] as { messages: WireMessage[] }).messages;
    const users = sent.filter((m) => m.role === "user").map((m) => withoutAnchor(m.content));
    expect(users).toEqual(["first prompt", "second prompt", "third prompt"]);
    // The cut-off call has a (synthetic) result on the wire.
    const callAt = sent.findIndex((m) => m.tool_calls?.length);
    expect(sent[callAt + 1]?.role).toBe("tool");
  }, 30_000);

  test("a budgeted output is saved under the session's directory and is still there after exit", async () => {
    const dir = project("kept-output");
    writeFileSync(join(dir, "big.txt"), Array.from({ length: 800 }, (_, i) => `row ${i} ${"z".repeat(60)}`).join("\n"));
    fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }], chunks: [] }, { text: "read it" });
    const n = fake.chatRequests().length;
    const r = await runAt(b, dir, ["-p", "read big.txt", "-m", "qwen3:8b", "--permission-mode", "bypass"], { OLLAMA_HOST: fake.url });
    expect(r.code).toBe(0);
    const tool = (fake.chatRequests()[n + 1] as { messages: WireMessage[] }).messages.find((m) => m.role === "tool")!;
    const saved = /full output saved to (\S+?)\]/.exec(tool.content)![1]!;
    expect(saved.startsWith(`${sessionsDir()}/`)).toBe(true);
    expect(existsSync(saved)).toBe(true);
    expect(readFileSync(saved, "utf8")).toContain("row 799");
  }, 20_000);
});
