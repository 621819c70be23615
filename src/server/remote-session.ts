/**
 * RemoteSession: a SessionLike over the server protocol (`chatcli connect`, docs/server.md). `submit(op)` becomes
 * the op's method; `session/event` notifications reach the listeners in `seq` order, and anything at or below the
 * last seen `seq` is dropped, so a replay never shows an event twice. When the channel drops, it reconnects with
 * backoff (250 ms doubling to 5 s) and `session/load { sessionId, afterSeq }`: the server replays exactly the
 * missed events. A server that restarted no longer hosts the session live: it is resumed from its saved file
 * (numbering starts again; the transcript is redrawn from the saved history).
 *
 * Events that arrive before the first subscriber are kept for it (the TUI subscribes after the attach).
 * An op submitted while disconnected is refused with a notice (never queued for later: an interrupt or an
 * approval sent seconds late would surprise). `shutdown` detaches: the session goes on on the server.
 */
import type { AgentEvent, Op } from "../protocol/events.ts";
import type { AgentEventListener, SessionLike } from "../protocol/session-like.ts";
import type { CheckpointSummary, RestorePlan } from "../agent/checkpoints/schema.ts";
import { t } from "../i18n/i18n.ts";
import { RPC_ERROR, SERVER_PROTOCOL_VERSION, type MethodName, type MethodParams, type MethodResult, type SessionInfo } from "./protocol.ts";
import { ChannelClosed, RpcClient, RpcError, type Notification, type RpcChannel } from "./rpc-client.ts";

export type ConnectionState = { state: "connected" } | { state: "reconnecting"; attempt: number; error: string } | { state: "closed" };

export interface RemoteSessionOptions {
  /** Opens a fresh channel to the server (called again on every reconnect); rejects when it cannot. */
  connect(): Promise<RpcChannel>;
  /** Attach to this session (id, name or unique prefix; live or saved); absent: `session/new` with `create`. */
  sessionId?: string;
  create?: MethodParams<"session/new">;
  clientVersion?: string;
  /** Backoff between reconnect attempts. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Injected in tests; defaults to setTimeout. */
  sleep?(ms: number): Promise<void>;
  log?(line: string): void;
}

type Model = MethodResult<"models/list">["models"][number];

/** The protocol version the server speaks is not ours. */
export class VersionMismatch extends Error {}

export class RemoteSession implements SessionLike {
  private client: RpcClient | undefined;
  private id = "";
  private lastSeq = 0;
  private listeners: AgentEventListener[] = [];
  /** Events before the first subscriber. */
  private early: AgentEvent[] | undefined = [];
  /** session/event notifications that came while an attach answer was still being read. */
  private held: Array<Extract<Notification, { method: "session/event" }>["params"]> | undefined;
  private stopped = false;
  private conn: ConnectionState = { state: "closed" };
  private readonly connListeners: Array<(s: ConnectionState) => void> = [];
  private cps: { checkpoints: CheckpointSummary[]; plans: MethodResult<"session/checkpoints">["plans"] } = { checkpoints: [], plans: {} };
  private cpRefresh: { running: boolean; again: boolean } = { running: false, again: false };
  private infoNow: SessionInfo | undefined;

  private constructor(private readonly o: RemoteSessionOptions) {}

  /** Connects, initializes and attaches (new or load). Rejects with the first connection's error. */
  static async open(o: RemoteSessionOptions): Promise<RemoteSession> {
    const s = new RemoteSession(o);
    await s.connectOnce(true);
    return s;
  }

  get sessionId(): string {
    return this.id;
  }

  /** The session as the last attach described it. */
  get info(): SessionInfo {
    return this.infoNow!;
  }

  get connection(): ConnectionState {
    return this.conn;
  }

  /** Connection changes (the status line); returns the unsubscribe function. */
  onConnection(listener: (s: ConnectionState) => void): () => void {
    this.connListeners.push(listener);
    return () => {
      const i = this.connListeners.indexOf(listener);
      if (i >= 0) this.connListeners.splice(i, 1);
    };
  }

  subscribe(listener: AgentEventListener): () => void {
    this.listeners.push(listener);
    const early = this.early;
    this.early = undefined;
    for (const e of early ?? []) listener(e);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  submit(op: Op): void {
    if (op.type === "shutdown") return this.close();
    const call = opCall(this.id, op);
    if (!call) return;
    const client = this.client;
    if (!client || client.isClosed || this.conn.state !== "connected") return this.emit({ type: "notice", level: "warn", text: t("connect.notConnected") });
    client.request(call.method, call.params as never).catch((e: unknown) => {
      if (e instanceof ChannelClosed) return this.emit({ type: "notice", level: "warn", text: t("connect.notConnected") });
      this.emit({ type: "notice", level: "error", text: e instanceof RpcError && e.code === RPC_ERROR.notDriver ? t("connect.notDriver") : t("connect.opFailed", { error: e instanceof Error ? e.message : String(e) }) });
    });
  }

  /** The models the server can switch to (the /model picker). */
  async listModels(): Promise<Model[]> {
    if (!this.client) return [];
    return (await this.client.request("models/list", { sessionId: this.id })).models;
  }

  /** The rewind menu's source: the checkpoints as last fetched (refreshed after each turn, save and rewind). */
  readonly checkpoints = {
    list: (): CheckpointSummary[] => this.cps.checkpoints,
    plan: (checkpointId: string): RestorePlan | string => {
      const p = this.cps.plans[checkpointId];
      if (p) return "error" in p ? p.error : p;
      // An older checkpoint's plan is fetched on demand (the menu is synchronous: the next try finds it).
      this.fetchPlan(checkpointId);
      return t("connect.noPlan");
    },
  };

  /** Detaches (the session goes on on the server) and stops reconnecting. */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.client?.close();
    this.setConn({ state: "closed" });
  }

  private async connectOnce(first: boolean): Promise<void> {
    const channel = await this.o.connect();
    const client = new RpcClient(channel, (n) => this.notified(n));
    try {
      await client.request("initialize", { protocolVersion: SERVER_PROTOCOL_VERSION, clientInfo: { name: "chatcli-connect", ...(this.o.clientVersion ? { version: this.o.clientVersion } : {}) } });
    } catch (e) {
      client.close();
      if (e instanceof RpcError && e.code === RPC_ERROR.unsupportedVersion) throw new VersionMismatch(e.message);
      throw e;
    }
    this.held = [];
    try {
      const attached = first ? await this.firstAttach(client) : await this.reattach(client);
      this.client = client;
      this.id = attached.session.sessionId;
      this.infoNow = attached.session;
      const held = this.held;
      this.held = undefined;
      for (const n of held) this.event(n);
    } catch (e) {
      this.held = undefined;
      client.close();
      throw e;
    }
    client.onClose((reason) => this.dropped(client, reason));
    this.setConn({ state: "connected" });
    this.refreshCheckpoints();
  }

  private async firstAttach(client: RpcClient): Promise<MethodResult<"session/load">> {
    if (!this.o.sessionId) return this.attached(await client.request("session/new", this.o.create ?? {}), true);
    // From the first event of a live session (its transcript); a saved one is resumed.
    try {
      return this.attached(await client.request("session/load", { sessionId: this.o.sessionId, afterSeq: 0 }), false);
    } catch (e) {
      // The replay log no longer reaches back to the first event: attach without the old transcript.
      if (!(e instanceof RpcError) || e.code !== RPC_ERROR.invalidParams) throw e;
      return this.attached(await client.request("session/load", { sessionId: this.o.sessionId }), true);
    }
  }

  private async reattach(client: RpcClient): Promise<MethodResult<"session/load">> {
    try {
      return this.attached(await client.request("session/load", { sessionId: this.id, afterSeq: this.lastSeq }), false);
    } catch (e) {
      // Not live any more (the server restarted) or the replay log no longer reaches back: load it afresh.
      if (!(e instanceof RpcError) || e.code !== RPC_ERROR.invalidParams) throw e;
      const r = this.attached(await client.request("session/load", { sessionId: this.id }), true);
      // After the redrawn history (which starts the transcript afresh), so the notice stays on screen.
      this.emit({ type: "notice", level: "warn", text: r.history ? t("connect.resumedAfterRestart") : t("connect.eventsMissed") });
      return r;
    }
  }

  /** Attach answer: where numbering stands, and the saved history of a resumed session. */
  private attached(r: MethodResult<"session/load">, fresh: boolean): MethodResult<"session/load"> {
    if (fresh) this.lastSeq = r.seq;
    if (r.history) this.emit({ type: "history.replaced", messages: r.history });
    if (!r.driver) this.emit({ type: "notice", level: "info", text: t("connect.observer") });
    return r;
  }

  private notified(n: Notification): void {
    if (n.method === "server/closing") {
      this.o.log?.(`server closing the connection: ${n.params.reason} ${n.params.message}`);
      return;
    }
    if (this.held) this.held.push(n.params);
    else this.event(n.params);
  }

  private event(p: Extract<Notification, { method: "session/event" }>["params"]): void {
    if (p.sessionId !== this.id && this.id !== "") return;
    // Replays and reconnects may repeat what was already shown: the sequence number decides.
    if (p.seq <= this.lastSeq) return;
    this.lastSeq = p.seq;
    this.emit(p.event);
    const e = p.event.type;
    if (e === "checkpoint.saved" || e === "rewound" || e === "history.replaced" || e === "turn.completed") this.refreshCheckpoints();
  }

  private emit(event: AgentEvent): void {
    if (this.early) {
      this.early.push(event);
      return;
    }
    for (const l of [...this.listeners]) l(event);
  }

  private setConn(s: ConnectionState): void {
    this.conn = s;
    for (const l of [...this.connListeners]) l(s);
  }

  private dropped(client: RpcClient, reason: string): void {
    if (this.stopped || this.client !== client) return;
    this.o.log?.(`connection lost: ${reason}`);
    void this.reconnectLoop(reason);
  }

  private async reconnectLoop(reason: string): Promise<void> {
    const sleep = this.o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    let delay = this.o.initialBackoffMs ?? 250;
    let error = reason;
    for (let attempt = 1; !this.stopped; attempt++) {
      this.setConn({ state: "reconnecting", attempt, error });
      await sleep(delay);
      if (this.stopped) return;
      try {
        await this.connectOnce(false);
        this.o.log?.(`reconnected after ${attempt} attempt(s)`);
        return;
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
        this.o.log?.(`reconnect attempt ${attempt} failed: ${error}`);
        // Nothing a retry can fix: the session is gone, or the server now speaks another protocol version.
        if ((e instanceof RpcError && e.code === RPC_ERROR.sessionNotFound) || e instanceof VersionMismatch) {
          this.emit({ type: "notice", level: "error", text: t("connect.sessionGone", { error }) });
          this.close();
          return;
        }
      }
      delay = Math.min(delay * 2, this.o.maxBackoffMs ?? 5_000);
    }
  }

  private readonly planFetches = new Set<string>();

  private fetchPlan(checkpointId: string): void {
    const client = this.client;
    if (!client || !this.id || this.planFetches.has(checkpointId)) return;
    this.planFetches.add(checkpointId);
    client
      .request("session/checkpoints", { sessionId: this.id, planIds: [checkpointId] })
      .then((r) => {
        const plan = r.plans[checkpointId];
        if (plan) this.cps = { ...this.cps, plans: { ...this.cps.plans, [checkpointId]: plan } };
      })
      .catch(() => undefined)
      .finally(() => this.planFetches.delete(checkpointId));
  }

  /** One refresh in flight at a time; a change meanwhile asks for one more. */
  private refreshCheckpoints(): void {
    if (this.cpRefresh.running) {
      this.cpRefresh.again = true;
      return;
    }
    const client = this.client;
    if (!client || !this.id) return;
    this.cpRefresh.running = true;
    client
      .request("session/checkpoints", { sessionId: this.id })
      .then((r) => (this.cps = r))
      .catch(() => undefined)
      .finally(() => {
        this.cpRefresh.running = false;
        if (this.cpRefresh.again) {
          this.cpRefresh.again = false;
          this.refreshCheckpoints();
        }
      });
  }
}

/** The method an op maps onto; undefined for none (shutdown is handled by the caller). */
export function opCall(sessionId: string, op: Op): { method: MethodName; params: unknown } | undefined {
  switch (op.type) {
    case "user_input":
      return { method: "session/prompt", params: { sessionId, text: op.text, ...(op.display ? { display: op.display } : {}) } };
    case "interrupt":
      return { method: "session/interrupt", params: { sessionId } };
    case "approval":
      return { method: "session/approve", params: { sessionId, requestId: op.requestId, decision: op.decision } };
    case "set_model":
      return { method: "session/setModel", params: { sessionId, provider: op.provider, model: op.model } };
    case "set_permission_mode":
      return { method: "session/setMode", params: { sessionId, mode: op.mode } };
    case "compact":
      return { method: "session/compact", params: { sessionId, ...(op.instruction ? { instruction: op.instruction } : {}) } };
    case "rewind":
      return { method: "session/rewind", params: { sessionId, checkpointId: op.checkpointId, mode: op.mode, ...(op.deleteCreated !== undefined ? { deleteCreated: op.deleteCreated } : {}), ...(op.force !== undefined ? { force: op.force } : {}) } };
    case "remove_queued":
      return { method: "session/removeQueued", params: { sessionId, index: op.index } };
    case "send_queued":
      return { method: "session/sendQueued", params: { sessionId } };
    case "clear":
      return { method: "session/clear", params: { sessionId } };
    case "shell":
      return { method: "session/shell", params: { sessionId, command: op.command } };
    case "shutdown":
      return undefined;
  }
}
