/**
 * The Session's state and helpers as its own modules see them (op handlers, run deps, assistant replies). Not
 * for collaborators outside src/agent: they plug in through SessionOptions and `publish`.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { Usage } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import type { ApprovalAnswer } from "./run-deps.ts";
import type { ModelBinding, SessionOptions } from "./session-options.ts";
import type { TypeAheadQueue } from "./type-ahead-queue.ts";

export interface SessionInternals {
  readonly opts: SessionOptions;
  /** The current history (read on every access: replaceHistory swaps the array). */
  readonly history: Message[];
  readonly binding: ModelBinding;
  readonly queue: TypeAheadQueue;
  /** Usage totals, updated in place. */
  readonly totals: Usage;
  /** The input of the running turn (for the per-request anchor). */
  readonly currentTask: string;
  /** The id counter's current value (newId advances it). */
  readonly seq: number;
  readonly now: () => number;
  emit(e: AgentEvent): void;
  newId(prefix: string): string;
  /** True (with a notice naming `what`) while a run or a side task is busy. */
  busy(what: string): boolean;
  transformed(text: string): string;
  appendHistory(...messages: Message[]): void;
  replaceHistory(messages: Message[], reason: string, announce?: boolean): void;
  requestApproval(req: { tool: string; action: string; diff?: string; reason: string }, signal: AbortSignal): Promise<ApprovalAnswer>;
  setBinding(binding: ModelBinding): void;
  setSideTask(controller: AbortController | undefined): void;
  setLastInputTokens(tokens: number): void;
}
