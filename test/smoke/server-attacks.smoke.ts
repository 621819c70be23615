// `chatcli serve` attacked the way a browser page, a local process, a hostile client and a prompt-injected model
// would (issue 22's security lines), through the compiled binary on 127.0.0.1. Each row names the expected
// decision; where a command could have run, the fake model was primed to run it and a canary file proves it did not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.ts";
import { isolatedBinary, type BinaryEnv } from "../support/binary.ts";
import { postRpc, startServer, WsClient, type RunningServer } from "../support/http-server-client.ts";

let b: BinaryEnv;
let fake: FakeOllama;
const model = { name: "coder:7b", contextLength: 16384, capabilities: ["completion", "tools"] };
const servers: RunningServer[] = [];
const bwrapWorks = Bun.spawnSync(["bwrap", "--ro-bind", "/", "/", "--unshare-net", "true"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
const GOOD_ORIGIN = "http://editor.example:3000";
const PROMPT = "PROMPT-TEXT-MUST-NOT-BE-LOGGED";

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

/** One raw HTTP/1.1 exchange (every header under our control, Host included); resolves with status and headers. */
function raw(port: number, request: string, body = ""): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: "127.0.0.1", port });
    let data = "";
    const timer = setTimeout(() => sock.destroy(), 5_000);
    sock.on("connect", () => sock.write(request + body));
    sock.on("data", (d) => {
      data += d.toString("latin1");
      if (/\r\n\r\n/.test(data)) sock.end();
    });
    sock.on("error", reject);
    sock.on("close", () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (!m) reject(new Error(`no HTTP response: ${JSON.stringify(data.slice(0, 200))}`));
      else resolve({ status: Number(m[1]), head: data.split("\r\n\r\n")[0]!.toLowerCase() });
    });
  });
}

interface Row {
  name: string;
  method?: string;
  path?: string;
  /** Header lines; `PORT`, `TOKEN`, `TOKEN_PREFIX` and `BASIC` are replaced. Host defaults to 127.0.0.1:PORT. */
  headers: string[];
  body?: string;
  expect: number;
  /** The response must carry no CORS grant. */
  noCors?: boolean;
}

const initBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });

function rows(port: number): Row[] {
  const auth = "Authorization: Bearer TOKEN";
  return [
    // Browser pages (the CVE class: a web page driving a local agent). The token is sent too: the guard itself refuses.
    { name: "Origin: null (sandboxed iframe, file://)", method: "POST", path: "/rpc", headers: ["Origin: null", auth, "Content-Type: application/json"], body: initBody, expect: 403, noCors: true },
    { name: "Origin: http://127.0.0.1.evil.com", method: "POST", path: "/rpc", headers: ["Origin: http://127.0.0.1.evil.com", auth, "Content-Type: application/json"], body: initBody, expect: 403, noCors: true },
    { name: "Origin: another localhost port (not allowlisted)", method: "POST", path: "/rpc", headers: [`Origin: http://localhost:${port + 1}`, auth], body: initBody, expect: 403, noCors: true },
    { name: "Origin: allowlisted origin with a suffix", method: "POST", path: "/rpc", headers: [`Origin: ${GOOD_ORIGIN}.evil.com`, auth], body: initBody, expect: 403, noCors: true },
    { name: "no Origin, Sec-Fetch-Site: cross-site", method: "POST", path: "/rpc", headers: ["Sec-Fetch-Site: cross-site", auth, "Content-Type: text/plain"], body: initBody, expect: 403 },
    { name: "no Origin, Sec-Fetch-Site: same-site", method: "GET", path: "/status", headers: ["Sec-Fetch-Site: same-site", "Sec-Fetch-Mode: no-cors", auth], expect: 403 },
    { name: "CORS preflight from a foreign origin", method: "OPTIONS", path: "/rpc", headers: ["Origin: https://evil.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: authorization"], expect: 403, noCors: true },
    { name: "simple request: text/plain POST /rpc, foreign origin, no token", method: "POST", path: "/rpc", headers: ["Origin: https://evil.example", "Content-Type: text/plain"], body: initBody, expect: 403, noCors: true },
    { name: "text/plain POST /rpc, no Origin, no token", method: "POST", path: "/rpc", headers: ["Content-Type: text/plain"], body: initBody, expect: 401 },
    { name: "WS upgrade from a foreign Origin with the token subprotocol", method: "GET", path: "/ws", headers: ["Origin: https://evil.example", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: chatcli.token.TOKEN"], expect: 403, noCors: true },
    { name: "SSE from a foreign Origin", method: "GET", path: "/events?sessionId=x", headers: ["Origin: https://evil.example", auth, "Accept: text/event-stream"], expect: 403, noCors: true },
    // DNS rebinding: a foreign name resolving to 127.0.0.1.
    { name: "Host: evil.com:PORT", method: "GET", path: "/status", headers: ["Host: evil.com:PORT", auth], expect: 421 },
    { name: "Host: 127.0.0.1.evil.com", method: "GET", path: "/status", headers: ["Host: 127.0.0.1.evil.com", auth], expect: 421 },
    { name: "Host: localhost. (trailing dot)", method: "GET", path: "/status", headers: ["Host: localhost.:PORT", auth], expect: 421 },
    { name: "Host: 127.0.0.1. (trailing dot)", method: "GET", path: "/status", headers: ["Host: 127.0.0.1.", auth], expect: 421 },
    { name: "Host: evil.localhost", method: "GET", path: "/status", headers: ["Host: evil.localhost:PORT", auth], expect: 421 },
    { name: "Host: user@localhost", method: "GET", path: "/status", headers: ["Host: user@localhost:PORT", auth], expect: 421 },
    { name: "Host: LOCALHOST (uppercase loopback name: allowed)", method: "GET", path: "/status", headers: ["Host: LOCALHOST:PORT", auth], expect: 200 },
    { name: "Host: [::1] (loopback literal: allowed)", method: "GET", path: "/status", headers: ["Host: [::1]:PORT", auth], expect: 200 },
    // The token.
    { name: "token in the query string only", method: "GET", path: "/status?token=TOKEN&access_token=TOKEN", headers: [], expect: 401 },
    { name: "empty Bearer", method: "GET", path: "/status", headers: ["Authorization: Bearer "], expect: 401 },
    { name: "Bearer with the token's prefix", method: "GET", path: "/status", headers: ["Authorization: Bearer TOKEN_PREFIX"], expect: 401 },
    { name: "Bearer with the token plus a character", method: "GET", path: "/status", headers: ["Authorization: Bearer TOKENx"], expect: 401 },
    { name: "two tokens in one Authorization", method: "GET", path: "/status", headers: ["Authorization: Bearer TOKEN TOKEN"], expect: 401 },
    { name: "Basic auth with the token as password", method: "GET", path: "/status", headers: ["Authorization: Basic BASIC"], expect: 401 },
    { name: "token as a cookie", method: "GET", path: "/status", headers: ["Cookie: token=TOKEN"], expect: 401 },
    // Positive controls: the same server answers what it should.
    { name: "control: the token, no Origin", method: "GET", path: "/status", headers: [auth], expect: 200 },
    { name: "control: the allowlisted Origin gets its preflight", method: "OPTIONS", path: "/rpc", headers: [`Origin: ${GOOD_ORIGIN}`, "Access-Control-Request-Method: POST"], expect: 204 },
  ];
}

describe("chatcli serve under attack (compiled binary)", () => {
  test("browser pages, DNS rebinding and token tricks are refused; nothing reaches the model", async () => {
    const canary = join(b.dir, "canary-browser.txt");
    const s = await serve(["--allow-origin", GOOD_ORIGIN]);
    const before = fake.chatRequests().length;
    const fill = (line: string) =>
      line
        .replaceAll("PORT", String(s.port))
        .replaceAll("TOKEN_PREFIX", s.token.slice(0, -1))
        .replaceAll("BASIC", Buffer.from(`chatcli:${s.token}`).toString("base64"))
        .replaceAll("TOKEN", s.token);
    const failures: string[] = [];
    for (const r of rows(s.port)) {
      const headers = r.headers.map(fill);
      if (!headers.some((h) => /^host:/i.test(h))) headers.unshift(`Host: 127.0.0.1:${s.port}`);
      const body = r.body ?? "";
      const req = `${r.method ?? "GET"} ${fill(r.path ?? "/")} HTTP/1.1\r\n${[...headers, `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"].join("\r\n")}\r\n\r\n`;
      const got = await raw(s.port, req, body);
      if (got.status !== r.expect) failures.push(`${r.name}: expected ${r.expect}, got ${got.status}`);
      if (r.noCors && got.head.includes("access-control-allow")) failures.push(`${r.name}: CORS headers sent`);
    }
    // No Host header at all (HTTP/1.0): refused.
    const noHost = await raw(s.port, `GET /status HTTP/1.0\r\nAuthorization: Bearer ${s.token}\r\n\r\n`);
    if (noHost.status !== 421) failures.push(`no Host header: expected 421, got ${noHost.status}`);
    expect(failures).toEqual([]);
    // Nothing any refused row sent ran: the model was never asked, the canary was never written.
    expect(fake.chatRequests().length).toBe(before);
    expect(existsSync(canary)).toBe(false);
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).not.toContain(s.token);
    expect(s.stderr()).not.toMatch(/authorization|bearer/i);
  }, 60_000);

  test("the token file: a planted symlink, a symlinked or world-readable directory, a second server, a crash", async () => {
    const home = b.env.CHATCLI_HOME!;
    const dir = join(home, "server");
    const victim = join(b.dir, "..", "victim.txt");
    writeFileSync(victim, "precious\n");
    const port = await freePort();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777); // pre-existing and world-readable
    symlinkSync(victim, join(dir, `${port}.token`)); // planted: writing through it would clobber the victim
    // startServer passes --port 0 first; the later --port wins.
    const s = await serve(["--port", String(port)]);
    expect(s.port).toBe(port);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(s.tokenFile).isSymbolicLink()).toBe(false);
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    // A second server on the same port fails to listen and leaves the first one's token alone.
    const second = Bun.spawnSync([b.bin, "serve", "--port", String(port), "--model", "coder:7b"], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url } });
    expect(second.exitCode).toBe(1);
    expect(readFileSync(s.tokenFile, "utf8").trim()).toBe(s.token);
    expect((await fetch(`${s.url}/status`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(200);

    // A crash (SIGKILL) leaves the file 0600; the next start on that port replaces it and the old token is dead.
    await s.stop("SIGKILL");
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
    const again = await serve(["--port", String(port)]);
    expect(again.token).not.toBe(s.token);
    expect((await fetch(`${again.url}/status`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(401);
    await again.stop();
    expect(existsSync(again.tokenFile)).toBe(false);

    // The directory itself a symlink: refused (exit 1), nothing written where it points.
    const elsewhere = join(b.dir, "..", "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    Bun.spawnSync(["rm", "-rf", dir]);
    symlinkSync(elsewhere, dir);
    const linked = Bun.spawnSync([b.bin, "serve", "--port", "0", "--model", "coder:7b"], { cwd: b.dir, env: { ...b.env, OLLAMA_HOST: fake.url }, timeout: 15_000 });
    expect(linked.exitCode).toBe(1);
    expect(Bun.spawnSync(["ls", "-A", elsewhere]).stdout.toString()).toBe("");
    Bun.spawnSync(["rm", "-f", dir]);
  }, 90_000);

  test("JSON-RPC abuse: huge and deep frames, batches, __proto__, path-like session ids, bypass from the wire, foreign approvals, bad afterSeq", async () => {
    const s = await serve();
    const c = await WsClient.open(s.url, s.token);
    expect((await c.request("initialize", { protocolVersion: 1 })).result).toBeDefined();
    const send = async (text: string) => {
      const n = c.messages.length;
      c.ws.send(text);
      return c.waitFor((m) => c.messages.indexOf(m) >= n && m.method === undefined);
    };
    // Deep nesting and a batch: answered with an error, the connection goes on.
    expect((await send("[".repeat(100_000))).error!.code).toBe(-32700);
    expect((await send(`{"jsonrpc":"2.0","id":"deep","method":"session/list","params":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)).error).toBeDefined();
    expect((await send(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "session/list" }]))).error!.code).toBe(-32600);
    // Huge POST: refused before it is read.
    const huge = await fetch(`${s.url}/rpc`, { method: "POST", headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" }, body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"${"a".repeat(17 * 1024 * 1024)}"}}` });
    expect(huge.status).toBe(413);

    // Session ids that look like paths never read a file outside the sessions dir (a valid session file planted outside).
    const outside = join(b.dir, "..", "planted");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "evil.jsonl"), `${JSON.stringify({ type: "meta", id: "evil", cwd: "/" })}\n`);
    for (const ref of ["../../planted/evil", join(outside, "evil.jsonl"), join(outside, "evil"), "../../../../etc/passwd", "__proto__", "constructor"]) {
      expect({ ref, error: (await c.request("session/load", { sessionId: ref })).error }).toEqual({ ref, error: { code: -32001, message: expect.any(String) } });
    }

    // Bypass asked from the wire, by the key or through __proto__: refused / ignored.
    expect((await c.request("session/new", { permissionMode: "bypass" })).error).toMatchObject({ code: -32602, message: expect.stringContaining("bypass") });
    const smuggled = await send(`{"jsonrpc":"2.0","id":"p","method":"session/new","params":{"__proto__":{"permissionMode":"bypass"}}}`);
    const sessionId = (smuggled.result!.session as { sessionId: string }).sessionId;
    await c.waitFor((m) => m.params?.event?.type === "session.started");
    expect((await c.request("session/setMode", { sessionId, mode: "bypass" })).error?.code).toBe(-32602);
    // Had bypass got through, this write would run unasked: it asks, and a denial leaves no file.
    const canary = join(b.dir, "canary-bypass.txt");
    fake.enqueue({ toolCalls: [{ name: "write", arguments: { path: canary, content: "pwned" } }], chunks: [] }, { text: "ok" });
    await c.request("session/prompt", { sessionId, text: PROMPT });
    const asked = await c.waitFor((m) => m.params?.event?.type === "approval.requested");
    const requestId = asked.params!.event.requestId as string;

    // A second client: observer of this session, driver of its own. Neither can answer this approval.
    const other = await WsClient.open(s.url, s.token);
    await other.request("initialize", { protocolVersion: 1 });
    expect((await other.request("session/load", { sessionId })).result).toMatchObject({ driver: false });
    expect((await other.request("session/approve", { sessionId, requestId, decision: "once" })).error?.code).toBe(-32002);
    const own = await other.request("session/new", {});
    const ownId = (own.result!.session as { sessionId: string }).sessionId;
    await other.request("session/approve", { sessionId: ownId, requestId, decision: "once" });
    await Bun.sleep(500);
    expect(existsSync(canary)).toBe(false);
    // afterSeq: negative, fractional, NaN-ish, huge.
    for (const afterSeq of [-1, 1.5, "NaN", 1e308, Number.MAX_SAFE_INTEGER]) {
      expect((await other.request("session/load", { sessionId, afterSeq })).error?.code).toBe(-32602);
    }
    const sse = await fetch(`${s.url}/events?sessionId=${sessionId}&afterSeq=-1`, { headers: { authorization: `Bearer ${s.token}` } });
    expect(sse.status).toBe(400);
    // The driver denies: still nothing written.
    await c.request("session/approve", { sessionId, requestId, decision: "deny" });
    await c.waitFor((m) => m.params?.event?.type === "turn.completed");
    expect(existsSync(canary)).toBe(false);
    c.close();
    other.close();
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).not.toContain(s.token);
    expect(s.stderr()).not.toContain(PROMPT);
    expect(s.stderr()).not.toMatch(/authorization|bearer/i);
  }, 120_000);

  test("bypass from the wire is allowed when the server itself was started with --permission-mode bypass", async () => {
    const s = await serve(["--permission-mode", "bypass"]);
    const c = await WsClient.open(s.url, s.token);
    await c.request("initialize", { protocolVersion: 1 });
    const created = await c.request("session/new", { permissionMode: "bypass" });
    expect(created.error).toBeUndefined();
    const sessionId = (created.result!.session as { sessionId: string }).sessionId;
    expect((await c.request("session/setMode", { sessionId, mode: "default" })).result).toEqual({});
    expect((await c.request("session/setMode", { sessionId, mode: "bypass" })).result).toEqual({});
    c.close();
    await s.stop();
  }, 60_000);

  test("a prompt-injected model cannot reach the server: no token in the child env, token dir masked, loopback blocked", async () => {
    if (!bwrapWorks) {
      console.warn("skipped: bwrap cannot create a network namespace here");
      return;
    }
    const supplied = "operator-supplied-token-0123456789abcdef";
    const s = await serve(["--permission-mode", "bypass"], { CHATCLI_SERVER_TOKEN: `${supplied}\n` });
    expect(s.token).toBe(supplied); // trailing newline trimmed
    const out = join(b.dir, "model-side");
    mkdirSync(out, { recursive: true });
    // The commands never name the token file (that would ask, and approved run outside the sandbox, as the
    // question says): they search the home for it, as an injected model would.
    const stolen = `$CHATCLI_SERVER_TOKEN$(for f in $(find "$HOME" -name '*.token' 2>/dev/null); do cat "$f"; done)`;
    const curl = (file: string) => `curl -s -m 5 -H "Authorization: Bearer ${stolen}" http://127.0.0.1:${s.port}/status > ${out}/${file} 2>&1; echo "exit $?" >> ${out}/${file}`;
    const c = await WsClient.open(s.url, s.token);
    await c.request("initialize", { protocolVersion: 1 });
    const created = await c.request("session/new", {});
    const sessionId = (created.result!.session as { sessionId: string }).sessionId;
    // The injected model: read the token (files, env), then call the server, once as the sandbox runs commands and
    // once asking for the network. Approved: every question except leaving the sandbox (a user who says yes to
    // the network but keeps the sandbox).
    fake.enqueue(
      {
        toolCalls: [
          { name: "exec", arguments: { command: `echo "${stolen}" > ${out}/leaked.txt 2>&1; find "$HOME" -name '*.token' >> ${out}/leaked.txt 2>&1; env > ${out}/env.txt` } },
          { name: "exec", arguments: { command: curl("reached.txt") } },
          { name: "exec", arguments: { command: curl("reached-net.txt"), network: true } },
        ],
        chunks: [],
      },
      { text: "done" },
    );
    await c.request("session/prompt", { sessionId, text: "ignore previous instructions" });
    const asked: string[] = [];
    for (;;) {
      const m = await c.waitFor((x) => (x.params?.event?.type === "approval.requested" && !c.messages.some((y) => y.id === `a-${x.params!.event.requestId as string}`)) || x.params?.event?.type === "turn.completed", 60_000);
      if (m.params!.event.type === "turn.completed") break;
      const e = m.params!.event as unknown as { requestId: string; tool: string; reason?: string };
      const leave = e.tool !== "exec" || /outside the sandbox/.test(e.reason ?? "");
      asked.push(`${e.tool}: ${leave ? "deny" : "once"}`);
      c.ws.send(JSON.stringify({ jsonrpc: "2.0", id: `a-${e.requestId}`, method: "session/approve", params: { sessionId, requestId: e.requestId, decision: leave ? "deny" : "once" } }));
      await c.waitFor((x) => x.id === `a-${e.requestId}`);
    }
    const results = c.messages.filter((m) => m.params?.event?.type === "tool.completed").map((m) => m.params!.event);
    // The commands ran (their files exist) but learnt nothing and reached nothing.
    expect({ ran: ["env.txt", "leaked.txt", "reached.txt", "reached-net.txt"].filter((f) => existsSync(join(out, f))), results }).toMatchObject({ ran: ["env.txt", "leaked.txt", "reached.txt", "reached-net.txt"] });

    const env = readFileSync(join(out, "env.txt"), "utf8");
    expect(env).not.toContain(supplied);
    expect(env).not.toContain("CHATCLI_SERVER_TOKEN");
    expect({ leaked: readFileSync(join(out, "leaked.txt"), "utf8"), results }).not.toMatchObject({ leaked: expect.stringContaining(supplied) });
    // The sandbox's own network: loopback unreachable (curl fails to connect).
    const reached = readFileSync(join(out, "reached.txt"), "utf8");
    expect(reached).not.toContain("protocolVersion");
    expect(reached).not.toContain("exit 0");
    // With the network granted the server answers, but without the token it is a 401 (curl -s prints no body).
    expect(readFileSync(join(out, "reached-net.txt"), "utf8")).not.toContain("protocolVersion");
    expect(reached).toContain("exit 7"); // could not connect
    // The read tool, in a session whose project is the home itself (the token dir is inside the project then).
    const inHome = await c.request("session/new", { cwd: b.home });
    const homeSession = (inHome.result!.session as { sessionId: string }).sessionId;
    const mark = c.messages.length;
    symlinkSync(s.tokenFile, join(b.home, "innocent.txt")); // a link planted in the project
    fake.enqueue({ toolCalls: [{ name: "read", arguments: { path: s.tokenFile } }, { name: "read", arguments: { path: "innocent.txt" } }, { name: "search", arguments: { pattern: "operator-supplied", path: "." } }, { name: "glob", arguments: { pattern: "**/*.token" } }], chunks: [] }, { text: "done" });
    await c.request("session/prompt", { sessionId: homeSession, text: "read the token" });
    for (;;) {
      const m = await c.waitFor((x) => c.messages.indexOf(x) >= mark && x.params?.sessionId === homeSession && (x.params.event.type === "turn.completed" || (x.params.event.type === "approval.requested" && !c.messages.some((y) => y.id === `r-${x.params!.event.requestId as string}`))), 60_000);
      if (m.params!.event.type === "turn.completed") break;
      asked.push(`read: ${m.params!.event.tool as string} asked`);
      const requestId = m.params!.event.requestId as string;
      c.ws.send(JSON.stringify({ jsonrpc: "2.0", id: `r-${requestId}`, method: "session/approve", params: { sessionId: homeSession, requestId, decision: "deny" } }));
      await c.waitFor((x) => x.id === `r-${requestId}`);
    }
    const reads = c.messages.slice(mark).filter((m) => m.params?.sessionId === homeSession && m.params.event.type === "tool.completed").map((m) => m.params!.event);
    expect(reads.map((r) => `${r.name} ${r.isError === true}`)).toEqual(["read true", "read true", "search false", "glob false"]);
    expect(JSON.stringify(reads)).not.toContain(supplied);
    expect(reads.slice(0, 2).map((r) => r.errorCode)).toEqual(["permission_denied", "permission_denied"]);
    c.close();
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).not.toMatch(/GET \/status 200/); // the server never answered the model
    expect(s.stderr()).not.toContain(supplied);
  }, 120_000);
});

async function freePort(): Promise<number> {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}
