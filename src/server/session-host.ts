/**
 * Hosts several sessions for the server's clients. Every AgentEvent of a hosted session gets the next sequence
 * number of that session (from 1, no gaps) and is kept in a bounded replay log, so a client that reattaches with
 * `afterSeq` gets exactly the events it missed. One attached client drives (its ops are accepted); the others
 * observe. A client that goes away never stops its session's turn; when the driver leaves, the oldest observer
 * takes over. The sessions themselves are built by a SessionFactory the cli layer injects (src/cli/commands/serve.ts).
 */
import type { Op, PermissionMode } from "../protocol/events.ts";
import type { CheckpointSummary, RestorePlan } from "../agent/checkpoints/schema.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import type { SessionLike } from "../protocol/session-like.ts";
import type { FileAccess } from "../tool/file-access.ts";
import { checkOp, checkRequestedMode, WirePolicyError } from "./wire-policy.ts";
import { CHECKPOINT_PLANS, RPC_ERROR, type MethodParams, type MethodResult, type SessionEventParams, type SessionInfo } from "./protocol.ts";

type ModelChoice = MethodResult<"models/list">["models"][number];

/** Events kept per session for replay (a reattaching client further behind gets an error, not a silent gap). */
export const REPLAY_LOG_LIMIT = 10_000;
/** …and at most this many bytes of them (JSON), so a session of huge tool results cannot hold the server's memory. */
export const REPLAY_LOG_MAX_BYTES = 8 * 1024 * 1024;

export interface HostLimits {
  replayEvents?: number;
  replayBytes?: number;
}

export interface HostedCore extends SessionLike {
  /** Emits session.started; called once the host listens. */
  start(): void;
  idle(): Promise<void>;
  readonly isRunning: boolean;
}

export interface BuiltSession {
  id: string;
  cwd: string;
  core: HostedCore;
  provider(): string;
  model(): string;
  /** The permission mode now (fronts that show modes, ACP). */
  mode?(): PermissionMode;
  /** Resumed sessions: the saved history. */
  history?: readonly Message[];
  title?: string;
  /** After shutdown: saves and frees everything (workspace, MCP servers, hooks). */
  dispose(): Promise<void>;
  /** The session's checkpoints (`session/checkpoints`, the remote rewind menu); absent: none kept. */
  checkpoints?: { list(): CheckpointSummary[]; plan(checkpointId: string): RestorePlan | string };
  /** The model's context window (SessionInfo of a live session). */
  contextWindow?(): number;
}

/** What a front adds to the sessions it builds (ACP: the editor's file access, the MCP servers it names). */
export interface SessionExtras {
  files?: FileAccess;
  /** `--mcp-config` values (inline JSON `{"mcpServers": …}`), added to the session's own servers. */
  mcpConfig?: string[];
}

export interface SessionFactory {
  create(params: MethodParams<"session/new">, extras?: SessionExtras): Promise<BuiltSession>;
  /** The saved session `ref` names (id, name or unique prefix) resumed; undefined when none matches. */
  resume(ref: string, extras?: SessionExtras): Promise<BuiltSession | undefined>;
  /** The id `ref` names among the saved sessions, without loading it. */
  resolveId(ref: string): string | undefined;
  /** Saved sessions, newest first. */
  saved(): SessionInfo[];
  /** The server itself was started with bypass: only then may a client ask for it (wire-policy.ts). */
  allowBypass?: boolean;
  /** Models a session in `cwd` (undefined: the server's directory) can switch to (`models/list`). */
  models?(cwd?: string): Promise<ModelChoice[]>;
}

/** A client as the host sees it: where its events go. */
export interface HostClient {
  readonly id: string;
  sendEvent(params: SessionEventParams): void;
}

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcFailure";
  }
}

/** The attach result, and what to do once it is on the wire (replay, start): so no event precedes the response. */
export interface Attached {
  result: { session: SessionInfo; seq: number; driver: boolean; history?: Message[]; pending?: LogEntry[] };
  afterResponse(): void;
}

interface LogEntry {
  seq: number;
  event: AgentEvent;
}

interface Live {
  built: BuiltSession;
  seq: number;
  /** The replay log: entries from `head` on are kept (older ones are cut in batches). */
  log: Array<LogEntry & { bytes: number }>;
  head: number;
  logBytes: number;
  /** approval.requested events not answered yet, by request id: a client that attaches later can answer them. */
  approvals: Map<string, LogEntry>;
  /** Attach order: the first one drives. */
  clients: HostClient[];
  /** Attached (their seat is taken) but their response is not on the wire yet: events wait in the log for them. */
  attaching: Set<HostClient>;
  title: string;
  updatedAt: number;
  turns: number;
  closing: Promise<void> | undefined;
}

export class SessionHost {
  private readonly live = new Map<string, Live>();
  /** Sees every event once, as it leaves a session (metrics); never blocks. */
  observer: ((event: AgentEvent) => void) | undefined;

  private readonly replayEvents: number;
  private readonly replayBytes: number;

  constructor(
    private readonly factory: SessionFactory,
    private readonly now: () => number = Date.now,
    limits: HostLimits = {},
  ) {
    this.replayEvents = limits.replayEvents ?? REPLAY_LOG_LIMIT;
    this.replayBytes = limits.replayBytes ?? REPLAY_LOG_MAX_BYTES;
  }

  async create(client: HostClient, params: MethodParams<"session/new">, extras?: SessionExtras): Promise<Attached> {
    wirePolicy(() => checkRequestedMode(params.permissionMode, this.factory.allowBypass === true));
    const built = await this.factory.create(params, extras);
    const s = this.host(built);
    s.clients.push(client);
    return { result: { session: this.info(s), seq: s.seq, driver: true }, afterResponse: () => built.core.start() };
  }

  /** `extras` apply only when a saved session is resumed (a live one keeps what it was built with). */
  async load(client: HostClient, ref: string, afterSeq?: number, extras?: SessionExtras): Promise<Attached> {
    const id = this.live.has(ref) ? ref : this.liveByPrefix(ref) ?? this.factory.resolveId(ref);
    const existing = id ? this.live.get(id) : undefined;
    if (existing && !existing.closing) return this.reattach(existing, client, afterSeq);
    if (afterSeq !== undefined && afterSeq > 0) throw new RpcFailure(RPC_ERROR.invalidParams, `session ${ref} is not live: afterSeq cannot be replayed`);
    const built = await this.factory.resume(ref, extras);
    if (!built) throw new RpcFailure(RPC_ERROR.sessionNotFound, `no session matches ${ref}`);
    const s = this.host(built);
    s.clients.push(client);
    const history = built.history ? [...built.history] : undefined;
    return { result: { session: this.info(s), seq: s.seq, driver: true, ...(history ? { history } : {}) }, afterResponse: () => built.core.start() };
  }

  list(): SessionInfo[] {
    const live = [...this.live.values()].filter((s) => !s.closing).map((s) => this.info(s));
    const ids = new Set(live.map((s) => s.sessionId));
    return [...live, ...this.factory.saved().filter((s) => !ids.has(s.sessionId))];
  }

  /** An op from `client`; only the driver's are accepted. Returns whether a turn was running (a prompt queues). */
  submit(client: HostClient, sessionId: string, op: Op): { wasRunning: boolean } {
    const s = this.get(sessionId);
    if (!s.clients.includes(client)) throw new RpcFailure(RPC_ERROR.sessionNotFound, `not attached to session ${sessionId}`);
    if (s.clients[0] !== client) throw new RpcFailure(RPC_ERROR.notDriver, `another client drives session ${sessionId}`);
    wirePolicy(() => checkOp(op, this.factory.allowBypass === true));
    const wasRunning = s.built.core.isRunning;
    s.built.core.submit(op);
    return { wasRunning };
  }

  /** The checkpoints of a session `client` is attached to, each with its restore plan (read-only: observers may ask). */
  checkpoints(client: HostClient, sessionId: string, planIds?: readonly string[]): MethodResult<"session/checkpoints"> {
    const s = this.get(sessionId);
    if (!s.clients.includes(client)) throw new RpcFailure(RPC_ERROR.sessionNotFound, `not attached to session ${sessionId}`);
    const store = s.built.checkpoints;
    if (!store) return { checkpoints: [], plans: {} };
    const checkpoints = store.list();
    const plans: MethodResult<"session/checkpoints">["plans"] = {};
    const wanted = new Set(planIds ?? checkpoints.slice(0, CHECKPOINT_PLANS).map((c) => c.id));
    for (const cp of checkpoints) {
      const plan = cp.conversationOnly || !wanted.has(cp.id) ? undefined : store.plan(cp.id);
      if (plan !== undefined) plans[cp.id] = typeof plan === "string" ? { error: plan } : plan;
    }
    return { checkpoints, plans };
  }

  /** Models to switch to: for a live session's project when one is named, else the server's. */
  async models(sessionId?: string): Promise<ModelChoice[]> {
    const cwd = sessionId ? this.get(sessionId).built.cwd : undefined;
    return (await this.factory.models?.(cwd)) ?? [];
  }

  /** Ends the session: interrupts its turn, waits for it to settle, saves and frees it. */
  async close(sessionId: string): Promise<void> {
    const s = this.get(sessionId);
    await this.shut(s);
  }

  /** The client went away: its sessions go on; the driver's seat passes to the next client attached. */
  detach(client: HostClient): void {
    for (const s of this.live.values()) {
      s.clients = s.clients.filter((c) => c !== client);
      s.attaching.delete(client);
    }
  }

  /** Server shutdown (SIGTERM, stdin closed): every session ends its turn cleanly and is saved. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.live.values()].map((s) => this.shut(s)));
  }

  get size(): number {
    return this.live.size;
  }

  private host(built: BuiltSession): Live {
    const s: Live = { built, seq: 0, log: [], head: 0, logBytes: 0, approvals: new Map(), clients: [], attaching: new Set(), title: built.title ?? "", updatedAt: this.now(), turns: 0, closing: undefined };
    this.live.set(built.id, s);
    built.core.subscribe((event) => this.record(s, event));
    return s;
  }

  private record(s: Live, event: AgentEvent): void {
    s.seq += 1;
    s.updatedAt = this.now();
    if (event.type === "turn.started") {
      s.turns += 1;
      if (!s.title) s.title = event.input.split("\n")[0]!.slice(0, 80);
    }
    this.observer?.(event);
    if (event.type === "approval.requested") s.approvals.set(event.requestId, { seq: s.seq, event });
    if (event.type === "approval.resolved") s.approvals.delete(event.requestId);
    const entry = { seq: s.seq, event, bytes: Buffer.byteLength(JSON.stringify(event)) };
    s.log.push(entry);
    s.logBytes += entry.bytes;
    this.trim(s);
    for (const c of [...s.clients]) if (!s.attaching.has(c)) c.sendEvent({ sessionId: s.built.id, seq: entry.seq, event });
  }

  /** Oldest events out past either bound (the newest one always stays); the array is compacted in batches. */
  private trim(s: Live): void {
    while (s.log.length - s.head > 1 && (s.log.length - s.head > this.replayEvents || s.logBytes > this.replayBytes)) {
      s.logBytes -= s.log[s.head]!.bytes;
      s.head += 1;
    }
    if (s.head > 1024 && s.head * 2 > s.log.length) {
      s.log.splice(0, s.head);
      s.head = 0;
    }
  }

  private reattach(s: Live, client: HostClient, afterSeq: number | undefined): Attached {
    const oldest = s.log[s.head]?.seq ?? s.seq + 1;
    if (afterSeq !== undefined && afterSeq < oldest - 1)
      throw new RpcFailure(RPC_ERROR.invalidParams, `events ${afterSeq + 1}..${oldest - 1} are no longer kept (the replay log starts at ${oldest}): load the session without afterSeq and rebuild from its history`);
    if (afterSeq !== undefined && afterSeq > s.seq) throw new RpcFailure(RPC_ERROR.invalidParams, `afterSeq ${afterSeq} is past the newest event ${s.seq}`);
    // The seat is taken now (so the driver is decided in attach order), but events wait in the log until the
    // response is on the wire; then the missed ones and those that came meanwhile go out in one synchronous step.
    if (!s.clients.includes(client)) s.clients.push(client);
    s.attaching.add(client);
    const seq = s.seq;
    const driver = s.clients[0] === client;
    const pending = [...s.approvals.values()];
    // From the start (afterSeq 0) of a session this server resumed: the saved history precedes its first event.
    const history = afterSeq === 0 && s.built.history?.length ? [...s.built.history] : undefined;
    return {
      result: { session: this.info(s), seq, driver, ...(pending.length ? { pending } : {}), ...(history ? { history } : {}) },
      afterResponse: () => {
        if (!s.attaching.delete(client)) return; // detached meanwhile
        const from = afterSeq ?? seq;
        for (let i = s.head; i < s.log.length; i++) {
          const e = s.log[i]!;
          if (e.seq > from) client.sendEvent({ sessionId: s.built.id, seq: e.seq, event: e.event });
        }
      },
    };
  }

  private get(sessionId: string): Live {
    const s = this.live.get(sessionId);
    if (!s || s.closing) throw new RpcFailure(RPC_ERROR.sessionNotFound, `no live session ${sessionId}`);
    return s;
  }

  private liveByPrefix(ref: string): string | undefined {
    const hits = [...this.live.keys()].filter((id) => id.startsWith(ref));
    return hits.length === 1 ? hits[0] : undefined;
  }

  private shut(s: Live): Promise<void> {
    s.closing ??= (async () => {
      // Interrupt and let the turn settle first, so `session.ended` is the session's last event for every client.
      s.built.core.submit({ type: "interrupt" });
      await s.built.core.idle();
      s.built.core.submit({ type: "shutdown" });
      await s.built.core.idle();
      await s.built.dispose();
      s.clients = [];
      this.live.delete(s.built.id);
    })();
    return s.closing;
  }

  private info(s: Live): SessionInfo {
    return {
      sessionId: s.built.id,
      title: s.title,
      provider: s.built.provider(),
      model: s.built.model(),
      cwd: s.built.cwd,
      live: true,
      running: s.built.core.isRunning,
      updatedAt: s.updatedAt,
      messages: s.turns,
      clients: s.clients.length,
      ...(s.built.mode ? { permissionMode: s.built.mode() } : {}),
      ...(s.built.contextWindow ? { contextWindow: s.built.contextWindow() } : {}),
    };
  }
}

function wirePolicy(check: () => void): void {
  try {
    check();
  } catch (e) {
    if (e instanceof WirePolicyError) throw new RpcFailure(e.code, e.message);
    throw e;
  }
}
