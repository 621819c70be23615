// RemoteSession (chatcli connect's SessionLike) against a real SessionHost over real Sessions (scripted provider),
// through an in-process transport: ops become methods, events arrive in seq order, a drop mid-turn reconnects
// with afterSeq and the subscriber sees every event exactly once; a server restart resumes the saved session.
import { afterEach, describe, expect, test } from "bun:test";
import { SessionHost, type BuiltSession, type SessionFactory } from "../../src/server/session-host.ts";
import { CHECKPOINT_PLANS, METHODS } from "../../src/server/protocol.ts";
import type { CheckpointSummary, RestorePlan } from "../../src/agent/checkpoints/schema.ts";
import { opCall, RemoteSession, VersionMismatch, type ConnectionState } from "../../src/server/remote-session.ts";
import type { AgentEvent, Op } from "../../src/protocol/events.ts";
import type { Message } from "../../src/protocol/message.ts";
import { ScriptedProvider, deferred } from "../support/scripted-provider.ts";
import { bindingOf, makeSession, type MachineHarness } from "../support/machine-session.ts";
import { LoopbackServer } from "../support/loopback-channel.ts";

const harnesses: MachineHarness[] = [];
const remotes: RemoteSession[] = [];
afterEach(() => {
  for (const r of remotes.splice(0)) r.close();
  for (const h of harnesses.splice(0)) h.cleanup();
});

/** Sessions over `provider`; `saved` plays the session files a restarted server resumes from. */
function factory(provider: ScriptedProvider, saved = new Map<string, Message[]>()): SessionFactory & { built: Map<string, MachineHarness> } {
  let n = 0;
  const built = new Map<string, MachineHarness>();
  const make = (id: string, history?: Message[]): BuiltSession => {
    const h = makeSession({ binding: bindingOf(provider, { id: "SCRIPTED", model: "m1" }) });
    harnesses.push(h);
    built.set(id, h);
    h.session.subscribe(() => saved.set(id, [...h.session.messages]));
    return { id, cwd: "/p", core: h.session, provider: () => "SCRIPTED", model: () => "m1", mode: () => h.session.mode, contextWindow: () => 32768, ...(history ? { history } : {}), dispose: async () => undefined };
  };
  return {
    built,
    create: async () => make(`s${++n}`),
    resume: async (ref) => (saved.has(ref) ? make(ref, saved.get(ref)) : undefined),
    resolveId: (ref) => (saved.has(ref) ? ref : undefined),
    saved: () => [],
    models: async () => [{ provider: "SCRIPTED", model: "m1" }, { provider: "SCRIPTED", model: "m2" }],
  };
}

async function open(server: LoopbackServer, o: { sessionId?: string } = {}): Promise<{ remote: RemoteSession; events: AgentEvent[]; states: ConnectionState[] }> {
  const remote = await RemoteSession.open({ connect: server.connect, ...o, sleep: () => Bun.sleep(1) });
  remotes.push(remote);
  const events: AgentEvent[] = [];
  const states: ConnectionState[] = [];
  remote.onConnection((s) => states.push(s));
  remote.subscribe((e) => events.push(e));
  return { remote, events, states };
}

async function waitUntil(cond: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await Bun.sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);

describe("RemoteSession", () => {
  test("every op the TUI sends maps onto a method whose params schema accepts it", () => {
    const ops: Op[] = [
      { type: "user_input", text: "hi", display: "/init" },
      { type: "interrupt" },
      { type: "approval", requestId: "r1", decision: "always" },
      { type: "set_model", provider: "OLLAMA", model: "" },
      { type: "set_permission_mode", mode: "plan" },
      { type: "compact", instruction: "keep the plan" },
      { type: "rewind", checkpointId: "c1", mode: "both", deleteCreated: true, force: false },
      { type: "remove_queued", index: 0 },
      { type: "send_queued" },
      { type: "clear" },
      { type: "shell", command: "ls" },
    ];
    for (const op of ops) {
      const call = opCall("s1", op)!;
      expect(call).toBeDefined();
      const parsed = METHODS[call.method].params.safeParse(call.params);
      expect(parsed.success).toBe(true);
    }
    expect(opCall("s1", { type: "shutdown" })).toBeUndefined();
  });

  test("session/checkpoints: plans of the newest checkpoints come with the list; an older one's on demand", async () => {
    const provider = new ScriptedProvider([]);
    const f = factory(provider);
    const planned: string[] = [];
    const cps: CheckpointSummary[] = Array.from({ length: CHECKPOINT_PLANS + 5 }, (_, i) => ({ id: `c${i}`, time: i, label: `turn ${i}`, messageCount: i, files: 1, conversationOnly: false }));
    const store = {
      list: () => cps,
      plan: (id: string): RestorePlan => {
        planned.push(id);
        return { checkpointId: id, change: [`/p/${id}.txt`], created: [], conflicts: [], notRestorable: [], conversationOnly: false };
      },
    };
    const create = f.create;
    f.create = async (p) => ({ ...(await create(p)), checkpoints: store });
    const server = new LoopbackServer(new SessionHost(f));
    const { remote } = await open(server);
    await waitUntil(() => remote.checkpoints.list().length === cps.length, "checkpoint list");
    expect(planned).toEqual(cps.slice(0, CHECKPOINT_PLANS).map((c) => c.id));
    expect(remote.checkpoints.plan("c1")).toMatchObject({ change: ["/p/c1.txt"] });
    const old = `c${CHECKPOINT_PLANS + 2}`;
    expect(typeof remote.checkpoints.plan(old)).toBe("string"); // not fetched yet: asked for now
    await waitUntil(() => typeof remote.checkpoints.plan(old) !== "string", "the older plan");
    expect(planned.at(-1)).toBe(old);
  });

  test("a server speaking another protocol version is refused at initialize (VersionMismatch)", async () => {
    // A server of a future version: it answers initialize with -32003, as rpc-connection.ts does.
    let toClient: (text: string) => void = () => undefined;
    let closed = false;
    const channel = {
      send: (text: string) => {
        const { id } = JSON.parse(text) as { id: number };
        setTimeout(() => toClient(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32003, message: "protocol version 1 is not supported (this server speaks 2)" } })), 0);
      },
      onMessage: (l: (text: string) => void) => (toClient = l),
      onClose: () => undefined,
      close: () => (closed = true),
    };
    const err = await RemoteSession.open({ connect: async () => channel }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VersionMismatch);
    expect((err as Error).message).toContain("speaks 2");
    expect(closed).toBe(true);
  });

  test("a new session streams a turn to the subscriber in order; events before subscribe are kept for it", async () => {
    const provider = new ScriptedProvider([{ text: "hello there friend", chunks: 3 }]);
    const server = new LoopbackServer(new SessionHost(factory(provider)));
    const { remote, events } = await open(server);
    expect(remote.sessionId).toBe("s1");
    expect(remote.info.permissionMode).toBe("bypass");
    remote.submit({ type: "user_input", text: "hi" });
    await waitUntil(() => events.some((e) => e.type === "turn.completed"), "turn.completed");
    expect(types(events)[0]).toBe("session.started");
    expect(events.filter((e) => e.type === "message.delta").map((e) => (e as { text?: string }).text).join("")).toBe("hello there friend");
    expect((await remote.listModels()).map((m) => m.model)).toEqual(["m1", "m2"]);
  });

  test("ops that had no method before reach the session: permission mode, clear", async () => {
    const provider = new ScriptedProvider([{ text: "ok" }]);
    const server = new LoopbackServer(new SessionHost(factory(provider)));
    const { remote, events } = await open(server);
    remote.submit({ type: "set_permission_mode", mode: "plan" });
    await waitUntil(() => events.some((e) => e.type === "permission_mode.changed"), "permission_mode.changed");
    remote.submit({ type: "user_input", text: "hi" });
    await waitUntil(() => events.some((e) => e.type === "turn.completed"), "turn");
    remote.submit({ type: "clear" });
    await waitUntil(() => events.some((e) => e.type === "history.replaced"), "history.replaced");
    expect(events.find((e) => e.type === "history.replaced")).toMatchObject({ messages: [] });
  });

  test("a drop mid-turn: the turn goes on, the client reconnects with afterSeq and sees every event exactly once", async () => {
    const gate = deferred();
    const provider = new ScriptedProvider([{ text: "alpha beta gamma delta", chunks: 4, gate: gate.promise }]);
    const f = factory(provider);
    const server = new LoopbackServer(new SessionHost(f));
    const { remote, events, states } = await open(server);
    remote.submit({ type: "user_input", text: "go" });
    await waitUntil(() => events.some((e) => e.type === "turn.started"), "turn.started");
    // The network goes away; while it is down the turn streams on the server.
    server.down = true;
    server.dropAll();
    await waitUntil(() => remote.connection.state === "reconnecting", "reconnecting");
    gate.resolve();
    const core = f.built.get("s1")!;
    await waitUntil(() => core.events.some((e) => e.type === "turn.completed"), "server turn");
    remote.submit({ type: "interrupt" }); // refused while down, with a notice
    server.down = false;
    await waitUntil(() => remote.connection.state === "connected", "reconnected");
    await waitUntil(() => events.some((e) => e.type === "turn.completed"), "replayed turn.completed");
    // Exactly the session's own event sequence (plus the one local notice): no loss, no duplicate.
    expect(types(events.filter((e) => e.type !== "notice"))).toEqual(types(core.events));
    expect(events.filter((e) => e.type === "notice")).toHaveLength(1);
    expect(states.map((s) => s.state)).toContain("reconnecting");
    expect(states.at(-1)!.state).toBe("connected");
    expect(server.connections).toBeGreaterThanOrEqual(2);
  });

  test("a second client attached to the same session observes; its ops are refused with a notice", async () => {
    const provider = new ScriptedProvider([{ text: "one" }]);
    const server = new LoopbackServer(new SessionHost(factory(provider)));
    const a = await open(server);
    a.remote.submit({ type: "user_input", text: "first" });
    await waitUntil(() => a.events.some((e) => e.type === "turn.completed"), "turn");
    const b = await open(server, { sessionId: "s1" });
    // The observer's transcript is the session's from its first event (afterSeq 0 replays the log).
    await waitUntil(() => b.events.some((e) => e.type === "turn.completed"), "replay");
    expect(types(b.events.filter((e) => e.type !== "notice"))).toEqual(types(a.events));
    b.remote.submit({ type: "user_input", text: "mine?" });
    await waitUntil(() => b.events.filter((e) => e.type === "notice").length >= 2, "not-driver notice");
    expect(provider.requests).toHaveLength(1);
  });

  test("a server restart: the session is resumed from its saved history and numbering starts again", async () => {
    const provider = new ScriptedProvider([{ text: "before" }, { text: "after" }]);
    const saved = new Map<string, Message[]>();
    const server = new LoopbackServer(new SessionHost(factory(provider, saved)));
    const { remote, events } = await open(server);
    remote.submit({ type: "user_input", text: "one" });
    await waitUntil(() => events.some((e) => e.type === "turn.completed"), "first turn");
    // The server goes away and a new one (same saved sessions, new host) takes its place.
    server.down = true;
    server.dropAll();
    await waitUntil(() => remote.connection.state === "reconnecting", "reconnecting");
    server.host = new SessionHost(factory(provider, saved));
    server.down = false;
    await waitUntil(() => remote.connection.state === "connected", "reconnected");
    const replaced = events.find((e) => e.type === "history.replaced") as Extract<AgentEvent, { type: "history.replaced" }>;
    expect(replaced.messages.map((m) => m.content)).toEqual(["one", "before"]);
    expect(events[events.indexOf(replaced) + 1]).toMatchObject({ type: "notice", level: "warn" });
    await waitUntil(() => events.filter((e) => e.type === "session.started").length === 2, "resumed session.started");
    remote.submit({ type: "user_input", text: "two" });
    await waitUntil(() => events.filter((e) => e.type === "turn.completed").length === 2, "second turn");
    expect(provider.requests).toHaveLength(2);
    // A client attaching later to the resumed session sees the saved history first, then everything since.
    const late = await open(server, { sessionId: remote.sessionId });
    await waitUntil(() => late.events.filter((e) => e.type === "turn.completed").length === 1, "late replay");
    expect(late.events[0]).toMatchObject({ type: "history.replaced" });
    expect((late.events[0] as Extract<AgentEvent, { type: "history.replaced" }>).messages.map((m) => m.content)).toEqual(["one", "before"]);
    expect(types(late.events.slice(1).filter((e) => e.type !== "notice"))).toEqual(types(events.slice(events.indexOf(replaced) + 1).filter((e) => e.type !== "notice")));
  });
});
