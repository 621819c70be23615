// serve-http.ts in-process over real sockets and real Sessions (scripted provider): a WebSocket client that stops
// reading is dropped with `server/closing {slow_client}` and close code 4008 while the other client gets every event.
import { afterEach, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { ServerMetrics } from "../../src/server/metrics.ts";
import { serveHttp, type HttpServer } from "../../src/server/serve-http.ts";
import { SessionHost, type SessionFactory } from "../../src/server/session-host.ts";
import type { MachineHarness } from "../support/machine-session.ts";
import { scriptedSessionFactory } from "../support/scripted-session-factory.ts";
import { ScriptedProvider } from "../support/scripted-provider.ts";
import { WsClient } from "../support/http-server-client.ts";

const harnesses: MachineHarness[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  for (const h of harnesses.splice(0)) h.cleanup();
});

const factory = (provider: ScriptedProvider): SessionFactory => scriptedSessionFactory(provider, harnesses);

function start(provider: ScriptedProvider, token: string): { server: HttpServer; metrics: ServerMetrics; logs: string[] } {
  const metrics = new ServerMetrics();
  const logs: string[] = [];
  const server = serveHttp({ host: new SessionHost(factory(provider)), hostname: "127.0.0.1", port: 0, token, allowedOrigins: [], serverVersion: "test", metrics, log: (l) => logs.push(l), queueMaxBytes: 256 * 1024, wsHighWaterBytes: 64 * 1024 });
  cleanups.push(() => server.shutdown());
  return { server, metrics, logs };
}

/** A WebSocket client that completes the handshake, then never reads again (its kernel buffers fill). */
async function stalledClient(port: number, token: string): Promise<{ sock: Socket; closedWith: () => Buffer }> {
  const sock = connect(port, "127.0.0.1");
  const got: Buffer[] = [];
  await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
  sock.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  await new Promise<void>((resolve) =>
    sock.once("data", (d: Buffer) => {
      got.push(d);
      resolve();
    }),
  );
  expect(got[0]!.toString()).toContain("101");
  cleanups.push(() => void sock.destroy());
  return { sock, closedWith: () => Buffer.concat(got) };
}

function wsFrame(text: string): Buffer {
  // A masked client text frame (payload < 64 KiB).
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))]);
}

describe("serve-http: backpressure", () => {
  test("a WebSocket client that stops reading is dropped (server/closing slow_client, 4008); the driver gets every event", async () => {
    const token = "t-0123456789abcdef";
    const provider = new ScriptedProvider([{ text: "x".repeat(6000).repeat(2000), chunks: 2000, delayMs: 1 }]);
    const { server, metrics, logs } = start(provider, token);
    const driver = await WsClient.open(server.url, token);
    await driver.request("initialize", { protocolVersion: 1 });
    const sessionId = ((await driver.request("session/new")).result!.session as { sessionId: string }).sessionId;

    const slow = await stalledClient(server.port, token);
    slow.sock.write(wsFrame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })));
    slow.sock.write(wsFrame(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId } })));
    await Bun.sleep(100);
    slow.sock.pause(); // stop reading: ~12 MB of events follow, more than the kernel buffers hold

    await driver.request("session/prompt", { sessionId, text: "stream a lot" });
    await driver.waitFor((m) => m.params?.event?.type === "turn.completed", 60_000);
    const seqs = driver.events(sessionId).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // the driver missed nothing
    expect(driver.events(sessionId).filter((e) => e.type === "message.delta").length).toBe(2000);

    const deadline = Date.now() + 10_000;
    while (metrics.snapshot(1).droppedClients === 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(metrics.snapshot(1).droppedClients).toBe(1);
    expect(logs.some((l) => /ws-\d+ ws slow_client/.test(l))).toBe(true);
    // Read what the stalled client was sent: it ends with the closing notice and a 4008 close frame.
    const tail: Buffer[] = [];
    slow.sock.on("data", (d: Buffer) => tail.push(d));
    slow.sock.resume();
    const until = Date.now() + 10_000;
    while (!Buffer.concat(tail).includes(Buffer.from([0x0f, 0xa8])) && Date.now() < until) await Bun.sleep(50);
    const all = Buffer.concat(tail);
    expect(all.includes(Buffer.from('"reason":"slow_client"'))).toBe(true);
    expect(all.includes(Buffer.from([0x0f, 0xa8]))).toBe(true); // 4008 as the close frame's status code
    driver.close();
  }, 90_000);
});
