/**
 * Session: the UI-free core. `submit(op)` in, `subscribe(listener)` out. Holds the one unified history,
 * runs agent runs one at a time, queues type-ahead input (FIFO, at most 10), and routes approvals.
 * Nothing here knows about terminals; the TUI and headless modes are consumers.
 */
import type { AgentEvent, ApprovalDecision, Op, PermissionMode } from "../protocol/events.ts";
import { EVENT_SCHEMA_VERSION } from "../protocol/events.ts";
import type { Usage } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import type { AgentEventListener, SessionLike } from "../protocol/session-like.ts";
import { assertNever } from "../protocol/assert-never.ts";
import { EventBus } from "./event-bus.ts";
import { t } from "../i18n/i18n.ts";
import { runAgent, type RunOutcome } from "./loop.ts";
import type { ApprovalAnswer } from "./run-deps.ts";
import type { SessionInternals } from "./session-internals.ts";
import { onCompact, onRewind, onSetModel } from "./session-op-handlers.ts";
import type { ModelBinding, SessionOptions } from "./session-options.ts";
import { buildRunDeps } from "./session-run-deps.ts";
import { TypeAheadQueue } from "./type-ahead-queue.ts";

export { MAX_QUEUE } from "./type-ahead-queue.ts";
export type { CompletedBatch, HistoryChange, HistoryPipeline, ModelBinding, SessionOptions, TextProtocol } from "./session-options.ts";

export class Session implements SessionLike {
  private readonly bus: EventBus;
  private history: Message[];
  private readonly queue = new TypeAheadQueue((e) => this.emit(e));
  private running: AbortController | undefined;
  /** A compaction or other non-turn task that also blocks new runs. */
  private sideTask: AbortController | undefined;
  private binding: ModelBinding;
  private runPromise: Promise<void> | undefined;
  private readonly approvals = new Map<string, (d: ApprovalDecision) => void>();
  private seq = 0;
  private permissionMode: PermissionMode;
  private readonly totals: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  private lastInputTokens = 0;
  private currentTask = "";
  private closed = false;
  readonly now: () => number;
  /** What the op handlers and run deps see of this session (live: every property is read when used). */
  private readonly internals: SessionInternals;

  constructor(private readonly opts: SessionOptions) {
    this.bus = new EventBus(opts.onListenerError);
    this.history = [...(opts.initialHistory ?? [])];
    this.permissionMode = opts.permissionMode;
    this.binding = { providerId: opts.providerId, model: opts.model, provider: opts.provider, nativeTools: opts.nativeTools, contextWindow: opts.contextWindow };
    this.now = opts.now ?? Date.now;
    this.internals = this.makeInternals();
  }

  subscribe(listener: AgentEventListener): () => void {
    return this.bus.subscribe(listener);
  }

  /** Announce the session to subscribers (call once they are attached). */
  start(): void {
    this.emit({
      type: "session.started",
      sessionId: this.opts.sessionId,
      provider: this.binding.providerId,
      model: this.binding.model,
      cwd: this.opts.cwd,
      schemaVersion: EVENT_SCHEMA_VERSION,
    });
  }

  get messages(): readonly Message[] {
    return this.history;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get contextWindow(): number {
    return this.binding.contextWindow;
  }

  get model(): ModelBinding {
    return this.binding;
  }

  get mode(): PermissionMode {
    return this.permissionMode;
  }

  /** Resolves when the current run (and any queued follow-ups) finished. */
  async idle(): Promise<void> {
    while (this.runPromise) await this.runPromise;
  }

  submit(op: Op): void {
    if (this.closed && op.type !== "shutdown") return;
    switch (op.type) {
      case "user_input":
        return this.onUserInput(op.text);
      case "interrupt":
        return this.interrupt();
      case "approval": {
        const resolve = this.approvals.get(op.requestId);
        if (!resolve) return;
        this.approvals.delete(op.requestId);
        this.emit({ type: "approval.resolved", requestId: op.requestId, decision: op.decision });
        resolve(op.decision);
        return;
      }
      case "set_permission_mode":
        this.permissionMode = op.mode;
        this.opts.onPermissionModeChange?.(op.mode);
        this.emit({ type: "permission_mode.changed", mode: op.mode });
        return;
      case "remove_queued":
        this.queue.remove(op.index);
        return;
      case "clear":
        if (this.running) {
          this.emit({ type: "notice", level: "warn", text: t("core.busyClear") });
          return;
        }
        this.replaceHistory([], "clear");
        return;
      case "set_model":
        void onSetModel(this.internals, op.provider, op.model);
        return;
      case "compact":
        void onCompact(this.internals, op.instruction);
        return;
      case "rewind":
        void onRewind(this.internals, op);
        return;
      case "shutdown":
        this.closed = true;
        this.interrupt();
        this.emit({ type: "session.ended", reason: "shutdown" });
        return;
      default:
        assertNever(op, "op");
    }
  }

  private busy(what: string): boolean {
    if (!this.running && !this.sideTask) return false;
    this.emit({ type: "notice", level: "warn", text: t("core.busy", { what }) });
    return true;
  }

  private onUserInput(text: string): void {
    if (!text.trim()) return;
    if (this.running || this.sideTask) {
      this.queue.push(text);
      return;
    }
    this.runPromise = this.runLoop(text).finally(() => {
      this.runPromise = undefined;
    });
  }

  private interrupt(): void {
    this.sideTask?.abort();
    if (!this.running) return;
    this.running.abort();
    // Each pending ask is answered `deny` and announced, so a UI drops its approval box at once.
    for (const [id, resolve] of this.approvals) {
      this.approvals.delete(id);
      resolve("deny");
      this.emit({ type: "approval.resolved", requestId: id, decision: "deny" });
    }
  }

  private async runLoop(first: string): Promise<void> {
    let input: string | undefined = first;
    while (input !== undefined && !this.closed) {
      await this.runOne(input);
      input = this.queue.length ? this.queue.take() : undefined;
    }
  }

  private async runOne(input: string): Promise<void> {
    const controller = new AbortController();
    this.running = controller;
    const turnId = this.newId("turn");
    this.currentTask = input;
    this.emit({ type: "turn.started", turnId, input });
    const userMessage: Message = { role: "user", content: this.transformed(input), meta: { createdAt: this.now() } };
    this.appendHistory(userMessage);
    let outcome: RunOutcome;
    try {
      outcome = await runAgent(buildRunDeps(this.internals), controller.signal);
    } catch (err) {
      // runAgent must not throw; a bug here must still leave the session usable.
      this.emit({ type: "error", message: t("core.internalError", { error: (err as Error)?.message ?? String(err) }) });
      outcome = { stopReason: "error", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } };
    }
    this.running = undefined;
    // A turn that failed before the model answered leaves no trace in the history: the UI gives the text back
    // for a retry, and sending it again must not put the same request in twice.
    const last = this.history[this.history.length - 1];
    if (outcome.stopReason === "error" && last && (last === userMessage || (last.role === "user" && last.content === userMessage.content && last.meta?.kind === undefined))) {
      this.replaceHistory(this.history.slice(0, -1), "failed-turn", false);
    }
    if (outcome.stopReason === "interrupted") this.emit({ type: "notice", level: "info", text: t("interrupted") });
    this.emit({
      type: "turn.completed",
      turnId,
      stopReason: outcome.stopReason,
      usage: outcome.usage,
      totalUsage: { ...this.totals },
      contextTokens: this.contextTokens(),
      contextWindow: this.binding.contextWindow,
      ...(this.opts.costSoFar?.() !== undefined ? { costUsd: this.opts.costSoFar() } : {}),
    });
  }

  /** Tokens the next request will carry: the last reported prompt size, else an estimate. */
  contextTokens(): number {
    if (this.opts.estimateContextTokens) return this.opts.estimateContextTokens(this.history);
    const estimate = Math.ceil(this.history.reduce((n, m) => n + m.content.length + (m.role === "assistant" ? (m.toolCalls ?? []).reduce((k, c) => k + c.arguments.length, 0) : 0), 0) / 4);
    return Math.max(this.lastInputTokens, estimate);
  }

  private makeInternals(): SessionInternals {
    const self = this; // the getters read the live fields
    return {
      opts: this.opts,
      queue: this.queue,
      totals: this.totals,
      get history() { return self.history; },
      get binding() { return self.binding; },
      get currentTask() { return self.currentTask; },
      get seq() { return self.seq; },
      now: this.now,
      emit: (e) => this.emit(e),
      newId: (prefix) => this.newId(prefix),
      busy: (what) => this.busy(what),
      transformed: (text) => this.transformed(text),
      appendHistory: (...messages) => this.appendHistory(...messages),
      replaceHistory: (messages, reason, announce) => this.replaceHistory(messages, reason, announce),
      requestApproval: (req, signal) => this.requestApproval(req, signal),
      setBinding: (binding) => {
        this.binding = binding;
      },
      setSideTask: (controller) => {
        this.sideTask = controller;
      },
      setLastInputTokens: (tokens) => {
        this.lastInputTokens = tokens;
      },
    };
  }

  private requestApproval(req: { tool: string; action: string; diff?: string; reason: string }, signal: AbortSignal): Promise<ApprovalAnswer> {
    const auto = this.opts.autoApprove?.(req);
    if (auto) {
      // Headless: the ask and its automatic answer are still events, so a stream-json consumer sees the denial.
      const id = this.newId("approval");
      this.emit({ type: "approval.requested", requestId: id, tool: req.tool, action: req.action, reason: req.reason, ...(req.diff ? { diff: req.diff } : {}) });
      this.emit({ type: "approval.resolved", requestId: id, decision: auto });
      return Promise.resolve(auto);
    }
    if (signal.aborted) return Promise.resolve("deny");
    const requestId = this.newId("approval");
    return new Promise((resolve) => {
      this.approvals.set(requestId, resolve);
      this.emit({ type: "approval.requested", requestId, tool: req.tool, action: req.action, reason: req.reason, ...(req.diff ? { diff: req.diff } : {}) });
    });
  }

  private emit(e: AgentEvent): void {
    this.bus.emit(e);
  }

  /** For collaborators outside the loop (summaries, checkpoints) to announce their events. */
  publish(e: AgentEvent): void {
    this.bus.emit(e);
  }

  private transformed(text: string): string {
    if (!this.opts.transformInput) return text;
    try {
      const r = this.opts.transformInput(text);
      // Each says the prompt is not sent as written (a file cut to its cap or not attached): a warning, which
      // headless text mode also prints on stderr.
      for (const n of r.notices ?? []) this.emit({ type: "notice", level: "warn", text: n });
      return r.text;
    } catch (err) {
      this.emit({ type: "notice", level: "warn", text: t("core.attachmentsFailed", { error: (err as Error)?.message ?? String(err) }) });
      return text;
    }
  }

  private appendHistory(...messages: Message[]): void {
    this.history.push(...messages);
    this.opts.onHistoryChange?.({ type: "append", messages });
  }

  /** Replace the whole history. `announce` re-renders the UI (clear, rewind, compaction); the pipeline's silent repairs do not. */
  replaceHistory(messages: Message[], reason: string, announce = true): void {
    this.history = messages;
    this.opts.onHistoryChange?.({ type: "replace", messages, reason });
    if (announce) this.emit({ type: "history.replaced", messages });
  }

  private newId(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${this.seq.toString(36)}`;
  }
}
