/**
 * One child run: a fresh conversation (its own system prompt, the task as the first user message), runAgent with
 * the child's tools, limits and provider, stopped by its turn limit, its timeout, the parent's turn being
 * cancelled, or its own cancel. Never throws; whatever the child said last comes back, with how it ended.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { SystemPart, ToolSpec, Usage } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import { runAgent } from "../loop.ts";
import type { ApprovalAnswer, RunDeps } from "../run-deps.ts";
import type { ApprovalRequest, ToolHost } from "../tool-host.ts";
import { finishAssistant } from "../session/assistant-reply.ts";
import type { ModelBinding, TextProtocol, TurnOptions } from "../session/session-options.ts";
import type { ChildOutcome, ChildStatus } from "./final-message.ts";

export interface ChildRunSpec {
  agentId: string;
  agent: string;
  description: string;
  task: string;
  binding: ModelBinding;
  tools: ToolHost | undefined;
  systemPrompt: (o: { nativeTools: boolean; tools: ToolSpec[] }) => SystemPart[];
  textProtocol?: TextProtocol;
  sanitizeNativeArgs?: TurnOptions["sanitizeNativeArgs"];
  maxTurns: number;
  timeoutMs: number;
  /** The parent's turn: its abort cancels the child. */
  signal: AbortSignal;
  /** This child alone. */
  cancel: AbortSignal;
  /** SubagentStart hook contexts, added to the first message. */
  contexts?: string[];
  requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  recordUsage(usage: Usage, model: string, provider?: string): void;
  /** Every event of the child's own loop (ids are the child's). */
  onEvent(e: AgentEvent): void;
  /** SubagentStop hook: a reason to keep going, or undefined. */
  onStop?: (continued: boolean) => Promise<string | undefined>;
  now?: () => number;
  /** The array the child's conversation is kept in (a UI reads it while the child runs); fresh when absent. */
  history?: Message[];
}

export interface ChildRunResult extends ChildOutcome {
  history: Message[];
  usage: Usage;
}

export async function runChild(s: ChildRunSpec): Promise<ChildRunResult> {
  const timeout = AbortSignal.timeout(s.timeoutMs);
  const signal = AbortSignal.any([s.signal, s.cancel, timeout]);
  const history: Message[] = s.history ?? [];
  const first = s.contexts?.length ? `${s.task}\n\n<hook-context>\n${s.contexts.join("\n")}\n</hook-context>` : s.task;
  history.push({ role: "user", content: first });
  let seq = 0;
  let turns = 0;
  let lastText = "";
  let lastError: string | undefined;
  const newId = (p: string) => `${s.agentId}_${p}_${(++seq).toString(36)}`;
  const opts = { tools: s.tools, ...(s.textProtocol ? { textProtocol: s.textProtocol } : {}), ...(s.sanitizeNativeArgs ? { sanitizeNativeArgs: s.sanitizeNativeArgs } : {}) };
  const deps: RunDeps = {
    tools: s.tools,
    limits: { maxTurns: s.maxTurns, earlyExitTurns: 3 },
    emit: (e) => {
      if (e.type === "message.completed") {
        const shown = e.displayText ?? e.message.content;
        if (shown.trim()) lastText = shown;
      }
      if (e.type === "error") lastError = e.message;
      s.onEvent(e);
    },
    newId,
    now: () => (s.now ?? Date.now)(),
    drainQueue: () => undefined,
    buildRequest: async () => {
      turns++;
      const specs = s.tools?.specs() ?? [];
      const native = s.binding.nativeTools && specs.length > 0;
      return {
        provider: s.binding.provider,
        request: {
          model: s.binding.model,
          system: s.systemPrompt({ nativeTools: native, tools: specs }),
          messages: [...history],
          purpose: "main",
          contextWindow: s.binding.contextWindow,
          ...(native ? { tools: specs } : {}),
        },
      };
    },
    finishAssistant: (text, thinking, nativeCalls) => finishAssistant({ opts, get seq() { return seq; }, newId }, text, thinking, nativeCalls),
    append: (m) => void history.push(m),
    appendToolResults: (results) => {
      const last = history.findLast((m) => m.role === "assistant");
      if (last?.role === "assistant" && (last.toolCalls?.length ?? 0) > 0) {
        history.push(...results);
        return;
      }
      const formatted = s.textProtocol
        ? s.textProtocol.formatResults(results.map((r) => ({ name: r.role === "tool" ? r.name : "tool", content: r.content, isError: r.role === "tool" && r.isError === true })))
        : results.map((r) => r.content).join("\n\n");
      history.push({ role: "user", content: formatted, meta: { kind: "tool_feedback" } });
    },
    requestApproval: (req, sig) => s.requestApproval(req, sig),
    recordUsage: (u, _purpose, model, provider) => s.recordUsage(u, model, provider),
  };
  let outcome = await runAgent(deps, signal).catch((err: unknown) => ({ stopReason: "error" as const, usage: zero(), error: { kind: "unknown" as const, message: (err as Error)?.message ?? String(err), retryable: false, fallbackable: false } }));
  const usage = { ...outcome.usage };
  for (let n = 0; s.onStop && n < 3 && outcome.stopReason !== "interrupted" && outcome.stopReason !== "error" && !signal.aborted; n++) {
    const reason = await s.onStop(n > 0);
    if (reason === undefined) break;
    history.push({ role: "user", content: `[SubagentStop hook feedback] ${reason}` });
    outcome = await runAgent(deps, signal);
    addInto(usage, outcome.usage);
  }
  const status: ChildStatus = timeout.aborted
    ? "timeout"
    : s.signal.aborted || s.cancel.aborted
      ? "cancelled"
      : outcome.stopReason === "max_turns"
        ? "max_turns"
        : outcome.stopReason === "error" || outcome.stopReason === "budget"
          ? "failed"
          : "completed";
  const error = status === "failed" ? (outcome.error?.message ?? lastError ?? outcome.stopReason) : undefined;
  return { agentId: s.agentId, agent: s.agent, description: s.description, status, text: lastText, turns, ...(error ? { error } : {}), history, usage };
}

function zero(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
}

function addInto(a: Usage, b: Usage): void {
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.cachedInputTokens += b.cachedInputTokens;
  a.reasoningTokens += b.reasoningTokens;
}
