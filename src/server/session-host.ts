/**
 * Hosts several sessions for the server's clients. Every AgentEvent of a hosted session gets the next sequence
 * number of that session (from 1, no gaps) and is kept in a bounded replay log, so a client that reattaches with
 * `afterSeq` gets exactly the events it missed. One attached client drives (its ops are accepted); the others
 * observe. A client that goes away never stops its session's turn; when the driver leaves, the oldest observer
 * takes over. The sessions themselves are built by a SessionFactory the cli layer injects (src/cli/commands/serve.ts).
 */
import type { Op, PermissionMode } from "../protocol/events.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import type { SessionLike } from "../protocol/session-like.ts";
import type { FileAccess } from "../tool/file-access.ts";
import { RPC_ERROR, type MethodParams, type SessionEventParams, type SessionInfo } from "./protocol.ts";

/** Events kept per session for replay (a reattaching client further behind gets an error, not a silent gap). */
export const REPLAY_LOG_LIMIT = 10_000;

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
  result: { session: SessionInfo; seq: number; driver: boolean; history?: Message[] };
  afterResponse(): void;
}

interface Live {
  built: BuiltSession;
  seq: number;
  log: Array<{ seq: number; event: AgentEvent }>;
  /** Attach order: the first one drives. */
  clients: HostClient[];
  title: string;
  updatedAt: number;
  turns: number;
  closing: Promise<void> | undefined;
}

export class SessionHost {
  private readonly live = new Map<string, Live>();
  /** Sees every event once, as it leaves a session (metrics); never blocks. */
  observer: ((event: AgentEvent) => void) | undefined;

  constructor(
    private readonly factory: SessionFactory,
    private readonly now: () => number = Date.now,
  ) {}

  async create(client: HostClient, params: MethodParams<"session/new">, extras?: SessionExtras): Promise<Attached> {
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
    const wasRunning = s.built.core.isRunning;
    s.built.core.submit(op);
    return { wasRunning };
  }

  /** Ends the session: interrupts its turn, waits for it to settle, saves and frees it. */
  async close(sessionId: string): Promise<void> {
    const s = this.get(sessionId);
    await this.shut(s);
  }

  /** The client went away: its sessions go on; the driver's seat passes to the next client attached. */
  detach(client: HostClient): void {
    for (const s of this.live.values()) s.clients = s.clients.filter((c) => c !== client);
  }

  /** Server shutdown (SIGTERM, stdin closed): every session ends its turn cleanly and is saved. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.live.values()].map((s) => this.shut(s)));
  }

  get size(): number {
    return this.live.size;
  }

  private host(built: BuiltSession): Live {
    const s: Live = { built, seq: 0, log: [], clients: [], title: built.title ?? "", updatedAt: this.now(), turns: 0, closing: undefined };
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
    const entry = { seq: s.seq, event };
    s.log.push(entry);
    if (s.log.length > REPLAY_LOG_LIMIT) s.log.splice(0, s.log.length - REPLAY_LOG_LIMIT);
    for (const c of [...s.clients]) c.sendEvent({ sessionId: s.built.id, seq: entry.seq, event });
  }

  private reattach(s: Live, client: HostClient, afterSeq: number | undefined): Attached {
    const oldest = s.log[0]?.seq ?? s.seq + 1;
    if (afterSeq !== undefined && afterSeq < oldest - 1) throw new RpcFailure(RPC_ERROR.invalidParams, `events before ${oldest} are no longer kept (asked after ${afterSeq})`);
    if (afterSeq !== undefined && afterSeq > s.seq) throw new RpcFailure(RPC_ERROR.invalidParams, `afterSeq ${afterSeq} is past the newest event ${s.seq}`);
    if (!s.clients.includes(client)) s.clients.push(client);
    const seq = s.seq;
    const driver = s.clients[0] === client;
    // Replay and registration happen in one synchronous step after the response: no event is lost or sent twice.
    const missed = afterSeq === undefined ? [] : s.log.filter((e) => e.seq > afterSeq && e.seq <= seq);
    return {
      result: { session: this.info(s), seq, driver },
      afterResponse: () => {
        for (const e of missed) client.sendEvent({ sessionId: s.built.id, seq: e.seq, event: e.event });
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
    };
  }
}
