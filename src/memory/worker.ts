/**
 * The background extraction worker of one session.
 *
 * Cadence (the seed's): after each answer (`turn.completed`) when ≥ MIN_NEW_MESSAGES messages are new and the
 * 2-minute cooldown has passed; a 3-minute ticker also extracts what a quiet session left pending (≥ 1 new user
 * message). `flush()` at exit takes whatever is pending.
 *
 * Contracts:
 * - Never competes with a running turn when the extraction model is on a local provider (`local`): it starts only
 *   while the session is idle and is aborted the moment a turn starts (the single model slot goes to the turn).
 * - A failed extraction (error, timeout of 180 s, abort, malformed reply) leaves its messages pending: it is
 *   retried later, not lost. Three malformed replies for the same range give it up (logged).
 * - `propose` mode puts what it finds in the inbox; `auto` stores it; `off` and `read-only` extract nothing.
 * - A model call is spent only on a slice where the user says something about themselves, their preferences or
 *   the project's conventions (signals.ts); "list the files" alone is not worth one.
 * - The clock is injected (tests drive cadence, cooldown and the ticker with a fake one).
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { LlmRequest } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import type { Redactor } from "../store/redact.ts";
import { COMPACT_EVERY_MS, compact, expireDailyNotes } from "./compactor.ts";
import { buildExtractionRequest, EXTRACTION_TIMEOUT_MS, parseExtractionReply, transcriptOf } from "./extraction.ts";
import { readJson, writeJson } from "./json-file.ts";
import { withLock } from "../util/file-lock.ts";
import type { MemoryStore } from "./memory-store.ts";
import { ingest, type IngestResult } from "./reconcile.ts";
import { worthExtracting } from "./signals.ts";
import type { MemoryMode } from "./types.ts";
import { z } from "zod";

export const MIN_NEW_MESSAGES = 4;
export const COOLDOWN_MS = 120_000;
export const TICK_MS = 180_000;
const MAX_MALFORMED = 3;

export interface MemoryClock {
  now(): number;
  /** A one-shot timer; returns its cancel. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const realClock: MemoryClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const h = setTimeout(fn, ms);
    (h as { unref?: () => void }).unref?.();
    return () => clearTimeout(h);
  },
};

/** What the worker needs from the Session (agent/session/session.ts satisfies it). */
export interface WorkerSession {
  readonly messages: readonly Message[];
  readonly status: string;
  /** Resolves when no task holds the session. */
  idle(): Promise<void>;
  subscribe(listener: (e: AgentEvent) => void): () => void;
}

export interface WorkerOptions {
  store: MemoryStore;
  session: WorkerSession;
  sessionId: () => string;
  mode: MemoryMode;
  /** Streams the request to the extraction model and returns its text; throws (or rejects) on failure. */
  extract(request: LlmRequest, signal: AbortSignal): Promise<string>;
  model: string;
  /** The extraction model runs on this machine (it shares the model slot with the session). */
  local: boolean;
  redact: Redactor;
  clock?: MemoryClock;
  timeoutMs?: number;
  log?(msg: string): void;
  /**
   * A saved session's messages: what a session could not extract before it ended (the model was down) is kept in
   * state.json and extracted by the next session that has this.
   */
  loadSession?(id: string): readonly Message[] | undefined;
  /** Told what an extraction stored or proposed (the UI says "2 memories proposed"). */
  onResult?(r: IngestResult, mode: MemoryMode): void;
}

const pendingSchema = z.object({ sessionId: z.string(), from: z.number().int().nonnegative(), to: z.number().int().nonnegative() });
const stateSchema = z.object({ lastCompaction: z.number().optional(), pending: z.array(pendingSchema).optional() });
type State = z.infer<typeof stateSchema>;
type Pending = z.infer<typeof pendingSchema>;

export class MemoryWorker {
  private readonly clock: MemoryClock;
  private extractedUpTo = 0;
  private lastAttemptAt: number | undefined;
  private malformed = 0;
  private running: { controller: AbortController; done: Promise<void>; abortedByTurn: boolean } | undefined;
  private cancelTick: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private carried: Pending[] = [];
  /** Extractions attempted (for tests and the bench). */
  attempts = 0;

  constructor(private readonly o: WorkerOptions) {
    this.clock = o.clock ?? realClock;
  }

  start(): void {
    if (!this.active()) return;
    if (this.o.loadSession) this.carried = (this.readState().pending ?? []).filter((p) => p.sessionId !== this.o.sessionId());
    this.unsubscribe = this.o.session.subscribe((e) => {
      if (e.type === "turn.started" && this.o.local && this.running) {
        this.running.abortedByTurn = true;
        this.running.controller.abort();
      }
      // The session releases its slot after turn.completed: look once it has.
      if (e.type === "turn.completed") void this.o.session.idle().then(() => this.nudge());
    });
    this.arm();
    // Started late (after the UI's first frame): turns that already ended count as well.
    if (this.o.session.messages.length) void this.o.session.idle().then(() => this.nudge());
  }

  /** After an answer: extracts when enough is new and the cooldown has passed. */
  nudge(): void {
    this.maybeExtract(MIN_NEW_MESSAGES);
  }

  /** The ticker: whatever a quiet session left pending, then the daily expiry and (every 6 h) the compactor. */
  tick(): void {
    this.maybeExtract(1);
    this.maintain();
  }

  /** Resolves when no extraction is in flight. */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running.done;
  }

  /** At exit: waits for the extraction in flight, then extracts whatever is still pending (no cooldown). */
  async flush(): Promise<void> {
    await this.whenIdle();
    if (this.closed || !this.active()) return;
    // The session is closing: no turn will want the model slot any more.
    this.maybeExtract(1, true, true);
    await this.whenIdle();
    // Still pending (the model is down): the next session extracts it from the saved session.
    const messages = this.o.session.messages;
    const left = messages.slice(this.extractedUpTo);
    if (this.o.loadSession && this.extractedUpTo < messages.length && worthExtracting(left)) this.remember({ sessionId: this.o.sessionId(), from: this.extractedUpTo, to: messages.length });
  }

  close(): void {
    this.closed = true;
    this.cancelTick?.();
    this.unsubscribe?.();
    this.running?.controller.abort();
  }

  get pending(): number {
    return Math.max(0, this.o.session.messages.length - this.extractedUpTo);
  }

  private active(): boolean {
    return this.o.mode === "propose" || this.o.mode === "auto";
  }

  private arm(): void {
    if (this.closed) return;
    this.cancelTick = this.clock.setTimer(() => {
      this.tick();
      this.arm();
    }, TICK_MS);
  }

  private maybeExtract(minNew: number, ignoreCooldown = false, closing = false): void {
    if (this.closed || !this.active() || this.running) return;
    if (this.carried.length && !closing && this.extractCarried()) return;
    const messages = this.o.session.messages;
    if (this.extractedUpTo > messages.length) this.extractedUpTo = 0; // the history was replaced (compaction, rewind)
    const from = this.extractedUpTo;
    const to = messages.length;
    if (to - from < minNew || !worthExtracting(messages.slice(from, to))) return;
    const now = this.clock.now();
    if (!ignoreCooldown && this.lastAttemptAt !== undefined && now - this.lastAttemptAt < COOLDOWN_MS) return;
    if (this.o.local && !closing && this.o.session.status !== "idle") return; // the turn has the slot; the next nudge retries
    this.lastAttemptAt = now;
    const controller = new AbortController();
    const run = { controller, abortedByTurn: false, done: Promise.resolve() };
    run.done = this.extract(messages.slice(from, to), from, to, this.o.sessionId(), controller, run, (ok) => ok && this.advance(to)).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
  }

  /** A range an earlier session left; true when an extraction started. */
  private extractCarried(): boolean {
    if (this.o.local && this.o.session.status !== "idle") return false;
    const p = this.carried.shift()!;
    const messages = this.o.loadSession?.(p.sessionId)?.slice(p.from, p.to);
    if (!messages?.length) {
      this.forget(p);
      return false;
    }
    const controller = new AbortController();
    const run = { controller, abortedByTurn: false, done: Promise.resolve() };
    run.done = this.extract(messages, p.from, p.to, p.sessionId, controller, run, (ok) => (ok ? this.forget(p) : this.carried.push(p))).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return true;
  }

  private async extract(slice: readonly Message[], from: number, to: number, sessionId: string, controller: AbortController, run: { abortedByTurn: boolean }, done: (ok: boolean) => void): Promise<void> {
    this.attempts++;
    const cancelTimeout = this.clock.setTimer(() => controller.abort(), this.o.timeoutMs ?? EXTRACTION_TIMEOUT_MS);
    try {
      const request = buildExtractionRequest(transcriptOf(slice, this.o.redact), this.o.model);
      const text = await this.o.extract(request, controller.signal);
      if (controller.signal.aborted) throw new Error("aborted");
      const reply = parseExtractionReply(text, { redact: this.o.redact, source: { kind: "session", sessionId, messages: [from, to] }, defaultScope: "project" });
      if (reply.kind === "malformed") {
        this.malformed++;
        this.log(`memory extraction of messages ${from}-${to}: malformed reply (${reply.reason})${this.malformed >= MAX_MALFORMED ? "; given up" : "; will retry"}`);
        if (this.malformed >= MAX_MALFORMED) {
          this.malformed = 0;
          done(true);
        } else done(false);
        return;
      }
      if (reply.kind === "items" && reply.candidates.length) {
        const mode = this.o.mode;
        const { result } = this.o.store.transact("extraction", (tx) => ingest(tx, reply.candidates, mode === "auto" ? "auto" : "propose"));
        this.o.onResult?.(result, mode);
      }
      done(true);
    } catch (err) {
      done(false);
      // Retried later: the range stays pending. A turn that took the slot lets the next nudge retry at once.
      if (run.abortedByTurn) this.lastAttemptAt = undefined;
      this.log(`memory extraction of messages ${from}-${to} failed (will retry): ${(err as Error)?.message ?? String(err)}`);
    } finally {
      cancelTimeout();
    }
  }

  private advance(to: number): void {
    this.extractedUpTo = to;
    this.malformed = 0;
  }

  private maintain(): void {
    try {
      const placement = this.o.mode === "auto" ? "auto" : "propose";
      expireDailyNotes(this.o.store, placement);
      const now = this.clock.now();
      const last = this.readState().lastCompaction;
      if (last !== undefined && now - last < COMPACT_EVERY_MS) return;
      if (last !== undefined) compact(this.o.store, placement);
      this.updateState((s) => ({ ...s, lastCompaction: now }));
    } catch (err) {
      this.log(`memory maintenance failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private readState(): State {
    return readJson(this.o.store.paths.state, stateSchema, (m) => this.log(m), this.clock.now()) ?? {};
  }

  private updateState(fn: (s: State) => State): void {
    try {
      withLock(this.o.store.paths.lock, () => writeJson(this.o.store.paths.state, fn(this.readState())));
    } catch (err) {
      this.log(`memory state not saved: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private remember(p: Pending): void {
    this.updateState((s) => ({ ...s, pending: [...(s.pending ?? []).filter((x) => x.sessionId !== p.sessionId), p] }));
  }

  private forget(p: Pending): void {
    this.updateState((s) => ({ ...s, pending: (s.pending ?? []).filter((x) => !(x.sessionId === p.sessionId && x.from === p.from)) }));
  }

  private log(msg: string): void {
    this.o.log?.(msg);
  }
}
