// `chatcli serve` over HTTP/WebSocket/SSE (issue 22), driven as editors and scripts would: the compiled binary on
// a free 127.0.0.1 port, the fake Ollama behind it, real sockets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, run, type BinaryEnv } from "../support/binary.ts";
import { postRpc, readSse, startServer, WsClient, type RunningServer } from "../support/http-server-client.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };
const servers: RunningServer[] = [];

beforeAll(() => {
  b = isolatedBinary();
  Bun.spawnSync(["git", "init", "-q"], { cwd: b.dir });
  fake = startFakeOllama({ models: [model] });
});
afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null) await s.stop();
  fake.stop();
  b.cleanup();
});

async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<RunningServer> {
  const s = await startServer(b, ["--model", "coder:7b", ...args], { OLLAMA_HOST: fake.url, ...env });
  servers.push(s);
  return s;
}

const sessionIdOf = (m: { result?: Record<string, unknown> }) => (m.result!.session as { sessionId: string }).sessionId;

describe("chatcli serve over WebSocket and POST /rpc (compiled binary)", () => {
  test("a full tool turn with an approval over WebSocket; interrupt; /status counters move; SIGTERM removes the token file", async () => {
    const s = await serve();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const mode = statSync(s.tokenFile).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(statSync(dirname(s.tokenFile)).mode & 0o777).toBe(0o700);
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url

    const c = await WsClient.open(s.url, s.token);
    const init = await c.request("initialize", { protocolVersion: 1, clientInfo: { name: "test" } });
    expect(init.result).toMatchObject({ protocolVersion: 1, serverInfo: { name: "chatcli" } });
    const created = await c.request("session/new", {});
    const sessionId = sessionIdOf(created);
    expect(created.result).toMatchObject({ driver: true, seq: 0, session: { model: "coder:7b", live: true } });
    await c.waitFor((m) => m.params?.event?.type === "session.started");

    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi over ws" } }], chunks: [] }, { text: "Wrote it." });
    expect((await c.request("session/prompt", { sessionId, text: "create hello.txt" })).result).toEqual({ queued: false });
    const asked = await c.waitFor((m) => m.params?.event?.type === "approval.requested");
    expect(existsSync(join(b.dir, "hello.txt"))).toBe(false);
    expect((await c.request("session/approve", { sessionId, requestId: asked.params!.event.requestId, decision: "once" })).result).toEqual({});
    await c.waitFor((m) => m.params?.event?.type === "turn.completed");
    expect(readFileSync(join(b.dir, "hello.txt"), "utf8")).toBe("hi over ws");
    const seqs = c.events(sessionId).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // Interrupt a streaming turn.
    fake.enqueue({ text: "slow ".repeat(400), chunkCount: 400, chunkDelayMs: 20 });
    await c.request("session/prompt", { sessionId, text: "talk slowly" });
    await c.waitFor((m) => m.params?.event?.type === "message.delta");
    expect((await c.request("session/interrupt", { sessionId })).result).toEqual({});
    const done = await c.waitFor((m) => m.params?.event?.type === "turn.completed" && m.params.seq > seqs.at(-1)!);
    expect(done.params!.event.stopReason).not.toBe("end_turn");

    const status = (await (await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}` } })).json()) as {
      sessions: { live: number; created: number };
      turns: number;
      tokens: { input: number; output: number };
      events: number;
      clients: Array<{ id: string; transport: string; events: number; eventsPerSecond: number }>;
      errors: { unauthorized: number };
      droppedClients: number;
    };
    expect(status.sessions).toEqual({ live: 1, created: 1 });
    expect(status.turns).toBe(2);
    expect(status.tokens.input).toBeGreaterThan(0);
    expect(status.events).toBeGreaterThanOrEqual(c.events(sessionId).length);
    const me = status.clients.find((x) => x.transport === "ws")!;
    expect(me.events).toBe(c.events(sessionId).length);
    expect(me.eventsPerSecond).toBeGreaterThan(0);
    expect(status.droppedClients).toBe(0);

    expect(await s.stop()).toBe(0);
    await c.waitFor((m) => m.method === "server/closing");
    expect(c.messages.find((m) => m.method === "server/closing")!.params).toMatchObject({ reason: "shutdown" });
    expect(c.events(sessionId).at(-1)!.type).toBe("session.ended");
    expect(existsSync(s.tokenFile)).toBe(false);
    expect(s.stderr()).not.toContain(s.token);
    expect(s.stderr()).toMatch(/ws-\d+ session\/prompt ok \d+ms/); // one line per request, with its duration
    expect(s.stderr()).not.toContain("create hello.txt"); // never params
  }, 90_000);

  test("POST /rpc with a client id, GET /events (SSE) from the start and resumed with Last-Event-ID; a restarted server resumes the session", async () => {
    const s = await serve();
    const client = "script-1";
    expect((await postRpc(s.url, s.token, "initialize", { protocolVersion: 1 }, { client })).body!.result).toMatchObject({ protocolVersion: 1 });
    const created = await postRpc(s.url, s.token, "session/new", {}, { client });
    expect(created.status).toBe(200);
    const sessionId = sessionIdOf(created.body!);
    fake.enqueue({ text: "The codeword is PELICAN." });
    expect((await postRpc(s.url, s.token, "session/prompt", { sessionId, text: "remember the codeword" }, { client })).body!.result).toEqual({ queued: false });

    const headers = { authorization: `Bearer ${s.token}`, "x-chatcli-client": client };
    const res = await fetch(`${s.url}/events?sessionId=${sessionId}`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const first = await readSse(res, (e) => e.data.params?.event?.type === "turn.completed");
    expect(first.map((e) => e.id)).toEqual(first.map((_, i) => i + 1)); // id = seq, from 1, nothing missed
    expect(first[0]!.data).toMatchObject({ method: "session/event", params: { sessionId, seq: 1, event: { type: "session.started" } } });

    // The stream dropped after turn.completed; a second turn runs while nobody reads; Last-Event-ID resumes it.
    const lastSeen = first.at(-1)!.id!;
    fake.enqueue({ text: "Second answer." });
    const resumed = await fetch(`${s.url}/events?sessionId=${sessionId}`, { headers: { ...headers, "last-event-id": String(lastSeen) } });
    expect(resumed.status).toBe(200);
    expect((await postRpc(s.url, s.token, "session/prompt", { sessionId, text: "again" }, { client })).body!.result).toEqual({ queued: false });
    const second = await readSse(resumed, (e) => e.data.params?.event?.type === "turn.completed");
    expect(second[0]!.id).toBe(lastSeen + 1); // no gap, no duplicate
    expect(second.map((e) => e.id)).toEqual(second.map((_, i) => lastSeen + 1 + i));

    // A client notification (no id) over POST is executed and gets 204.
    const note = await fetch(`${s.url}/rpc`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", method: "session/list" }) });
    expect(note.status).toBe(204);
    // A message over the 16 MiB cap is refused by its declared length.
    const big = await fetch(`${s.url}/rpc`, { method: "POST", headers: { authorization: `Bearer ${s.token}` }, body: "x".repeat(16 * 1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect(await s.stop()).toBe(0);

    const again = await serve();
    const c = await WsClient.open(again.url, again.token);
    await c.request("initialize", { protocolVersion: 1 });
    const listed = (await c.request("session/list")).result!.sessions as Array<{ sessionId: string; live: boolean }>;
    expect(listed.find((x) => x.sessionId === sessionId)).toMatchObject({ live: false });
    const loaded = await c.request("session/load", { sessionId });
    expect(loaded.error).toBeUndefined();
    expect((loaded.result!.history as Array<{ role: string; content: string }>).some((m) => m.role === "assistant" && m.content.includes("PELICAN"))).toBe(true);
    fake.enqueue({ text: "It was PELICAN." });
    await c.request("session/prompt", { sessionId, text: "what was it?" });
    await c.waitFor((m) => m.params?.event?.type === "turn.completed");
    const sent = fake.chatRequests().at(-1)!.messages as Array<{ role: string; content: string }>;
    expect(sent.some((m) => m.role === "assistant" && m.content.includes("PELICAN"))).toBe(true);
    c.close();
    expect(await again.stop()).toBe(0);
  }, 90_000);
});
