/**
 * Session: the UI-free core, and the one state machine of a session. `submit(op)` in, `subscribe(listener)` out.
 *
 *   idle ──user_input / send_queued──▶ running ──turn.completed, then──▶ idle (or the next queued run)
 *   idle ──set_model / compact / rewind──▶ side-task ──done──▶ idle (or the next queued run)
 *   any ──shutdown──▶ closing (once the current task has ended)
 *
 * Contracts: one task holds the slot at a time, and it takes it synchronously, before its first await, so an op
 * submitted in any await window sees the session busy (a prompt is queued, another side task is refused with a
 * notice). The slot is released only after the task's last event (a run: `turn.completed`), so a listener that
 * submits on it queues. When a task ends the queue is sent, oldest first, as one input — unless an interrupt
 * paused it: then it waits for `send_queued`, the next prompt (which goes behind it) or removal. `idle()`
 * resolves when no task holds the slot and nothing is about to start. A side task's unexpected rejection is an
 * `error` event. Nothing here knows about terminals; the TUI and headless modes are consumers.
 */
import type { AgentEvent, Op, PermissionMode } from "../../protocol/events.ts";
import { EVENT_SCHEMA_VERSION } from "../../protocol/events.ts";
import type { Usage } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import type { AgentEventListener, SessionLike } from "../../protocol/session-like.ts";
import { assertNever } from "../../protocol/assert-never.ts";
import { t, type MessageKey } from "../../i18n/i18n.ts";
import { EventBus } from "../event-bus.ts";
import { Approvals, type ApprovalRequest } from "./approvals.ts";
import type { ApprovalAnswer } from "../run-deps.ts";
import { SessionHistory } from "./session-history.ts";
import type { ModelBinding, SessionHooks, SessionOptions } from "./session-options.ts";
import { runTurn, type TurnHost } from "./turn.ts";
import { TypeAheadQueue } from "./type-ahead-queue.ts";
import { untilAborted } from "../../util/until-aborted.ts";

export { MAX_QUEUE } from "./type-ahead-queue.ts";
export type { CompletedBatch, HistoryChange, HistoryPipeline, ModelBinding, SessionHooks, SessionOptions, TextProtocol, TurnOptions } from "./session-options.ts";

export type SideTask = "set_model" | "compact" | "rewind";
type State =
  | { kind: "idle" }
  | { kind: "running"; controller: AbortController }
  | { kind: "side-task"; task: SideTask; controller: AbortController }
  | { kind: "closing" };
export type SessionState = State["kind"];

const IDLE: State = { kind: "idle" };
const TASK_NAME: Record<SideTask, MessageKey> = { set_model: "core.task.setModel", compact: "core.task.compact", rewind: "core.task.rewind" };

export class Session implements SessionLike {
  readonly now: () => number;
  private readonly bus: EventBus;
  private readonly history: SessionHistory;
  private readonly queue: TypeAheadQueue;
  private readonly approvals: Approvals;
  private readonly hooks: SessionHooks;
  private state: State = IDLE;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private binding: ModelBinding;
  private permissionMode: PermissionMode;
  private seq = 0;
  private readonly totals: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  private lastInputTokens = 0;
  private readonly turnHost: TurnHost;

  constructor(private readonly opts: SessionOptions) {
    this.hooks = opts.hooks ?? {};
    this.now = opts.now ?? Date.now;
    this.bus = new EventBus(opts.onListenerError);
    const emit = (e: AgentEvent) => this.bus.emit(e);
    this.history = new SessionHistory(opts.initialHistory ?? [], emit, this.hooks.onHistoryChange);
    this.queue = new TypeAheadQueue(emit);
    this.approvals = new Approvals(emit, (p) => this.newId(p), this.hooks.autoApprove);
    this.binding = Object.freeze({ ...opts.binding });
    this.permissionMode = opts.permissionMode;
    this.turnHost = this.makeTurnHost();
  }

  subscribe(listener: AgentEventListener): () => void {
    return this.bus.subscribe(listener);
  }

  /** Announce the session to subscribers (call once they are attached). */
  start(): void {
    const b = this.binding;
    this.emit({ type: "session.started", sessionId: this.opts.sessionId, provider: b.providerId, model: b.model, cwd: this.opts.cwd, schemaVersion: EVENT_SCHEMA_VERSION });
  }

  get messages(): readonly Message[] {
    return this.history.messages;
  }

  /** Which state the machine is in (`side-task` covers a model switch, a compaction and a rewind). */
  get status(): SessionState {
    return this.state.kind;
  }

  get isRunning(): boolean {
    return this.state.kind === "running";
  }

  get contextWindow(): number {
    return this.binding.contextWindow;
  }

  /** The current binding (frozen; a switch replaces it). */
  get model(): ModelBinding {
    return this.binding;
  }

  get mode(): PermissionMode {
    return this.permissionMode;
  }

  /** Resolves once no task holds the slot and none is about to start (a paused queue waits for the user). */
  idle(): Promise<void> {
    if (this.state.kind === "idle" || this.state.kind === "closing") return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  submit(op: Op): void {
    if (this.closed && op.type !== "shutdown") return;
    switch (op.type) {
      case "user_input":
        return this.onUserInput(op.text, op.display);
      case "send_queued":
        return this.sendQueued();
      case "interrupt":
        return this.interrupt();
      case "approval":
        return this.approvals.answer(op.requestId, op.decision);
      case "set_permission_mode":
        this.permissionMode = op.mode;
        this.hooks.onPermissionModeChange?.(op.mode);
        this.emit({ type: "permission_mode.changed", mode: op.mode });
        return;
      case "remove_queued":
        return this.queue.remove(op.index);
      case "clear":
        if (this.refuseWhileBusy(t("core.what.clear"))) return;
        this.history.replace([], "clear");
        return;
      case "set_model":
        return this.setModel(op.provider, op.model);
      case "compact":
        return this.compact(op.instruction);
      case "rewind":
        return this.rewind(op);
      case "shell":
        return this.shell(op.command);
      case "shutdown":
        return this.shutdown();
      default:
        assertNever(op, "op");
    }
  }

  /**
   * Asks the person a question outside a tool call (trusting a project's hooks): the same approval round trip
   * as a tool's; headless answers it from autoApprove.
   */
  requestApproval(req: ApprovalRequest, signal: AbortSignal = new AbortController().signal): Promise<ApprovalAnswer> {
    return this.approvals.request(req, signal);
  }

  /** For collaborators outside the loop (summaries, checkpoints) to announce their events. */
  publish(e: AgentEvent): void {
    this.emit(e);
  }

  /** Replace the whole history. `announce` re-renders the UI (clear, rewind, compaction); silent repairs do not. */
  replaceHistory(messages: Message[], reason: string, announce = true): void {
    this.history.replace(messages, reason, announce);
  }

  /** Tokens the next request will carry: the last reported prompt size, else an estimate. */
  contextTokens(): number {
    const history = this.history.messages;
    if (this.hooks.estimateContextTokens) return this.hooks.estimateContextTokens(history);
    const chars = history.reduce((n, m) => n + m.content.length + (m.role === "assistant" ? (m.toolCalls ?? []).reduce((k, c) => k + c.arguments.length, 0) : 0), 0);
    return Math.max(this.lastInputTokens, Math.ceil(chars / 4));
  }

  // ---- transitions ----

  private onUserInput(text: string, display?: string): void {
    if (!text.trim()) return;
    if (this.state.kind !== "idle") {
      // A new prompt is the user's "send": a queue an interrupt paused goes out with it when the task ends.
      if (this.queue.push(text)) this.queue.resume();
      return;
    }
    // An interrupt left the queue waiting: the new prompt goes behind it, and all of it is sent now.
    if (this.queue.length) return this.startRun(`${this.queue.take()}\n${text}`);
    this.startRun(text, display);
  }

  private sendQueued(): void {
    if (!this.queue.length) return;
    if (this.state.kind === "idle") this.startRun(this.queue.take());
    else this.queue.resume();
  }

  private interrupt(): void {
    const s = this.state;
    if (s.kind !== "running" && s.kind !== "side-task") return;
    this.queue.pause();
    s.controller.abort();
    this.approvals.denyAll();
  }

  private shutdown(): void {
    this.interrupt();
    this.closed = true;
    if (this.state.kind === "idle") {
      this.state = { kind: "closing" };
      this.wakeIdle();
    }
    this.emit({ type: "session.ended", reason: "shutdown" });
  }

  private startRun(input: string, display?: string): void {
    const controller = new AbortController();
    this.begin({ kind: "running", controller }, () => this.runOne(input, controller.signal, display), "core.task.turn");
  }

  /** Takes the slot now (before `body` reaches its first await) and releases it when `body` settles. */
  private begin(state: Exclude<State, { kind: "idle" | "closing" }>, body: () => Promise<void>, label: MessageKey): void {
    this.state = state;
    let work: Promise<void>;
    try {
      work = body();
    } catch (err) {
      work = Promise.reject(err);
    }
    void work
      .catch((err: unknown) => this.emit({ type: "error", message: t("core.taskFailed", { task: t(label), error: (err as Error)?.message ?? String(err) }) }))
      .finally(() => this.finish());
  }

  private finish(): void {
    if (this.closed) {
      this.state = { kind: "closing" };
      return this.wakeIdle();
    }
    this.state = IDLE;
    if (this.queue.length && !this.queue.paused) return this.startRun(this.queue.take());
    this.wakeIdle();
  }

  private wakeIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** True (with a notice naming `what` and what is in the way) while a task holds the slot. */
  private refuseWhileBusy(what: string): boolean {
    const s = this.state;
    if (s.kind === "idle") return false;
    if (s.kind === "closing") return true;
    const text = s.kind === "running" ? t("core.busy", { what }) : t("core.busySideTask", { what, task: t(TASK_NAME[s.task]) });
    this.emit({ type: "notice", level: "warn", text });
    return true;
  }

  /** Refused while busy; otherwise holds the slot for `body`, which an interrupt aborts through its signal. */
  private sideTask(task: SideTask, what: string, body: (signal: AbortSignal) => Promise<void>): void {
    if (this.refuseWhileBusy(what)) return;
    const controller = new AbortController();
    this.begin({ kind: "side-task", task, controller }, () => body(controller.signal), TASK_NAME[task]);
  }

  // ---- the tasks ----

  private async runOne(input: string, signal: AbortSignal, display?: string): Promise<void> {
    const turnId = this.newId("turn");
    this.emit({ type: "turn.started", turnId, input: display ?? input });
    const outcome = await runTurn(this.turnHost, input, signal);
    if (outcome.stopReason === "interrupted") this.emit({ type: "notice", level: "info", text: t("interrupted") });
    this.completeTurn(turnId, outcome.stopReason, outcome.usage);
  }

  private completeTurn(turnId: string, stopReason: Extract<AgentEvent, { type: "turn.completed" }>["stopReason"], usage: Usage): void {
    const cost = this.hooks.costSoFar?.();
    const common = { totalUsage: { ...this.totals }, contextTokens: this.contextTokens(), contextWindow: this.binding.contextWindow };
    this.emit({ type: "turn.completed", turnId, stopReason, usage, ...common, ...(cost !== undefined ? { costUsd: cost } : {}) });
  }

  /** `!cmd`: a run without a model call (turn.started `!cmd` … turn.completed `shell` / `shell_error`). */
  private shell(command: string): void {
    const run = this.hooks.runShell;
    if (!run) return this.emit({ type: "notice", level: "warn", text: t("shell.unavailable") });
    if (!command.trim()) return this.emit({ type: "notice", level: "warn", text: t("shell.empty") });
    if (this.state.kind !== "idle") return this.emit({ type: "notice", level: "warn", text: t("shell.busy") });
    const controller = new AbortController();
    this.begin({ kind: "running", controller }, () => this.runShell(command.trim(), run, controller.signal), "core.task.turn");
  }

  private async runShell(command: string, run: NonNullable<SessionHooks["runShell"]>, signal: AbortSignal): Promise<void> {
    const turnId = this.newId("turn");
    this.emit({ type: "turn.started", turnId, input: `!${command}` });
    let r: Awaited<ReturnType<typeof run>>;
    try {
      r = await run({ command, signal, emit: (e) => this.emit(e), newId: (p) => this.newId(p), now: () => this.now(), requestApproval: (req) => this.approvals.request(req, signal) });
    } catch (err) {
      // turn.completed still closes the run the UIs show as running.
      this.emit({ type: "error", message: t("core.internalError", { error: (err as Error)?.message ?? String(err) }) });
      r = { failed: true };
    }
    if (r.message) this.history.append(r.message);
    const none = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
    this.completeTurn(turnId, signal.aborted ? "interrupted" : r.failed ? "shell_error" : "shell", none);
  }

  private setModel(provider: string, model: string): void {
    const switchModel = this.hooks.switchModel;
    if (!switchModel) return this.emit({ type: "notice", level: "warn", text: t("core.switchUnavailable") });
    this.sideTask("set_model", t("core.what.switchModels"), async (signal) => {
      // The switch's network calls take no signal: an interrupt releases the slot at once and its result is dropped.
      const r = await untilAborted(switchModel(provider, model), signal);
      if (r === undefined) return this.emit({ type: "notice", level: "info", text: t("core.switchCancelled") });
      if (typeof r === "string") return this.emit({ type: "notice", level: "error", text: r });
      this.binding = Object.freeze({ ...r });
      this.emit({ type: "model.changed", provider: r.providerId, model: r.model, contextWindow: r.contextWindow });
    });
  }

  private compact(instruction: string | undefined): void {
    const compact = this.hooks.compact;
    if (!compact) return this.emit({ type: "notice", level: "warn", text: t("core.compactUnavailable") });
    this.sideTask("compact", t("core.what.compact"), async (signal) => {
      // The level reports ("compaction" events) go out after the swap: history.replaced rebuilds the transcript
      // from the new history, so a report sent before it would vanish from the screen. Progress notices stay live.
      const reports: AgentEvent[] = [];
      const emit = (e: AgentEvent) => (e.type === "compaction" ? reports.push(e) : this.emit(e));
      const before = this.history.messages;
      try {
        const r = await compact({ history: before, signal, emit, ...(instruction ? { instruction } : {}) });
        if (r && r !== before) this.history.replace(r, "compaction");
      } catch (err) {
        this.emit({ type: "notice", level: "error", text: t("core.compactFailed", { error: (err as Error)?.message ?? String(err) }) });
      } finally {
        for (const e of reports) this.emit(e);
      }
    });
  }

  private rewind(op: Extract<Op, { type: "rewind" }>): void {
    const rewind = this.hooks.rewind;
    if (!rewind) return this.emit({ type: "notice", level: "warn", text: t("core.rewindUnavailable") });
    this.sideTask("rewind", t("core.what.rewind"), async () => {
      try {
        const r = await rewind(op, this.history.messages);
        if (typeof r === "string") return this.emit({ type: "notice", level: "warn", text: r });
        if (r.history) this.history.replace(r.history, "rewind");
        this.emit({ type: "rewound", checkpointId: op.checkpointId, mode: op.mode, prompt: r.prompt });
      } catch (err) {
        this.emit({ type: "notice", level: "error", text: t("core.rewindFailed", { error: (err as Error)?.message ?? String(err) }) });
      }
    });
  }

  // ---- plumbing ----

  private makeTurnHost(): TurnHost {
    const self = this; // the getters read the live fields
    return {
      opts: this.opts.turn,
      history: this.history,
      get binding() { return self.binding; },
      get seq() { return self.seq; },
      emit: (e) => this.emit(e),
      newId: (p) => this.newId(p),
      now: () => this.now(),
      takeQueued: () => (this.queue.length && !this.queue.paused ? this.queue.take() : undefined),
      requestApproval: (req, signal) => this.approvals.request(req, signal),
      recordUsage: (usage, purpose, model, provider) => {
        this.totals.inputTokens += usage.inputTokens;
        this.totals.outputTokens += usage.outputTokens;
        this.totals.cachedInputTokens += usage.cachedInputTokens;
        this.totals.reasoningTokens += usage.reasoningTokens;
        if (purpose === "main" && usage.inputTokens > 0) this.lastInputTokens = usage.inputTokens + usage.outputTokens;
        this.hooks.onUsage?.(usage, purpose, model, provider);
      },
    };
  }

  private emit(e: AgentEvent): void {
    this.bus.emit(e);
  }

  private newId(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${this.seq.toString(36)}`;
  }
}
