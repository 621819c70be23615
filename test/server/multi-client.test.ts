// Several clients on one hosted session, over RpcConnection and real Sessions (wireSession, interactive approvals,
// scripted provider): who drives, who may answer approvals, what happens when clients leave, and replay by seq.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionHost } from "../../src/server/session-host.ts";
import { RpcConnection } from "../../src/server/rpc-connection.ts";
import { hostFactory, type HostFactory } from "../support/host-factory.ts";
import type { ScriptedReply } from "../support/scripted-provider.ts";

let f: HostFactory | undefined;
afterEach(() => f?.cleanup());

type Ev = { type: string } & Record<string, unknown>;
type Msg = { id?: number | null; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string }; params?: { sessionId: string; seq: number; event: Ev } };

/** A client connection whose frames the test reads: `got` in arrival order. */
class Client {
  readonly got: Msg[] = [];
  readonly conn: RpcConnection;
  private n = 0;
  constructor(host: SessionHost, id: string) {
    this.conn = new RpcConnection({ id, host, serverVersion: "t", send: (m) => this.got.push(m as Msg) });
  }
  async call(method: string, params: unknown = {}): Promise<Msg> {
    const id = ++this.n;
    await this.conn.receive(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.got.find((m) => m.id === id)!;
  }
  events(): Array<{ seq: number; event: Ev }> {
    return this.got.filter((m) => m.method === "session/event").map((m) => ({ seq: m.params!.seq, event: m.params!.event }));
  }
  seqs(): number[] {
    return this.events().map((e) => e.seq);
  }
  has(type: string): boolean {
    return this.events().some((e) => e.event.type === type);
  }
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await Bun.sleep(5);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const writeTurn: ScriptedReply[] = [{ toolCalls: [{ name: "write", args: { path: "n.txt", content: "new" } }] }, { text: "written" }];

async function setup(replies: ScriptedReply[], limits?: { replayEvents?: number; replayBytes?: number }) {
  f = hostFactory(() => replies);
  const host = new SessionHost(f, Date.now, limits);
  const driver = new Client(host, "driver");
  await driver.call("initialize", { protocolVersion: 1 });
  const created = await driver.call("session/new");
  const sessionId = (created.result!.session as { sessionId: string }).sessionId;
  return { host, driver, sessionId, h: () => f!.built[0]! };
}

async function attach(host: SessionHost, name: string, sessionId: string, afterSeq?: number) {
  const c = new Client(host, name);
  await c.call("initialize", { protocolVersion: 1 });
  const r = await c.call("session/load", { sessionId, ...(afterSeq !== undefined ? { afterSeq } : {}) });
  return { c, r };
}

describe("two clients on one session", () => {
  test("driver and observer both get every event in seq order; only the driver's approval counts", async () => {
    const { host, driver, sessionId, h } = await setup(writeTurn);
    const { c: observer, r } = await attach(host, "observer", sessionId);
    expect(r.result).toMatchObject({ driver: false });
    expect((await driver.call("session/prompt", { sessionId, text: "write n.txt" })).result).toEqual({ queued: false });
    await until(() => observer.has("approval.requested") && driver.has("approval.requested"), "the approval at both clients");
    const requestId = String(observer.events().find((e) => e.event.type === "approval.requested")!.event.requestId);
    const refused = await observer.call("session/approve", { sessionId, requestId, decision: "once" });
    expect(refused.error!.code).toBe(-32002);
    expect(existsSync(join(h().project, "n.txt"))).toBe(false);
    expect((await driver.call("session/approve", { sessionId, requestId, decision: "once" })).result).toEqual({});
    await until(() => observer.has("turn.completed") && driver.has("turn.completed"), "turn.completed at both");
    expect(readFileSync(join(h().project, "n.txt"), "utf8")).toBe("new");
    const all = h().events.length;
    expect(driver.seqs()).toEqual(range(1, all));
    expect(observer.seqs()).toEqual(range(Number(r.result!.seq) + 1, all));
    expect(observer.events().map((e) => e.event)).toEqual(driver.events().slice(Number(r.result!.seq)).map((e) => e.event));
    await host.shutdown();
  });

  test("when the driver leaves mid-approval the observer drives and answers the pending approval", async () => {
    const { host, driver, sessionId, h } = await setup(writeTurn);
    const { c: observer } = await attach(host, "observer", sessionId);
    await driver.call("session/prompt", { sessionId, text: "write n.txt" });
    await until(() => observer.has("approval.requested"), "the approval");
    driver.conn.closed();
    const requestId = String(observer.events().find((e) => e.event.type === "approval.requested")!.event.requestId);
    expect((await observer.call("session/approve", { sessionId, requestId, decision: "once" })).result).toEqual({});
    await until(() => observer.has("turn.completed"), "turn.completed");
    expect(readFileSync(join(h().project, "n.txt"), "utf8")).toBe("new");
    expect((await observer.call("session/prompt", { sessionId, text: "next" })).error).toBeUndefined();
    await host.shutdown();
  });

  test("a pending approval with nobody attached waits for the next driver, who is told about it on attach", async () => {
    const { host, driver, sessionId, h } = await setup(writeTurn);
    await driver.call("session/prompt", { sessionId, text: "write n.txt" });
    await until(() => driver.has("approval.requested"), "the approval");
    const asked = driver.events().find((e) => e.event.type === "approval.requested")!;
    driver.conn.closed();
    await Bun.sleep(20);
    expect(h().wired.session.isRunning).toBe(true); // still waiting: nobody denied it
    expect(h().of("approval.resolved")).toHaveLength(0);
    const { c: next, r } = await attach(host, "next", sessionId);
    expect(r.result).toMatchObject({ driver: true, pending: [{ seq: asked.seq, event: { type: "approval.requested", requestId: asked.event.requestId } }] });
    await next.call("session/approve", { sessionId, requestId: asked.event.requestId, decision: "once" });
    await until(() => next.has("turn.completed"), "turn.completed");
    expect(readFileSync(join(h().project, "n.txt"), "utf8")).toBe("new");
    // Answered: a later attach has nothing pending.
    const { r: later } = await attach(host, "later", sessionId);
    expect(later.result!.pending).toBeUndefined();
    await host.shutdown();
  });
});

describe("dropped clients and replay", () => {
  test("a client dropped mid-turn does not stop the turn; reattaching with afterSeq gets exactly the missed events", async () => {
    const { host, driver, sessionId, h } = await setup([{ text: "tok ".repeat(300), chunks: 150, delayMs: 1 }]);
    await driver.call("session/prompt", { sessionId, text: "stream" });
    await until(() => driver.events().filter((e) => e.event.type === "message.delta").length >= 10, "some deltas");
    driver.conn.closed();
    const before = driver.seqs();
    await until(() => h().of("turn.completed").length === 1, "the turn to finish unattended");
    expect(h().of("turn.completed")[0]!.stopReason).toBe("stop");
    expect(driver.seqs()).toEqual(before); // nothing after the drop
    const last = before.at(-1)!;
    const { c: back, r } = await attach(host, "back", sessionId, last);
    expect(r.result).toMatchObject({ driver: true, seq: h().events.length });
    expect([...before, ...back.seqs()]).toEqual(range(1, h().events.length));
    expect(back.events().map((e) => e.event)).toEqual(h().events.slice(last));
    await host.shutdown();
  });

  test("a client attaching as an event is emitted gets its response first, then every later event exactly once", async () => {
    const { host, driver, sessionId, h } = await setup([]);
    const late = new Client(host, "late");
    await late.call("initialize", { protocolVersion: 1 });
    const before = h().events.length;
    // The session emits in the gap between the attach and its answer (the op runs in a microtask queued first).
    queueMicrotask(() => h().wired.session.submit({ type: "set_permission_mode", mode: "plan" }));
    await late.conn.receive(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "session/load", params: { sessionId } }));
    await until(() => h().events.length > before, "the mode change");
    const frames = late.got.slice(1); // after initialize's answer
    expect(frames[0]!.id).toBe(99);
    const seq = Number(frames[0]!.result!.seq);
    expect(late.seqs()).toEqual(range(seq + 1, h().events.length));
    expect(late.events().map((e) => e.event.type)).toContain("permission_mode.changed");
    expect(driver.seqs()).toEqual(range(1, h().events.length));
    await host.shutdown();
  });

  test("replay log overflow (event bound): an afterSeq it no longer covers is a clear -32602, never a silent gap", async () => {
    const { host, driver, sessionId, h } = await setup([{ text: "y ".repeat(400), chunks: 200 }], { replayEvents: 50 });
    await driver.call("session/prompt", { sessionId, text: "go" });
    await until(() => h().of("turn.completed").length === 1, "the turn");
    const total = h().events.length;
    expect(total).toBeGreaterThan(100);
    const { r: tooOld } = await attach(host, "old", sessionId, 5);
    expect(tooOld.error).toMatchObject({ code: -32602, message: expect.stringContaining("no longer kept") });
    // Within the window: exactly the rest.
    const { c: recent } = await attach(host, "recent", sessionId, total - 40);
    expect(recent.seqs()).toEqual(range(total - 39, total));
    // Without afterSeq: no replay, live from now on.
    const { c: fresh, r } = await attach(host, "fresh", sessionId);
    expect(r.result!.seq).toBe(total);
    expect(fresh.seqs()).toEqual([]);
    await host.shutdown();
  });

  test("replay log overflow (byte bound): big events push old ones out; the oldest kept seq is in the error", async () => {
    const { host, driver, sessionId, h } = await setup([{ text: "z".repeat(20_000), chunks: 40 }], { replayBytes: 4_000 });
    await driver.call("session/prompt", { sessionId, text: "go" });
    await until(() => h().of("turn.completed").length === 1, "the turn");
    const { r } = await attach(host, "old", sessionId, 1);
    expect(r.error!.code).toBe(-32602);
    const oldest = Number(/replay log starts at (\d+)/.exec(r.error!.message)![1]);
    expect(oldest).toBeGreaterThan(2);
    const { c: ok } = await attach(host, "ok", sessionId, oldest - 1);
    expect(ok.seqs()).toEqual(range(oldest, h().events.length));
    await host.shutdown();
  });
});
