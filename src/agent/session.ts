/**
 * Session: the UI-free core. `submit(op)` in, `subscribe(listener)` out. Holds the one unified history,
 * runs agent runs one at a time, queues type-ahead input (FIFO, at most 10), and routes approvals.
 * Nothing here knows about terminals; the TUI and headless modes are consumers.
 */
import type { AgentEvent, ApprovalDecision, Op, PermissionMode } from "../protocol/events.ts";
import { EVENT_SCHEMA_VERSION } from "../protocol/events.ts";
import type { LlmRequest, Purpose, SystemPart, ToolSpec, Usage } from "../protocol/llm.ts";
import type { AssistantMessage, Message, ToolCall } from "../protocol/message.ts";
import type { AgentEventListener, SessionLike } from "../protocol/session-like.ts";
import { assertNever } from "../protocol/assert-never.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { EventBus } from "./event-bus.ts";
import { safeHead } from "../util/text.ts";
import { t } from "../i18n/i18n.ts";
import { runAgent, type RunOutcome } from "./loop.ts";
import type { ApprovalAnswer, RunDeps } from "./run-deps.ts";
import type { ToolCallRequest, ToolHost } from "./tool-host.ts";

export const MAX_QUEUE = 10;

export interface TextProtocol {
  /** Extract tool calls from the model's text; `text` is the prose left for display. */
  parse(text: string): { calls: Array<{ name: string; args: Record<string, unknown> | undefined; argsError?: string }>; text: string; errors?: string[] };
  /** Build the feedback user message for a batch of results. */
  formatResults(results: Array<{ name: string; content: string; isError: boolean }>): string;
}

/** Hook run on the outgoing history before each model call (pairing, budget, microcompact, compaction). */
export type HistoryPipeline = (history: Message[], ctx: { signal: AbortSignal; emit(e: AgentEvent): void }) => Promise<{ persistent: Message[]; outgoing: Message[] }>;

export interface SessionOptions {
  sessionId: string;
  providerId: string;
  model: string;
  provider: LlmProvider;
  cwd: string;
  /** System prompt parts (base prompt, workspace files, tool catalog for text protocol). Called per request. */
  systemPrompt: (opts: { nativeTools: boolean; tools: ToolSpec[] }) => SystemPart[];
  tools?: ToolHost;
  /** Native tool calling (provider + model support it); otherwise the text protocol is used. */
  nativeTools: boolean;
  textProtocol?: TextProtocol;
  /** Repairs a native call's raw JSON arguments (JSON-only fixes, never CLI-style ones). */
  sanitizeNativeArgs?: (raw: string) => { value: Record<string, unknown> | undefined; error?: string };
  pipeline?: HistoryPipeline;
  maxTurns?: number;
  earlyExitTurns?: number;
  contextWindow: number;
  maxOutputTokens?: number;
  permissionMode: PermissionMode;
  /** Headless: answer approvals without a UI (from the permission mode). */
  autoApprove?: (req: { tool: string; action: string; reason: string }) => ApprovalAnswer | undefined;
  onPermissionModeChange?: (mode: PermissionMode) => void;
  onUsage?: (usage: Usage, purpose: Purpose, model: string, provider?: string) => void;
  /** Session cost so far in USD (undefined when the model has no price), for turn.completed. */
  costSoFar?: () => number | undefined;
  onCheckpoint?: (history: Message[]) => void;
  initialHistory?: Message[];
  /** Rewrites user input before it enters the history (e.g. `@path` attachments); the transcript shows it as typed. */
  transformInput?: (text: string) => { text: string; notices?: string[] };
  /** Every change to the persistent history, for session files. */
  onHistoryChange?: (change: HistoryChange) => void;
  /** A batch of tool calls finished; used for tool-use summaries. Fired before the next model call. */
  onBatchCompleted?: (batch: CompletedBatch) => void;
  /** `/compact [instruction]`: returns the compacted history, or undefined (history left as it was). */
  compact?: (ctx: { history: Message[]; instruction?: string; signal: AbortSignal; emit(e: AgentEvent): void }) => Promise<Message[] | undefined>;
  /** After the provider rejected a request as too large: the shrunk history for attempt 1..3, or undefined. */
  recoverOverflow?: (ctx: { history: Message[]; attempt: number; emit(e: AgentEvent): void }) => Message[] | undefined;
  /** Tokens the next request will carry (reported usage + estimate); replaces the built-in chars/4 figure. */
  estimateContextTokens?: (history: readonly Message[]) => number;
  /** Rewind to a checkpoint: returns the history to adopt (or undefined to keep it) and the prompt to put back. */
  rewind?: (op: Extract<Op, { type: "rewind" }>, history: Message[]) => Promise<{ history?: Message[]; prompt: string } | string>;
  /** Switch provider/model; returns the new binding or an error message. */
  switchModel?: (provider: string, model: string) => Promise<ModelBinding | string>;
  now?: () => number;
  onListenerError?: (err: unknown) => void;
}

export type HistoryChange = { type: "append"; messages: Message[] } | { type: "replace"; messages: Message[]; reason: string };

export interface CompletedBatch {
  batchId: string;
  /** The start of the assistant's message that issued the calls (the user's intent, as the model put it). */
  intent: string;
  calls: Array<{ id: string; name: string; args: Record<string, unknown> | undefined; result: string; isError: boolean }>;
}

export interface ModelBinding {
  providerId: string;
  model: string;
  provider: LlmProvider;
  nativeTools: boolean;
  contextWindow: number;
}

export class Session implements SessionLike {
  private readonly bus: EventBus;
  private history: Message[];
  private readonly queue: string[] = [];
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

  constructor(private readonly opts: SessionOptions) {
    this.bus = new EventBus(opts.onListenerError);
    this.history = [...(opts.initialHistory ?? [])];
    this.permissionMode = opts.permissionMode;
    this.binding = { providerId: opts.providerId, model: opts.model, provider: opts.provider, nativeTools: opts.nativeTools, contextWindow: opts.contextWindow };
    this.now = opts.now ?? Date.now;
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
        if (op.index < this.queue.length) {
          this.queue.splice(op.index, 1);
          this.emit({ type: "queue.updated", items: [...this.queue] });
        }
        return;
      case "clear":
        if (this.running) {
          this.emit({ type: "notice", level: "warn", text: t("core.busyClear") });
          return;
        }
        this.replaceHistory([], "clear");
        return;
      case "set_model":
        void this.onSetModel(op.provider, op.model);
        return;
      case "compact":
        void this.onCompact(op.instruction);
        return;
      case "rewind":
        void this.onRewind(op);
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

  private async onSetModel(provider: string, model: string): Promise<void> {
    if (!this.opts.switchModel) {
      this.emit({ type: "notice", level: "warn", text: t("core.switchUnavailable") });
      return;
    }
    if (this.busy(t("core.what.switchModels"))) return;
    const r = await this.opts.switchModel(provider, model);
    if (typeof r === "string") {
      this.emit({ type: "notice", level: "error", text: r });
      return;
    }
    this.binding = r;
    this.emit({ type: "model.changed", provider: r.providerId, model: r.model, contextWindow: r.contextWindow });
  }

  private async onCompact(instruction: string | undefined): Promise<void> {
    if (!this.opts.compact) {
      this.emit({ type: "notice", level: "warn", text: t("core.compactUnavailable") });
      return;
    }
    if (this.busy(t("core.what.compact"))) return;
    const controller = new AbortController();
    this.sideTask = controller;
    try {
      // The level reports ("compaction" events) go out after the swap: history.replaced rebuilds the transcript
      // from the new history, so a report sent before it would vanish from the screen. Progress notices stay live.
      const reports: AgentEvent[] = [];
      const emit = (e: AgentEvent) => (e.type === "compaction" ? reports.push(e) : this.emit(e));
      try {
        const r = await this.opts.compact({ history: this.history, signal: controller.signal, emit, ...(instruction ? { instruction } : {}) });
        if (r && r !== this.history) this.replaceHistory(r, "compaction");
      } finally {
        for (const e of reports) this.emit(e);
      }
    } catch (err) {
      this.emit({ type: "notice", level: "error", text: t("core.compactFailed", { error: (err as Error)?.message ?? String(err) }) });
    } finally {
      this.sideTask = undefined;
    }
  }

  private async onRewind(op: Extract<Op, { type: "rewind" }>): Promise<void> {
    if (!this.opts.rewind) {
      this.emit({ type: "notice", level: "warn", text: t("core.rewindUnavailable") });
      return;
    }
    if (this.busy(t("core.what.rewind"))) return;
    try {
      const r = await this.opts.rewind(op, this.history);
      if (typeof r === "string") {
        this.emit({ type: "notice", level: "warn", text: r });
        return;
      }
      if (r.history) this.replaceHistory(r.history, "rewind");
      this.emit({ type: "rewound", checkpointId: op.checkpointId, mode: op.mode, prompt: r.prompt });
    } catch (err) {
      this.emit({ type: "notice", level: "error", text: t("core.rewindFailed", { error: (err as Error)?.message ?? String(err) }) });
    }
  }

  private onUserInput(text: string): void {
    if (!text.trim()) return;
    if (this.running || this.sideTask) {
      if (this.queue.length >= MAX_QUEUE) {
        this.emit({ type: "notice", level: "warn", text: t("core.queueFull", { max: MAX_QUEUE }) });
        return;
      }
      this.queue.push(text);
      this.emit({ type: "queue.updated", items: [...this.queue] });
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
      input = this.queue.length ? this.takeQueue() : undefined;
    }
  }

  private takeQueue(): string {
    const joined = this.queue.splice(0, this.queue.length).join("\n");
    this.emit({ type: "queue.updated", items: [] });
    return joined;
  }

  private async runOne(input: string): Promise<void> {
    const controller = new AbortController();
    this.running = controller;
    const turnId = this.newId("turn");
    this.currentTask = input;
    this.emit({ type: "turn.started", turnId, input });
    this.appendHistory({ role: "user", content: this.transformed(input), meta: { createdAt: this.now() } });
    let outcome: RunOutcome;
    try {
      outcome = await runAgent(this.runDeps(), controller.signal);
    } catch (err) {
      // runAgent must not throw; a bug here must still leave the session usable.
      this.emit({ type: "error", message: t("core.internalError", { error: (err as Error)?.message ?? String(err) }) });
      outcome = { stopReason: "error", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } };
    }
    this.running = undefined;
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

  private runDeps(): RunDeps {
    return {
      provider: this.binding.provider,
      tools: this.opts.tools,
      maxTurns: this.opts.maxTurns ?? 50,
      earlyExitTurns: this.opts.earlyExitTurns ?? 3,
      emit: (e) => this.emit(e),
      newId: (p) => this.newId(p),
      now: this.now,
      drainQueue: () => {
        if (!this.queue.length) return;
        // Only between model turns of a run that already has tool results pending a reply.
        // (Text-protocol results are a user message too: tool feedback counts as results pending a reply.)
        const last = this.history[this.history.length - 1];
        if (!last || (last.role === "user" && last.meta?.kind !== "tool_feedback")) return;
        const text = this.takeQueue();
        this.appendHistory({ role: "user", content: this.transformed(text), meta: { createdAt: this.now() } });
        this.emit({ type: "notice", level: "info", text: t("core.newInstruction") });
      },
      buildRequest: (signal) => this.buildRequest(signal),
      finishAssistant: (text, thinking, nativeCalls) => this.finishAssistant(text, thinking, nativeCalls),
      append: (m) => this.appendHistory(m),
      appendToolResults: (results, batchId, calls) => {
        this.appendToolResults(results, calls);
        this.batchCompleted(batchId, calls, results);
      },
      requestApproval: (req, signal) => this.requestApproval(req, signal),
      ...(this.opts.recoverOverflow
        ? {
            recoverOverflow: async (attempt: number) => {
              const r = this.opts.recoverOverflow?.({ history: this.history, attempt, emit: (e) => this.emit(e) });
              if (!r || r === this.history) return false;
              this.replaceHistory(r, "overflow_recovery");
              return true;
            },
          }
        : {}),
      recordUsage: (usage, purpose, model, provider) => {
        this.totals.inputTokens += usage.inputTokens;
        this.totals.outputTokens += usage.outputTokens;
        this.totals.cachedInputTokens += usage.cachedInputTokens;
        this.totals.reasoningTokens += usage.reasoningTokens;
        if (purpose === "main" && usage.inputTokens > 0) this.lastInputTokens = usage.inputTokens + usage.outputTokens;
        this.opts.onUsage?.(usage, purpose, model, provider);
      },
    };
  }

  private async buildRequest(signal: AbortSignal): Promise<LlmRequest> {
    this.opts.onCheckpoint?.(this.history);
    let outgoing = this.history;
    if (this.opts.pipeline) {
      const r = await this.opts.pipeline(this.history, { signal, emit: (e) => this.emit(e) });
      if (r.persistent !== this.history) this.replaceHistory(r.persistent, "pipeline", false);
      outgoing = r.outgoing;
    }
    const specs = this.opts.tools?.specs() ?? [];
    const native = this.binding.nativeTools && specs.length > 0;
    const anchor = this.anchor();
    const req: LlmRequest = {
      model: this.binding.model,
      system: this.opts.systemPrompt({ nativeTools: native, tools: specs }),
      messages: anchor ? [...outgoing, { role: "system", content: anchor }] : [...outgoing],
      purpose: "main",
      contextWindow: this.binding.contextWindow,
    };
    if (native) req.tools = specs;
    if (this.opts.maxOutputTokens) req.maxOutputTokens = this.opts.maxOutputTokens;
    return req;
  }

  /** A short reminder of the task, added to each request and never persisted. */
  private anchor(): string {
    if (!this.opts.tools) return "";
    const task = this.currentTask.replace(/\s+/g, " ").trim();
    const short = task.length > 300 ? `${safeHead(task, 300)}…` : task;
    return `Reminder: the user's current request is: "${short}". Use the tools when they help; call independent tools together in one response; when the task is done, answer with a short final summary and no tool calls.`;
  }

  private finishAssistant(text: string, thinking: string, nativeCalls: ToolCall[]): { message: AssistantMessage; calls: ToolCallRequest[]; displayText: string; feedback?: string } {
    const message: AssistantMessage = { role: "assistant", content: text };
    if (thinking) message.thinking = thinking;
    const calls: ToolCallRequest[] = [];
    let displayText = text;
    if (nativeCalls.length) {
      message.toolCalls = nativeCalls.map((c, i) => ({ ...c, id: c.id || `tc_${this.seq}_${i}` }));
      for (const c of message.toolCalls) calls.push(nativeRequest(c, this.opts.sanitizeNativeArgs));
    } else if (this.opts.tools && this.opts.textProtocol) {
      const parsed = this.opts.textProtocol.parse(text);
      displayText = parsed.text;
      parsed.calls.forEach((c, i) => {
        const req: ToolCallRequest = { id: `txt_${this.newId("c")}_${i}`, name: c.name, args: c.args };
        if (c.argsError) req.argsError = c.argsError;
        calls.push(req);
      });
      // A tool call the parser could not recover goes back to the model with what to fix.
      if (!calls.length && parsed.errors?.length) return { message, calls, displayText, feedback: parsed.errors.join("\n") };
    }
    return { message, calls, displayText };
  }

  private appendToolResults(results: Message[], calls: ToolCallRequest[]): void {
    const last = [...this.history].reverse().find((m) => m.role === "assistant");
    const native = last?.role === "assistant" && (last.toolCalls?.length ?? 0) > 0;
    if (native) {
      this.appendHistory(...results);
      return;
    }
    const formatted = this.opts.textProtocol
      ? this.opts.textProtocol.formatResults(results.map((r) => ({ name: r.role === "tool" ? r.name : "tool", content: r.content, isError: r.role === "tool" && r.isError === true })))
      : results.map((r) => r.content).join("\n\n");
    void calls;
    this.appendHistory({ role: "user", content: formatted, meta: { kind: "tool_feedback" } });
  }

  private batchCompleted(batchId: string, calls: ToolCallRequest[], results: Message[]): void {
    if (!this.opts.onBatchCompleted) return;
    const lastAssistant = [...this.history].reverse().find((m) => m.role === "assistant");
    // A tool-only reply has no text: the user's last prompt then states the intent.
    const lastPrompt = [...this.history].reverse().find((m) => m.role === "user" && m.meta?.kind !== "tool_feedback");
    const intent = lastAssistant?.content.trim() || lastPrompt?.content || "";
    this.opts.onBatchCompleted({
      batchId,
      intent,
      calls: calls.map((c, i) => {
        const r = results[i];
        return { id: c.id, name: c.name, args: c.args, result: r?.content ?? "", isError: r?.role === "tool" ? r.isError === true : false };
      }),
    });
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

function nativeRequest(c: ToolCall, sanitize?: SessionOptions["sanitizeNativeArgs"]): ToolCallRequest {
  const raw = c.arguments.trim() || "{}";
  if (sanitize) {
    const r = sanitize(raw);
    if (r.value) return { id: c.id, name: c.name, args: r.value };
    return { id: c.id, name: c.name, args: undefined, argsError: r.error ?? "arguments are not a valid JSON object" };
  }
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return { id: c.id, name: c.name, args: v as Record<string, unknown> };
    return { id: c.id, name: c.name, args: undefined, argsError: "arguments must be a JSON object" };
  } catch (err) {
    return { id: c.id, name: c.name, args: undefined, argsError: `arguments are not valid JSON: ${(err as Error).message}` };
  }
}
