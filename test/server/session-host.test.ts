// SessionHost over real Sessions (scripted provider): event numbering, replay by sequence number, one driver.
import { afterEach, describe, expect, test } from "bun:test";
import { SessionHost, type HostClient, type SessionFactory } from "../../src/server/session-host.ts";
import type { SessionEventParams } from "../../src/server/protocol.ts";
import { RpcConnection } from "../../src/server/rpc-connection.ts";
import { ScriptedProvider } from "../support/scripted-provider.ts";
import type { MachineHarness } from "../support/machine-session.ts";
import { scriptedSessionFactory } from "../support/scripted-session-factory.ts";

const harnesses: MachineHarness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.cleanup();
});

const factory = (provider: ScriptedProvider): SessionFactory => scriptedSessionFactory(provider, harnesses);

class Sink implements HostClient {
  readonly got: SessionEventParams[] = [];
  constructor(readonly id: string) {}
  sendEvent(p: SessionEventParams): void {
    this.got.push(p);
  }
}

describe("SessionHost", () => {
  test("events are numbered from 1 per session; a reattach with afterSeq gets exactly the missed ones", async () => {
    const provider = new ScriptedProvider([{ text: "one two three", chunks: 3 }]);
    const host = new SessionHost(factory(provider));
    const a = new Sink("a");
    const created = await host.create(a, {});
    created.afterResponse();
    const id = created.result.session.sessionId;
    host.submit(a, id, { type: "user_input", text: "hi" });
    // `a` drops out in the middle of the turn: the turn goes on.
    await Bun.sleep(0);
    const seen = a.got.length;
    host.detach(a);
    const core = (await host.list()).find((s) => s.sessionId === id)!;
    expect(core.live).toBe(true);
    await waitUntil(() => host.list()[0]!.running === false && provider.requests.length === 1);
    const lastSeen = a.got.at(-1)?.seq ?? 0;
    expect(a.got.length).toBe(seen); // nothing after the detach
    const back = await host.load(a, id, lastSeen);
    expect(back.result.driver).toBe(true); // nobody else was attached
    back.afterResponse();
    const seqs = a.got.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // no gap, no duplicate
    expect(a.got.at(-1)!.event.type).toBe("turn.completed");
    expect(back.result.seq).toBe(a.got.at(-1)!.seq);
  });

  test("a second client observes: it gets every event, its ops are refused; the driver's seat passes on", async () => {
    const provider = new ScriptedProvider([{ text: "first" }, { text: "second" }]);
    const host = new SessionHost(factory(provider));
    const driver = new Sink("d");
    const observer = new Sink("o");
    const c = await host.create(driver, {});
    c.afterResponse();
    const id = c.result.session.sessionId;
    const o = await host.load(observer, id);
    o.afterResponse();
    expect(o.result.driver).toBe(false);
    expect(() => host.submit(observer, id, { type: "user_input", text: "no" })).toThrow(/another client drives/);
    host.submit(driver, id, { type: "user_input", text: "go" });
    await waitUntil(() => observer.got.some((e) => e.event.type === "turn.completed"));
    expect(observer.got.map((e) => e.seq)).toEqual(driver.got.filter((e) => e.seq > o.result.seq).map((e) => e.seq));
    host.detach(driver);
    expect(host.submit(observer, id, { type: "user_input", text: "now me" })).toEqual({ wasRunning: false });
    await host.shutdown();
    expect(observer.got.at(-1)!.event.type).toBe("session.ended");
    expect(host.size).toBe(0);
  });

  test("afterSeq beyond the newest event is refused (the client is confused, not behind)", async () => {
    const host = new SessionHost(factory(new ScriptedProvider([])));
    const a = new Sink("a");
    const c = await host.create(a, {});
    c.afterResponse();
    await expect(host.load(a, c.result.session.sessionId, 99)).rejects.toThrow(/past the newest/);
  });

  test("over RpcConnection: an observer's prompt is a -32002 error; a bad params object is -32602", async () => {
    const host = new SessionHost(factory(new ScriptedProvider([])));
    const out: Array<Record<string, unknown>> = [];
    const mk = (id: string) => new RpcConnection({ id, host, serverVersion: "t", send: (m) => out.push({ conn: id, ...(m as object) }) });
    const one = mk("one");
    const two = mk("two");
    for (const c of [one, two]) await c.receive(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }));
    await one.receive(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: {} }));
    const sid = ((out.find((m) => m.conn === "one" && m.id === 2)!.result as { session: { sessionId: string } }).session.sessionId);
    await two.receive(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/load", params: { sessionId: sid } }));
    await two.receive(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/prompt", params: { sessionId: sid, text: "x" } }));
    expect(out.find((m) => m.conn === "two" && m.id === 4)!.error).toMatchObject({ code: -32002 });
    await one.receive(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "session/approve", params: { sessionId: sid, decision: "maybe" } }));
    expect(out.find((m) => m.conn === "one" && m.id === 5)!.error).toMatchObject({ code: -32602 });
    await host.shutdown();
  });
});

async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await Bun.sleep(5);
  expect(cond()).toBe(true);
}
