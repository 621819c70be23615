/**
 * The Session's options, grouped by who reads them: the model binding, what every turn uses (`turn`), and the
 * hooks of the ops outside a turn and the observers (`hooks`). Built once (src/cli/wire-session.ts) and never
 * mutated after the Session is constructed.
 */
import type { AgentEvent, Op, PermissionMode } from "../../protocol/events.ts";
import type { LlmRequest, Purpose, SystemPart, ToolSpec, Usage } from "../../protocol/llm.ts";
import type { ImagePart, Message } from "../../protocol/message.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import type { ApprovalAnswer } from "../run-deps.ts";
import type { ToolHost } from "../tool-host.ts";
import type { ShellRunContext, ShellRunResult } from "../shell-passthrough/run-shell.ts";

export interface SessionOptions {
  sessionId: string;
  cwd: string;
  /** The model the session starts with. A switch adopts a new binding; a binding in use is never changed. */
  binding: ModelBinding;
  permissionMode: PermissionMode;
  initialHistory?: Message[];
  turn: TurnOptions;
  hooks?: SessionHooks;
  now?: () => number;
  onListenerError?: (err: unknown) => void;
}

/**
 * Provider, model, window and tool mode: one immutable value, read once per request (a request never mixes two
 * bindings). Produced by SessionHooks.switchModel; the Session freezes it.
 */
export interface ModelBinding {
  readonly providerId: string;
  readonly model: string;
  readonly provider: LlmProvider;
  /** Native tool calling (provider + model support it); otherwise the text protocol is used. */
  readonly nativeTools: boolean;
  readonly contextWindow: number;
  /** The model accepts images (vision). false: images are not sent and the user is told; undefined counts as yes. */
  readonly images?: boolean;
}

/** A prompt as it enters the history: the text for the model, warnings, informational lines and images. */
export interface TransformedInput {
  text: string;
  notices?: string[];
  infos?: string[];
  images?: ImagePart[];
}

/** What every run of the agent loop uses (src/agent/session/turn.ts). */
export interface TurnOptions {
  /** System prompt parts (base prompt, workspace files, tool catalog for text protocol). Called per request. */
  systemPrompt: (opts: { nativeTools: boolean; tools: ToolSpec[] }) => SystemPart[];
  tools?: ToolHost;
  textProtocol?: TextProtocol;
  /** Repairs a native call's raw JSON arguments (JSON-only fixes, never CLI-style ones). */
  sanitizeNativeArgs?: (raw: string) => { value: Record<string, unknown> | undefined; error?: string };
  pipeline?: HistoryPipeline;
  maxTurns?: number;
  earlyExitTurns?: number;
  maxOutputTokens?: number;
  /** Rewrites user input before it enters the history (e.g. `@path` attachments); the transcript shows it as typed. */
  transformInput?: (text: string) => TransformedInput | Promise<TransformedInput>;
  /** Added to each request's task reminder, never persisted (the todo list: it must survive compaction verbatim). */
  anchorNote?: () => string | undefined;
  /** Before each model call: a reason to refuse it (the budget limit), or undefined to send it. */
  checkRequest?: (request: LlmRequest) => string | undefined;
  /**
   * Asynchronous attachments resolved before `transformInput` when a run starts (e.g. `@server:uri` MCP resources);
   * a failure keeps the text as typed. Not applied to type-ahead input delivered mid-run.
   */
  resolveInput?: (text: string, signal: AbortSignal) => Promise<{ text: string; notices?: string[] }>;
  /** Before every model call of the main session. */
  onCheckpoint?: (history: Message[]) => void;
  /** A batch of tool calls finished; used for tool-use summaries. Fired before the next model call. */
  onBatchCompleted?: (batch: CompletedBatch) => void;
  /**
   * Before a prompt enters the history (UserPromptSubmit hooks, src/ext/hooks): `block` drops it (the turn ends with
   * stop reason `blocked`); `context` is added to the prompt for the model. Must not throw.
   */
  beforeInput?: (text: string, signal: AbortSignal) => Promise<{ block?: string; context?: string }>;
  /**
   * The agent finished answering (Stop hooks): a reason makes it go on, with the reason as feedback;
   * `continued` is true when this answer already followed such feedback. Must not throw.
   */
  onStop?: (continued: boolean, signal: AbortSignal) => Promise<string | undefined>;
  /** After the provider rejected a request as too large: the shrunk history for attempt 1..3, or undefined. */
  recoverOverflow?: (ctx: { history: Message[]; attempt: number; emit(e: AgentEvent): void }) => Message[] | undefined;
}

/** The side tasks' hooks (each runs while the session holds its slot) and the observers. */
export interface SessionHooks {
  /** `set_model`: the new binding, or an error message. */
  switchModel?: (provider: string, model: string) => Promise<ModelBinding | string>;
  /** `/compact [instruction]`: returns the compacted history, or undefined (history left as it was). */
  compact?: (ctx: { history: Message[]; instruction?: string; signal: AbortSignal; emit(e: AgentEvent): void }) => Promise<Message[] | undefined>;
  /** Rewind to a checkpoint: returns the history to adopt (or undefined to keep it) and the prompt to put back. */
  rewind?: (op: Extract<Op, { type: "rewind" }>, history: Message[]) => Promise<{ history?: Message[]; prompt: string } | string>;
  /** Every change to the persistent history, for session files. */
  onHistoryChange?: (change: HistoryChange) => void;
  /** Headless: answer approvals without a UI (from the permission mode). */
  autoApprove?: (req: { tool: string; action: string; reason: string }) => ApprovalAnswer | undefined;
  onPermissionModeChange?: (mode: PermissionMode) => void;
  onUsage?: (usage: Usage, purpose: Purpose, model: string, provider?: string) => void;
  /** Session cost so far in USD (undefined when the model has no price), for turn.completed. */
  costSoFar?: () => number | undefined;
  /** `!cmd` (agent/shell-passthrough/run-shell.ts): runs the command; the context message to append, if any. */
  runShell?: (ctx: ShellRunContext) => Promise<ShellRunResult>;
  /** Tokens the next request will carry (reported usage + estimate); replaces the built-in chars/4 figure. */
  estimateContextTokens?: (history: readonly Message[]) => number;
}

export interface TextProtocol {
  /** Extract tool calls from the model's text; `text` is the prose left for display. */
  parse(text: string): { calls: Array<{ name: string; args: Record<string, unknown> | undefined; argsError?: string; recoveredFrom?: string }>; text: string; errors?: string[] };
  /** Build the feedback user message for a batch of results. */
  formatResults(results: Array<{ name: string; content: string; isError: boolean }>): string;
}

/** Hook run on the outgoing history before each model call (pairing, budget, microcompact, compaction). */
export type HistoryPipeline = (history: Message[], ctx: { signal: AbortSignal; emit(e: AgentEvent): void }) => Promise<{ persistent: Message[]; outgoing: Message[] }>;

export type HistoryChange = { type: "append"; messages: Message[] } | { type: "replace"; messages: Message[]; reason: string };

export interface CompletedBatch {
  batchId: string;
  /** The start of the assistant's message that issued the calls (the user's intent, as the model put it). */
  intent: string;
  calls: Array<{ id: string; name: string; args: Record<string, unknown> | undefined; result: string; isError: boolean }>;
}
