/** What one agent run needs from its session. The Session implements it; loop tests can fake it. */
import type { AgentEvent } from "../protocol/events.ts";
import type { LlmRequest, Purpose, Usage } from "../protocol/llm.ts";
import type { AssistantMessage, Message, ToolCall } from "../protocol/message.ts";
import type { LlmProvider } from "../llm/provider.ts";
import type { ApprovalRequest, ToolCallRequest, ToolHost } from "./tool-host.ts";

export type ApprovalAnswer = "once" | "always" | "deny" | "deny_always";

/** One model call: the request and the provider to send it to, both from the one binding read for it. */
export interface PreparedRequest {
  request: LlmRequest;
  provider: LlmProvider;
}

export interface RunDeps {
  tools: ToolHost | undefined;
  /** `earlyExitTurns`: stop when the same batch repeats this many turns in a row (0 disables). */
  limits: { maxTurns: number; earlyExitTurns: number };
  emit(event: AgentEvent): void;
  newId(prefix: string): string;
  now(): number;
  /** Deliver type-ahead input queued while the run was busy, as one user message (after UserPromptSubmit hooks). */
  drainQueue(signal: AbortSignal): void | Promise<void>;
  /**
   * Checkpoint, run the history pipeline and compose the next model call. The model binding is read once here:
   * a continuation or an overflow retry of the same call reuses the provider it returned.
   */
  buildRequest(signal: AbortSignal): Promise<PreparedRequest>;
  /** A reason to refuse the request about to be sent (the budget limit); the run then stops with `budget`. */
  checkRequest?(request: LlmRequest): string | undefined;
  /** Turn the streamed text/native calls into the assistant message and the calls to run. */
  finishAssistant(text: string, thinking: string, nativeCalls: ToolCall[]): { message: AssistantMessage; calls: ToolCallRequest[]; displayText: string; feedback?: string };
  append(message: Message): void;
  /** Native: one tool message per call. Text protocol: one feedback user message. */
  appendToolResults(results: Message[], batchId: string, calls: ToolCallRequest[]): void;
  requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** `provider`: set when the call was served by another provider than the session's (fallback chain). */
  recordUsage(usage: Usage, purpose: Purpose, model: string, provider?: string): void;
  /** After a context_too_long / payload_too_large rejection: shrink the history (attempt 1..3); true when it changed. */
  recoverOverflow?(attempt: number, signal: AbortSignal): Promise<boolean>;
}
