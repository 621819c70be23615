// `chatcli serve` (compiled binary, HTTP transport) with several WebSocket clients: two clients on one session, a
// client killed mid-turn reconnecting with afterSeq, a slow client dropped while the other keeps its pace, and
// SIGTERM mid-turn saving every session for a restarted server. Clients that must stop reading or die are
// separate processes (test/support/ws-client-proc.ts), stopped with SIGSTOP or killed with SIGKILL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, type BinaryEnv } from "../support/binary.ts";
import { startServer, WsClient, type RpcMsg, type RunningServer } from "../support/http-server-client.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const servers: RunningServer[] = [];

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [{ name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] }] });
});
afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null) await s.stop("SIGKILL");
  fake.stop();
  b.cleanup();
});

async function serve(env: Record<string, string> = {}): Promise<RunningServer> {
  const s = await startServer(b, ["--model", "coder:7b"], { OLLAMA_HOST: fake.url, ...env });
  servers.push(s);
  return s;
}

async function client(s: RunningServer): Promise<WsClient> {
  const c = await WsClient.open(s.url, s.token);
  expect((await c.request("initialize", { protocolVersion: 1 })).result).toBeDefined();
  return c;
}

async function newSession(c: WsClient): Promise<string> {
  const r = await c.request("session/new");
  expect(r.error).toBeUndefined();
  return (r.result!.session as { sessionId: string }).sessionId;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const seqsOf = (c: WsClient, id: string) => c.events(id).map((e) => e.seq);

/** A client in its own process (it can be stopped or killed); its messages as the parent received them. */
class ProcClient {
  readonly proc;
  private out = "";
  constructor(s: RunningServer, sessionId: string, afterSeq?: number) {
    this.proc = Bun.spawn([process.execPath, join(import.meta.dir, "../support/ws-client-proc.ts"), s.url, s.token, sessionId, ...(afterSeq !== undefined ? [String(afterSeq)] : [])], { stdout: "pipe", stderr: "inherit" });
    void this.read();
  }
  private async read(): Promise<void> {
    const dec = new TextDecoder();
    for await (const chunk of this.proc.stdout) this.out += dec.decode(chunk, { stream: true });
  }
  /** Complete lines only (the last one may still be arriving). */
  private lines(): string[] {
    return this.out.slice(0, this.out.lastIndexOf("\n") + 1).split("\n").filter(Boolean);
  }
  messages(): RpcMsg[] {
    return this.lines()
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as RpcMsg);
  }
  seqs(): number[] {
    return this.messages()
      .filter((m) => m.method === "session/event")
      .map((m) => m.params!.seq);
  }
  closeCode(): number | undefined {
    const l = this.lines().find((x) => x.startsWith("CLOSE "));
    return l ? Number(l.slice(6)) : undefined;
  }
  async ready(): Promise<{ driver: boolean; seq: number }> {
    await until(() => this.lines().some((l) => l.startsWith("READY ")), "the client process to attach");
    return JSON.parse(this.lines().find((l) => l.startsWith("READY "))!.slice(6)) as { driver: boolean; seq: number };
  }
}

async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("serve over WebSocket: several clients per session (compiled binary)", () => {
  test("two clients on one session: both get every event in seq order; only the driver's approval is accepted", async () => {
    const s = await serve();
    const a = await client(s);
    const sessionId = await newSession(a);
    const o = await client(s);
    const attached = await o.request("session/load", { sessionId });
    expect(attached.result).toMatchObject({ driver: false, session: { sessionId, clients: 2 } });
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "two-clients.txt", content: "both saw it" } }], chunks: [] }, { text: "Done writing." });
    await a.request("session/prompt", { sessionId, text: "write two-clients.txt" });
    const asked = await o.waitFor((m) => m.params?.event.type === "approval.requested");
    await a.waitFor((m) => m.params?.event.type === "approval.requested");
    const requestId = asked.params!.event.requestId;
    expect((await o.request("session/approve", { sessionId, requestId, decision: "once" })).error!.code).toBe(-32002);
    expect((await o.request("session/prompt", { sessionId, text: "me too" })).error!.code).toBe(-32002);
    expect((await a.request("session/approve", { sessionId, requestId, decision: "once" })).result).toEqual({});
    await a.waitFor((m) => m.params?.event.type === "turn.completed");
    await o.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(readFileSync(join(b.dir, "two-clients.txt"), "utf8")).toBe("both saw it");
    const all = seqsOf(a, sessionId);
    expect(all).toEqual(range(1, all.length));
    expect(seqsOf(o, sessionId)).toEqual(range(Number(attached.result!.seq) + 1, all.length));
    expect(o.events(sessionId).map((e) => e.event)).toEqual(a.events(sessionId).slice(Number(attached.result!.seq)).map((e) => e.event));
    // The driver leaves: the observer drives now.
    a.close();
    await until(() => s.stderr().includes("ws closed"), "the driver's close");
    fake.enqueue({ text: "Now you drive." });
    expect((await o.request("session/prompt", { sessionId, text: "my turn" })).error).toBeUndefined();
    await o.waitFor((m) => m.params?.event.type === "message.completed" && JSON.stringify(m.params.event).includes("Now you drive."));
    o.close();
    expect(await s.stop()).toBe(0);
  }, 90_000);

  test("the driver leaves while an approval is pending: the turn waits; the next client drives, sees it in `pending`, answers it", async () => {
    const s = await serve();
    const a = await client(s);
    const sessionId = await newSession(a);
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "later.txt", content: "answered later" } }], chunks: [] }, { text: "Written after all." });
    await a.request("session/prompt", { sessionId, text: "write later.txt" });
    const asked = await a.waitFor((m) => m.params?.event.type === "approval.requested");
    a.close();
    await until(() => s.stderr().includes("ws closed"), "the driver's close");
    const b2 = await client(s);
    const loaded = await b2.request("session/load", { sessionId });
    expect(loaded.result).toMatchObject({ driver: true, session: { running: true }, pending: [{ seq: asked.params!.seq, event: { type: "approval.requested", requestId: asked.params!.event.requestId } }] });
    expect((await b2.request("session/approve", { sessionId, requestId: asked.params!.event.requestId, decision: "once" })).result).toEqual({});
    await b2.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(readFileSync(join(b.dir, "later.txt"), "utf8")).toBe("answered later");
    b2.close();
    expect(await s.stop()).toBe(0);
  }, 90_000);

  test("a client killed mid-turn: the turn goes on; reconnecting with afterSeq gets every missed event once", async () => {
    const s = await serve();
    const a = await client(s);
    const sessionId = await newSession(a);
    const k = new ProcClient(s, sessionId);
    expect((await k.ready()).driver).toBe(false);
    fake.enqueue({ text: `${"tick ".repeat(600)}LAST-TICK`, chunkCount: 300, chunkDelayMs: 5 });
    await a.request("session/prompt", { sessionId, text: "count slowly" });
    await until(() => k.seqs().length >= 20, "some events at the doomed client");
    k.proc.kill("SIGKILL");
    await k.proc.exited;
    const seen = k.seqs();
    expect(seen).toEqual(range(seen[0]!, seen.at(-1)!));
    const done = await a.waitFor((m) => m.params?.event.type === "turn.completed");
    expect(done.params!.event.stopReason).not.toBe("interrupted");
    // Back, in a new connection, from the last event it saw.
    const back = new ProcClient(s, sessionId, seen.at(-1)!);
    await back.ready();
    const total = seqsOf(a, sessionId).at(-1)!;
    await until(() => back.seqs().at(-1) === total, "the replay");
    expect([...seen, ...back.seqs()]).toEqual(range(seen[0]!, total));
    back.proc.kill("SIGKILL");
    a.close();
    expect(await s.stop()).toBe(0);
  }, 90_000);

  test("a slow client (stops reading its socket) is dropped with server/closing slow_client; the other client keeps its pace", async () => {
    const s = await serve({ CHATCLI_SERVE_QUEUE_BYTES: "65536" });
    const fast = await client(s);
    const sessionId = await newSession(fast);
    const slow = new ProcClient(s, sessionId);
    await slow.ready();
    process.kill(slow.proc.pid, "SIGSTOP");
    // ~12 MB of events: far more than the slow client's socket buffers, its WebSocket buffer and its queue hold.
    fake.enqueue({ chunks: Array.from({ length: 400 }, (_, i) => `${String(i).padStart(4, "0")}${"x".repeat(32 * 1024)}\n`) });
    await fast.request("session/prompt", { sessionId, text: "a huge answer" });
    // The fast client gets the whole turn while the slow one is still stopped.
    await fast.waitFor((m) => m.params?.event.type === "turn.completed", 60_000);
    expect(s.stderr()).toContain("slow_client");
    const seqs = seqsOf(fast, sessionId);
    expect(seqs).toEqual(range(1, seqs.length));
    process.kill(slow.proc.pid, "SIGCONT");
    await until(() => slow.closeCode() !== undefined, "the slow client to see its socket closed").catch((e: Error) => {
      throw new Error(`${e.message}; it got ${slow.messages().length} messages, last ${JSON.stringify(slow.messages().at(-1))?.slice(0, 200)}; server: ${s.stderr().slice(-1500)}`);
    });
    expect(slow.closeCode()).toBe(4008);
    const last = slow.messages().at(-1)!;
    expect(last).toMatchObject({ method: "server/closing", params: { reason: "slow_client" } });
    const got = slow.seqs();
    expect(got).toEqual(range(got[0] ?? 1, got.at(-1) ?? 0)); // a gap-free prefix: it resumes with afterSeq
    expect(got.length).toBeLessThan(seqs.length);
    // The session and the fast client go on.
    fake.enqueue({ text: "still here" });
    await fast.request("session/prompt", { sessionId, text: "still there?" });
    await fast.waitFor((m) => m.params?.event.type === "message.completed" && JSON.stringify(m.params.event).includes("still here"));
    const status = (await (await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}` } })).json()) as Record<string, unknown>;
    expect(JSON.stringify(status)).toMatch(/dropped/i);
    fast.close();
    expect(await s.stop()).toBe(0);
  }, 120_000);

  test("SIGTERM mid-turn ends every turn, saves every session and exits 0; a restarted server resumes them", async () => {
    const s = await serve();
    const one = await client(s);
    const two = await client(s);
    const ids = [await newSession(one), await newSession(two)];
    fake.enqueue({ text: "alpha ".repeat(400), chunkCount: 400, chunkDelayMs: 20 }, { text: "beta ".repeat(400), chunkCount: 400, chunkDelayMs: 20 });
    await one.request("session/prompt", { sessionId: ids[0], text: "story ALPHA" });
    await two.request("session/prompt", { sessionId: ids[1], text: "story BETA" });
    await one.waitFor((m) => m.params?.event.type === "message.delta");
    await two.waitFor((m) => m.params?.event.type === "message.delta");
    expect(await s.stop("SIGTERM")).toBe(0);
    for (const [c, id] of [[one, ids[0]!], [two, ids[1]!]] as const) {
      await c.waitFor((m) => m.method === "server/closing", 5_000);
      const types = c.events(id).map((e) => e.type);
      expect(types).toContain("turn.completed");
      expect(types.at(-1)).toBe("session.ended");
      expect(c.messages.find((m) => m.method === "server/closing")!.params).toMatchObject({ reason: "shutdown" });
    }

    const again = await serve();
    const c = await client(again);
    const listed = (await c.request("session/list")).result!.sessions as Array<{ sessionId: string; live: boolean }>;
    for (const id of ids) expect(listed.find((x) => x.sessionId === id)).toMatchObject({ live: false });
    for (const [id, word] of [[ids[0]!, "ALPHA"], [ids[1]!, "BETA"]] as const) {
      const loaded = await c.request("session/load", { sessionId: id });
      expect(loaded.error).toBeUndefined();
      expect((loaded.result!.history as Array<{ role: string; content: string }>).some((m) => m.role === "user" && m.content.includes(word))).toBe(true);
    }
    fake.enqueue({ text: "resumed fine" });
    await c.request("session/prompt", { sessionId: ids[0], text: "go on" });
    await c.waitFor((m) => m.params?.event.type === "message.completed" && JSON.stringify(m.params.event).includes("resumed fine"));
    c.close();
    expect(await again.stop()).toBe(0);
  }, 120_000);
});
