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

    // SIGTERM mid-turn: the turn ends, the session is saved, the client hears session.ended then server/closing.
    const before = c.events(sessionId).length;
    fake.enqueue({ text: "word ".repeat(500), chunkCount: 500, chunkDelayMs: 20 });
    await c.request("session/prompt", { sessionId, text: "a long story" });
    await c.waitFor((m) => m.params?.event?.type === "message.delta" && m.params.seq > before);
    expect(await s.stop()).toBe(0);
    await c.waitFor((m) => m.method === "server/closing");
    expect(c.messages.find((m) => m.method === "server/closing")!.params).toMatchObject({ reason: "shutdown" });
    const tail = c.events(sessionId).slice(before).map((e) => e.type);
    expect(tail).toContain("turn.completed");
    expect(tail.at(-1)).toBe("session.ended");
    expect(c.messages.findIndex((m) => m.method === "server/closing")).toBeGreaterThan(c.messages.findIndex((m) => m.params?.event?.type === "session.ended"));
    await c.waitFor(() => c.closeCode !== undefined, 5_000);
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

describe("chatcli serve: several sessions, several clients (compiled binary)", () => {
  test("two sessions on one server; a second client on a session observes (its ops are refused) and gets the same events", async () => {
    const s = await serve();
    const a = await WsClient.open(s.url, s.token);
    const o = await WsClient.open(s.url, s.token);
    await a.request("initialize", { protocolVersion: 1 });
    await o.request("initialize", { protocolVersion: 1 });
    const one = sessionIdOf(await a.request("session/new", {}));
    const two = sessionIdOf(await o.request("session/new", {}));
    expect(one).not.toBe(two);
    const attached = await o.request("session/load", { sessionId: one, afterSeq: 0 });
    expect(attached.result).toMatchObject({ driver: false, session: { sessionId: one, clients: 2 } });
    expect((await o.request("session/prompt", { sessionId: one, text: "not yours" })).error!.code).toBe(-32002);
    fake.enqueue({ text: "Shared answer." });
    await a.request("session/prompt", { sessionId: one, text: "hello both" });
    await a.waitFor((m) => m.params?.sessionId === one && m.params.event?.type === "turn.completed");
    await o.waitFor((m) => m.params?.sessionId === one && m.params.event?.type === "turn.completed");
    expect(o.events(one).map((e) => e.seq)).toEqual(a.events(one).map((e) => e.seq));
    const listed = (await a.request("session/list")).result!.sessions as Array<{ sessionId: string; live: boolean }>;
    expect(listed.filter((x) => x.live).map((x) => x.sessionId).sort()).toEqual([one, two].sort());
    // The driver leaves: the observer drives.
    a.close();
    await Bun.sleep(200);
    fake.enqueue({ text: "Now yours." });
    expect((await o.request("session/prompt", { sessionId: one, text: "mine now" })).result).toEqual({ queued: false });
    await o.waitFor((m) => m.params?.sessionId === one && JSON.stringify(m.params.event).includes("Now yours."));
    o.close();
    expect(await s.stop()).toBe(0);
  }, 60_000);
});

describe("chatcli serve security (compiled binary)", () => {
  test("no token / wrong token → 401 on every endpoint (the WebSocket upgrade too); wrong Origin → 403; allowlisted Origin ok; Host rebinding → 421", async () => {
    const allowed = "https://editor.example";
    const s = await serve(["--allow-origin", allowed]);
    const auth = { authorization: `Bearer ${s.token}` };
    const endpoints: Array<[string, RequestInit]> = [
      ["/rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }) }],
      ["/status", {}],
      ["/events?sessionId=x", {}],
      ["/ws", { headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } }],
    ];
    for (const [path, init] of endpoints) {
      const base = (init.headers ?? {}) as Record<string, string>;
      const none = await fetch(`${s.url}${path}`, init);
      expect([path, none.status]).toEqual([path, 401]);
      expect(await none.text()).toBe(""); // no detail
      const wrong = await fetch(`${s.url}${path}`, { ...init, headers: { ...base, authorization: `Bearer ${s.token.slice(0, -2)}xx` } });
      expect([path, wrong.status]).toEqual([path, 401]);
      const evil = await fetch(`${s.url}${path}`, { ...init, headers: { ...base, ...auth, origin: "http://evil.example" } });
      expect([path, evil.status]).toEqual([path, 403]);
      expect(evil.headers.get("access-control-allow-origin")).toBeNull();
      const rebind = await fetch(`${s.url}${path}`, { ...init, headers: { ...base, ...auth, host: `attacker.example:${s.port}` } });
      expect([path, rebind.status]).toEqual([path, 421]);
    }
    // A real WebSocket client without the token cannot open; with the subprotocol form it can.
    await expect(WsClient.open(s.url, "wrong")).rejects.toThrow();
    const viaProtocol = new WebSocket(`${s.url.replace("http", "ws")}/ws`, [`chatcli.token.${s.token}`]);
    await new Promise<void>((resolve, reject) => {
      viaProtocol.onopen = () => resolve();
      viaProtocol.onerror = () => reject(new Error("subprotocol token refused"));
    });
    viaProtocol.close();
    const ok = await fetch(`${s.url}/status`, { headers: { ...auth, origin: allowed } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(allowed);
    const preflight = await fetch(`${s.url}/rpc`, { method: "OPTIONS", headers: { origin: allowed, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
    const ws = await WsClient.open(s.url, s.token, { headers: { origin: allowed } });
    expect((await ws.request("initialize", { protocolVersion: 1 })).result).toBeDefined();
    ws.close();
    const status = (await (await fetch(`${s.url}/status`, { headers: auth })).json()) as { errors: { unauthorized: number; forbidden: number } };
    expect(status.errors.unauthorized).toBeGreaterThanOrEqual(9);
    expect(status.errors.forbidden).toBeGreaterThanOrEqual(8);
    expect(await s.stop("SIGINT")).toBe(0);
    expect(s.stderr()).not.toContain(s.token);
    expect(s.stderr()).toContain("GET /status 401");
  }, 60_000);

  test("settings server.allowedOrigins allowlists an origin", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(b.env.CHATCLI_HOME!, { recursive: true });
    const settings = join(b.env.CHATCLI_HOME!, "settings.json");
    writeFileSync(settings, JSON.stringify({ server: { allowedOrigins: ["http://localhost:5173"] } }));
    try {
      const s = await serve();
      expect((await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}`, origin: "http://localhost:5173" } })).status).toBe(200);
      expect((await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}`, origin: "http://localhost:5174" } })).status).toBe(403);
      expect(await s.stop()).toBe(0);
    } finally {
      (await import("node:fs")).rmSync(settings);
    }
  }, 30_000);

  test("bind policy: non-loopback without --allow-remote → exit 2; --allow-remote without TLS or --insecure → exit 2; --insecure warns", async () => {
    const noRemote = await run(b, ["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(noRemote.code).toBe(2);
    expect(noRemote.stderr).toContain("--allow-remote");
    const noTls = await run(b, ["serve", "--host", "0.0.0.0", "--port", "0", "--allow-remote"]);
    expect(noTls.code).toBe(2);
    expect(noTls.stderr).toContain("--insecure");
    const half = await run(b, ["serve", "--port", "0", "--tls-cert", "/nonexistent"]);
    expect(half.code).toBe(2);
    const stdioMix = await run(b, ["serve", "--stdio", "--port", "1"]);
    expect(stdioMix.code).toBe(2);
    for (let i = 0; i < 2; i++) {
      const s = await serve(["--host", "0.0.0.0", "--allow-remote", "--insecure"]);
      expect(s.stderr()).toMatch(/WARNING: --insecure/); // at every start
      expect(s.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      const local = s.url.replace("0.0.0.0", "127.0.0.1");
      expect((await fetch(`${local}/status`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(200);
      expect((await fetch(`${local}/status`)).status).toBe(401);
      expect(await s.stop()).toBe(0);
    }
    const help = await run(b, ["serve", "--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--host", "--port", "--allow-remote", "--tls-cert", "--tls-key", "--insecure", "--allow-origin", "--token-file", "--probe", "--stdio", "--print-schema"]) expect(help.stdout).toContain(flag);
  }, 60_000);

  test("CHATCLI_SERVER_TOKEN and --token-file set the token; --probe exits 0 with the right token, 1 otherwise", async () => {
    const fixed = "fixed-token-for-the-test-0123456789";
    const s = await serve([], { CHATCLI_SERVER_TOKEN: fixed });
    expect(s.token).toBe(fixed);
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
    const probeOk = await run(b, ["serve", "--probe", s.url]); // the port's token file
    expect(probeOk.code).toBe(0);
    expect((await run(b, ["serve", "--probe", s.url], { CHATCLI_SERVER_TOKEN: fixed })).code).toBe(0);
    const probeBad = await run(b, ["serve", "--probe", s.url], { CHATCLI_SERVER_TOKEN: "nope" });
    expect(probeBad.code).toBe(1);
    expect(probeBad.stderr).toContain("401");
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).not.toContain(fixed);
    expect((await run(b, ["serve", "--probe", s.url], { CHATCLI_SERVER_TOKEN: fixed })).code).toBe(1); // nothing listens

    const { writeFileSync } = await import("node:fs");
    const secretFile = join(b.dir, "..", "mounted-token");
    writeFileSync(secretFile, "from-a-mounted-secret-abcdef\n");
    const f = await serve(["--token-file", secretFile]);
    expect(f.token).toBe("from-a-mounted-secret-abcdef");
    expect((await run(b, ["serve", "--probe", f.url, "--token-file", secretFile])).code).toBe(0);
    expect(await f.stop()).toBe(0);
  }, 60_000);

  test("TLS: https and wss with a test certificate; --probe trusts it with --tls-cert", async () => {
    const { hasOpenssl, makeKubePki } = await import("../support/kube-certs.ts");
    if (!hasOpenssl()) return;
    const pki = makeKubePki();
    const { writeFileSync } = await import("node:fs");
    const dir = join(b.dir, "..");
    writeFileSync(join(dir, "srv.crt"), pki.certPem);
    writeFileSync(join(dir, "srv.key"), pki.keyPem);
    writeFileSync(join(dir, "ca.crt"), pki.caPem);
    const s = await serve(["--tls-cert", join(dir, "srv.crt"), "--tls-key", join(dir, "srv.key")]);
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}` }, tls: { ca: pki.caPem } });
    expect(res.status).toBe(200);
    await expect(fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}` } })).rejects.toThrow(); // untrusted without the CA
    const ws = await WsClient.open(s.url, s.token, { ca: pki.caPem });
    expect((await ws.request("initialize", { protocolVersion: 1 })).result).toMatchObject({ protocolVersion: 1 });
    ws.close();
    expect((await run(b, ["serve", "--probe", s.url, "--tls-cert", join(dir, "ca.crt")])).code).toBe(0);
    expect((await run(b, ["serve", "--probe", s.url])).code).toBe(1);
    // The server's own (CA-signed) certificate as --tls-cert: pinned, so a probe in the pod needs no CA file.
    expect((await run(b, ["serve", "--probe", s.url, "--tls-cert", join(dir, "srv.crt")])).code).toBe(0);
    writeFileSync(join(dir, "other.crt"), pki.otherCaPem);
    const wrongPin = await run(b, ["serve", "--probe", s.url, "--tls-cert", join(dir, "other.crt")]);
    expect(wrongPin.code).toBe(1);
    expect(wrongPin.stderr).not.toContain(s.token);
    expect(await s.stop()).toBe(0);
  }, 60_000);
});
