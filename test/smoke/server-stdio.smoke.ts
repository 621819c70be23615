// `chatcli serve --stdio` (issue 22) driven as an editor would: the compiled binary, newline-delimited JSON-RPC
// on its stdin/stdout, the fake Ollama behind it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, type BinaryEnv } from "../support/binary.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
});
afterAll(() => {
  fake.stop();
  b.cleanup();
});

type Msg = { jsonrpc: string; id?: number | string | null; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string }; params?: { sessionId: string; seq: number; event: { type: string } & Record<string, unknown> } };

/** A serve --stdio process with a reader that splits stdout on "\n" only and waits for messages. */
class Client {
  readonly proc;
  readonly messages: Msg[] = [];
  readonly lines: string[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;
  stderr = "";

  constructor() {
    this.proc = Bun.spawn([b.bin, "serve", "--stdio", "--model", "coder:7b"], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.read();
    void new Response(this.proc.stderr).text().then((t) => (this.stderr = t));
  }

  private async read(): Promise<void> {
    let buf = "";
    const dec = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        this.lines.push(buf.slice(0, nl));
        this.messages.push(JSON.parse(buf.slice(0, nl)) as Msg);
        buf = buf.slice(nl + 1);
        for (const w of this.waiters.splice(0)) w();
      }
    }
  }

  raw(text: string): void {
    this.proc.stdin.write(text);
    this.proc.stdin.flush();
  }

  async request(method: string, params: unknown = {}): Promise<Msg> {
    const id = this.nextId++;
    this.raw(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return this.waitFor((m) => m.id === id);
  }

  async waitFor(pred: (m: Msg) => boolean, timeoutMs = 20_000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.messages.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(this.messages.slice(-5))}\nstderr: ${this.stderr}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  events(sessionId: string): Array<{ seq: number; event: { type: string } & Record<string, unknown> }> {
    return this.messages.filter((m) => m.method === "session/event" && m.params?.sessionId === sessionId).map((m) => ({ seq: m.params!.seq, event: m.params!.event }));
  }

  async end(): Promise<number> {
    this.proc.stdin.end();
    return this.proc.exited;
  }
}

describe("chatcli serve --stdio (compiled binary)", () => {
  test("initialize, new, a prompt with a tool call approved over the wire, list, close", async () => {
    const c = new Client();
    const init = await c.request("initialize", { protocolVersion: 1, clientInfo: { name: "test" } });
    expect(init.result).toMatchObject({ protocolVersion: 1, eventSchemaVersion: 2, serverInfo: { name: "chatcli" } });
    expect(init.result!.methods).toEqual(expect.arrayContaining(["session/new", "session/load", "session/list", "session/prompt", "session/interrupt", "session/approve", "session/setModel", "session/compact", "session/rewind", "session/close"]));

    const created = await c.request("session/new", {});
    expect(created.error).toBeUndefined();
    const sessionId = (created.result!.session as { sessionId: string }).sessionId;
    expect(created.result).toMatchObject({ driver: true, seq: 0, session: { model: "coder:7b", live: true } });
    await c.waitFor((m) => m.params?.event.type === "session.started");

    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi there" } }], chunks: [] }, { text: "Wrote it." });
    const prompt = await c.request("session/prompt", { sessionId, text: "create hello.txt" });
    expect(prompt.result).toEqual({ queued: false });
    const asked = await c.waitFor((m) => m.params?.event.type === "approval.requested");
    expect(existsSync(join(b.dir, "hello.txt"))).toBe(false); // waits for the client's answer
    const approved = await c.request("session/approve", { sessionId, requestId: asked.params!.event.requestId, decision: "once" });
    expect(approved.result).toEqual({});
    await c.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(readFileSync(join(b.dir, "hello.txt"), "utf8")).toBe("hi there");

    const evs = c.events(sessionId);
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1)); // numbered from 1, no gaps
    const types = evs.map((e) => e.event.type);
    expect(types).toEqual(expect.arrayContaining(["turn.started", "tool.started", "approval.resolved", "tool.completed", "message.completed", "turn.completed"]));
    expect(types.indexOf("approval.requested")).toBeLessThan(types.indexOf("tool.completed"));

    const listed = await c.request("session/list");
    const sessions = listed.result!.sessions as Array<{ sessionId: string; live: boolean; title: string }>;
    expect(sessions.find((s) => s.sessionId === sessionId)).toMatchObject({ live: true, title: "create hello.txt" });

    const closed = await c.request("session/close", { sessionId });
    expect(closed.result).toEqual({ closed: true });
    expect(c.events(sessionId).at(-1)!.event.type).toBe("session.ended");
    const after = await c.request("session/list");
    expect((after.result!.sessions as Array<{ sessionId: string; live: boolean }>).find((s) => s.sessionId === sessionId)).toMatchObject({ live: false });
    const gone = await c.request("session/prompt", { sessionId, text: "again" });
    expect(gone.error!.code).toBe(-32001);
    expect(await c.end()).toBe(0);
  }, 60_000);

  test("interrupt stops a streaming turn; the session takes the next prompt", async () => {
    const c = new Client();
    await c.request("initialize", { protocolVersion: 1 });
    const sessionId = ((await c.request("session/new")).result!.session as { sessionId: string }).sessionId;
    fake.enqueue({ text: "slow ".repeat(400), chunkCount: 400, chunkDelayMs: 20 });
    await c.request("session/prompt", { sessionId, text: "talk slowly" });
    await c.waitFor((m) => m.params?.event.type === "message.delta");
    expect((await c.request("session/interrupt", { sessionId })).result).toEqual({});
    const done = await c.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(done.params!.event.stopReason).not.toBe("end_turn");
    fake.enqueue({ text: "back again" });
    const second = await c.request("session/prompt", { sessionId, text: "still there?" });
    expect(second.result).toEqual({ queued: false });
    await c.waitFor((m) => m.params?.event.type === "message.completed" && JSON.stringify(m.params.event).includes("back again"));
    expect(await c.end()).toBe(0);
  }, 60_000);

  test("framing: U+2028/U+2029 inside a string stay in the frame; a malformed line gets a parse error and the server goes on", async () => {
    const c = new Client();
    await c.request("initialize", { protocolVersion: 1 });
    c.raw("{ this is not json\n");
    const parseErr = await c.waitFor((m) => m.error?.code === -32700);
    expect(parseErr.id).toBeNull();
    c.raw(`${JSON.stringify({ jsonrpc: "2.0", id: "nope", method: "no/such" })}\n`);
    expect((await c.waitFor((m) => m.id === "nope")).error!.code).toBe(-32601);
    const sessionId = ((await c.request("session/new")).result!.session as { sessionId: string }).sessionId;
    fake.enqueue({ text: "line\u2028sep\u2029para done" });
    // The request itself carries raw U+2028/U+2029 (JSON.stringify leaves them unescaped).
    const p = await c.request("session/prompt", { sessionId, text: "split\u2028here\u2029and here" });
    expect(p.error).toBeUndefined();
    const started = await c.waitFor((m) => m.params?.event.type === "turn.started");
    expect(started.params!.event.input).toBe("split\u2028here\u2029and here");
    const done = await c.waitFor((m) => m.params?.event.type === "message.completed");
    expect((done.params!.event.message as { content: string }).content).toBe("line\u2028sep\u2029para done");
    // On the wire they are escaped, so even a reader that splits on them gets whole frames.
    expect(c.lines.some((l) => l.includes("line\\u2028sep\\u2029para done"))).toBe(true);
    expect(c.lines.some((l) => /[\u2028\u2029]/.test(l))).toBe(false);
    const sent = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    expect(sent.some((m) => m.role === "user" && m.content.includes("split\u2028here\u2029and here"))).toBe(true);
    expect(await c.end()).toBe(0);
  }, 60_000);

  test("calls before initialize are refused; --print-schema prints the versioned schema", async () => {
    const c = new Client();
    expect((await c.request("session/list")).error!.code).toBe(-32000);
    expect((await c.request("initialize", { protocolVersion: 99 })).error!.code).toBe(-32003);
    await c.request("initialize", { protocolVersion: 1 });
    const noDir = await c.request("session/new", { cwd: join(b.dir, "does-not-exist") });
    expect(noDir.error).toMatchObject({ code: -32602, message: expect.stringContaining("does-not-exist") });
    const noModel = await c.request("session/new", { model: "missing:1b" });
    expect(noModel.error).toMatchObject({ code: -32005, message: expect.stringContaining("missing:1b") });
    expect((await c.request("session/list")).result).toBeDefined(); // the server goes on
    expect(await c.end()).toBe(0);
    const proc = Bun.spawnSync([b.bin, "serve", "--print-schema"], { cwd: b.dir, env: b.env });
    const schema = JSON.parse(proc.stdout.toString()) as { protocolVersion: number; methods: Record<string, unknown>; notifications: Record<string, unknown> };
    expect(schema.protocolVersion).toBe(1);
    expect(Object.keys(schema.methods)).toContain("session/rewind");
    expect(Object.keys(schema.notifications)).toContain("session/event");
  }, 60_000);
  test("session/load resumes a saved session in a new server: history returned, the model sees it", async () => {
    const first = new Client();
    await first.request("initialize", { protocolVersion: 1 });
    const sessionId = ((await first.request("session/new")).result!.session as { sessionId: string }).sessionId;
    fake.enqueue({ text: "The codeword is PELICAN." });
    await first.request("session/prompt", { sessionId, text: "remember the codeword" });
    await first.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(await first.end()).toBe(0); // stdin closed: the server saves its sessions and exits

    const second = new Client();
    await second.request("initialize", { protocolVersion: 1 });
    const listed = (await second.request("session/list")).result!.sessions as Array<{ sessionId: string; live: boolean; title: string }>;
    expect(listed.find((s) => s.sessionId === sessionId)).toMatchObject({ live: false, title: "remember the codeword" });
    const loaded = await second.request("session/load", { sessionId });
    expect(loaded.error).toBeUndefined();
    expect(loaded.result).toMatchObject({ driver: true, session: { sessionId, live: true } });
    const history = loaded.result!.history as Array<{ role: string; content: string }>;
    expect(history.some((m) => m.role === "assistant" && m.content.includes("PELICAN"))).toBe(true);
    fake.enqueue({ text: "It was PELICAN." });
    await second.request("session/prompt", { sessionId, text: "what was it?" });
    await second.waitFor((m) => m.params?.event.type === "turn.completed");
    const sent = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    expect(sent.some((m) => m.role === "assistant" && m.content.includes("PELICAN"))).toBe(true);
    expect((await second.request("session/load", { sessionId: "no-such-session" })).error!.code).toBe(-32001);
    expect(await second.end()).toBe(0);
  }, 60_000);
  test("SIGTERM mid-turn ends the turn, saves the session and exits 0; a new server resumes it", async () => {
    const c = new Client();
    await c.request("initialize", { protocolVersion: 1 });
    const sessionId = ((await c.request("session/new")).result!.session as { sessionId: string }).sessionId;
    fake.enqueue({ text: "word ".repeat(500), chunkCount: 500, chunkDelayMs: 20 });
    await c.request("session/prompt", { sessionId, text: "a long story about SIGTERM" });
    await c.waitFor((m) => m.params?.event.type === "message.delta");
    c.proc.kill("SIGTERM");
    expect(await c.proc.exited).toBe(0);
    await c.waitFor((m) => m.params?.event.type === "session.ended", 5_000); // stdout may still be in the pipe
    const types = c.events(sessionId).map((e) => e.event.type);
    expect(types.at(-1)).toBe("session.ended");
    expect(types).toContain("turn.completed");

    const again = new Client();
    await again.request("initialize", { protocolVersion: 1 });
    const loaded = await again.request("session/load", { sessionId });
    expect(loaded.error).toBeUndefined();
    expect((loaded.result!.history as Array<{ role: string; content: string }>).some((m) => m.role === "user" && m.content.includes("SIGTERM"))).toBe(true);
    expect(await again.end()).toBe(0);
  }, 60_000);
});
