// `chatcli serve --stdio` (compiled binary) with a reader that stops reading: the server's stdout goes through a real
// pipe into `cat`, and the test stops `cat` (SIGSTOP) so the pipe fills. The session's turn must go on (its answer
// reaches the session file) and, past the outbound bound, the reader is dropped with server/closing slow_client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] }] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

type Msg = { id?: number | null; method?: string; result?: Record<string, unknown>; error?: { code: number }; params?: Record<string, unknown> & { seq?: number; event?: { type: string } } };

function children(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
    if (list) out.push(...list.split(" ").map(Number));
  }
  return out;
}
function descendants(pid: number): number[] {
  return children(pid).flatMap((c) => [c, ...descendants(c)]);
}
const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();

/** serve --stdio whose stdout is read by `cat` through a pipe; `cat` can be stopped and continued. */
class PipedServer {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly messages: Msg[] = [];
  stderr = "";
  private nextId = 1;
  private catPid = 0;

  /** `reader`: the shell command that reads the server's stdout (it may quit early; its own output comes here). */
  constructor(extraEnv: Record<string, string> = {}, reader = "cat") {
    const script = `{ "$0" serve --stdio --model coder:7b; echo "server-exit=$?" >&2; } | ${reader}`;
    this.proc = Bun.spawn(["sh", "-c", script, b.bin], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url, ...extraEnv }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.read();
    void this.readErr();
  }

  private async readErr(): Promise<void> {
    for await (const chunk of this.proc.stderr) this.stderr += new TextDecoder().decode(chunk);
  }

  private async read(): Promise<void> {
    let buf = "";
    const dec = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        this.messages.push(JSON.parse(buf.slice(0, nl)) as Msg);
        buf = buf.slice(nl + 1);
      }
    }
  }

  private cat(): number {
    if (!this.catPid) this.catPid = descendants(this.proc.pid).find((p) => comm(p) === "cat") ?? 0;
    if (!this.catPid) throw new Error("no cat process in the pipeline");
    return this.catPid;
  }

  stopReader(): void {
    process.kill(this.cat(), "SIGSTOP");
  }
  resumeReader(): void {
    process.kill(this.cat(), "SIGCONT");
  }

  send(method: string, params: unknown = {}): number {
    const id = this.nextId++;
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    this.proc.stdin.flush();
    return id;
  }

  async until<T>(get: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = get();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`);
      await Bun.sleep(20);
    }
  }

  events(): Msg[] {
    return this.messages.filter((m) => m.method === "session/event");
  }
}

/** The saved session file (the recorder writes every history change). */
function sessionFile(id: string): string {
  return join(b.home, ".chatcli", "sessions", `${id}.jsonl`);
}

async function openSession(s: PipedServer): Promise<string> {
  s.send("initialize", { protocolVersion: 1 });
  const id = s.send("session/new");
  const created = await s.until(() => s.messages.find((m) => m.id === id), "session/new");
  return (created.result!.session as { sessionId: string }).sessionId;
}

describe("serve --stdio with a reader that stops reading (compiled binary, real pipe)", () => {
  test("the turn completes and is saved while nobody reads; the reader then gets every event in order", async () => {
    const s = new PipedServer();
    const sessionId = await openSession(s);
    s.stopReader();
    fake.enqueue({ text: `${"stream ".repeat(4000)}END-OF-ANSWER-1`, chunkCount: 2000 });
    s.send("session/prompt", { sessionId, text: "a long answer please" });
    // ~2000 events of ~150 bytes: far more than the pipe holds. The answer still lands in the session file.
    await s.until(() => existsSync(sessionFile(sessionId)) && readFileSync(sessionFile(sessionId), "utf8").includes("END-OF-ANSWER-1"), "the answer in the session file");
    expect(s.events().some((m) => m.params!.event!.type === "turn.completed")).toBe(false); // nothing read yet
    s.resumeReader();
    await s.until(() => s.events().some((m) => m.params!.event!.type === "turn.completed"), "turn.completed");
    const seqs = s.events().map((m) => m.params!.seq!);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBeGreaterThan(1000); // well past what the pipe and cat hold
    s.proc.stdin.end();
    expect(await s.proc.exited).toBe(0);
    expect(s.stderr).toContain("server-exit=0");
  }, 90_000);

  test("past the outbound bound the reader is dropped: server/closing slow_client after a gap-free prefix, the session saved, exit 1", async () => {
    const s = new PipedServer({ CHATCLI_SERVE_QUEUE_BYTES: "65536" });
    const sessionId = await openSession(s);
    s.stopReader();
    fake.enqueue({ text: `${"stream ".repeat(4000)}END-OF-ANSWER-2`, chunkCount: 2000, chunkDelayMs: 1 });
    s.send("session/prompt", { sessionId, text: "another long answer" });
    await s.until(() => s.stderr.includes("too slow"), "the drop to be logged");
    s.resumeReader();
    await s.until(() => s.stderr.includes("server-exit="), "the server to exit");
    expect(s.stderr).toContain("server-exit=1");
    expect(await s.proc.exited).toBe(0); // cat's status
    const last = s.messages.at(-1)!;
    expect(last).toMatchObject({ method: "server/closing", params: { reason: "slow_client" } });
    const seqs = s.events().map((m) => m.params!.seq!);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // The session was shut down cleanly and saved: a new server lists it and can resume it.
    const again = new PipedServer();
    again.send("initialize", { protocolVersion: 1 });
    const listId = again.send("session/list");
    const listed = await again.until(() => again.messages.find((m) => m.id === listId), "session/list");
    expect((listed.result!.sessions as Array<{ sessionId: string; live: boolean }>).find((x) => x.sessionId === sessionId)).toMatchObject({ live: false });
    again.proc.stdin.end();
    await again.proc.exited;
  }, 90_000);

  test("a reader that closes the server's stdout mid-turn: the server ends the turn cleanly, saves the session and exits 1", async () => {
    // The reader passes lines on until the first delta, then quits: the server's next writes get EPIPE.
    const s = new PipedServer({}, `sh -c 'while IFS= read -r l; do printf "%s\\n" "$l"; case "$l" in *message.delta*) exit 0;; esac; done'`);
    const sessionId = await openSession(s);
    fake.enqueue({ text: "drip ".repeat(600), chunkCount: 300, chunkDelayMs: 5 });
    s.send("session/prompt", { sessionId, text: "drip slowly" });
    await s.until(() => s.stderr.includes("server-exit="), "the server to exit");
    expect(s.stderr).toContain("server-exit=1");
    expect(s.stderr).toContain("closed its output");
    // Ended cleanly, not killed: the interrupted turn's end is in the session file.
    const saved = readFileSync(sessionFile(sessionId), "utf8");
    expect(saved).toContain('"turn.completed"');
    expect(saved).toContain("drip slowly");
  }, 90_000);
});
