/**
 * One agent run: the ReAct loop for a user input. stream → tool calls → results → next turn, until the
 * model answers without calls, the turn limit, stagnation, an error, or an interrupt.
 * Contract: never throws; every tool call in the history gets a result (interrupted / not executed
 * included), so the history stays valid for every provider.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { LlmError, LlmEvent, LlmRequest, StopReason, Usage } from "../protocol/llm.ts";
import type { LlmProvider } from "../llm/provider.ts";
import type { AssistantMessage, Message, ToolCall } from "../protocol/message.ts";
import { toolResultMessage } from "../protocol/message.ts";
import type { ToolCallRequest, ToolRunContext, ToolRunResult } from "./tool-host.ts";
import type { RunDeps } from "./run-deps.ts";
import { batchFingerprint } from "./stagnation.ts";
import { uniqueCallIds } from "./call-ids.ts";
import { t } from "../i18n/i18n.ts";
import { continuationRequest, MAX_TOKEN_ESCALATIONS } from "./compaction/continuation.ts";
import { giveUpMessage, isOverflowError, MAX_RECOVERY_ATTEMPTS } from "./compaction/recovery.ts";
import { withModelNote } from "./model-note.ts";

export interface RunOutcome {
  /** `blocked`: a UserPromptSubmit hook refused the prompt before the run began. `budget`: the spending limit refused the next request. */
  stopReason: StopReason | "max_turns" | "stagnation" | "interrupted" | "blocked" | "budget";
  usage: Usage;
  error?: LlmError;
}

export const INTERRUPTED_RESULT = "[interrupted by the user before this tool finished]";
export const NOT_EXECUTED_RESULT = "[not executed: the run was interrupted before this tool call started]";

export async function runAgent(deps: RunDeps, signal: AbortSignal): Promise<RunOutcome> {
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  const fingerprints: string[] = [];
  for (let turn = 1; ; turn++) {
    if (signal.aborted) return { stopReason: "interrupted", usage };
    if (turn > deps.limits.maxTurns) {
      deps.emit({ type: "notice", level: "warn", text: t("core.maxTurns", { max: deps.limits.maxTurns }) });
      return { stopReason: "max_turns", usage };
    }
    await deps.drainQueue(signal);
    let { request, provider } = await deps.buildRequest(signal);
    const refused = deps.checkRequest?.(request);
    if (refused) {
      deps.emit({ type: "error", message: refused });
      return { stopReason: "budget", usage };
    }
    const messageId = deps.newId("msg");
    let result = await streamOnce(deps, provider, request, messageId, signal, usage);
    // Overflow recovery: the provider rejected the request as too large before any output; shrink and resend.
    if (deps.recoverOverflow && isOverflowError(result.error) && !result.text && !result.nativeCalls.length) {
      for (let attempt = 1; attempt <= MAX_RECOVERY_ATTEMPTS && isOverflowError(result.error) && !signal.aborted; attempt++) {
        if (!(await deps.recoverOverflow(attempt, signal))) continue;
        ({ request, provider } = await deps.buildRequest(signal));
        result = await streamOnce(deps, provider, request, messageId, signal, usage);
      }
      if (result.error && isOverflowError(result.error)) result.error = { ...result.error, message: giveUpMessage(result.error, request.contextWindow ?? 0) };
    }
    // Continuation: a reply cut off at the output limit is resumed; both parts become one message (same id).
    for (let k = 0; k < MAX_TOKEN_ESCALATIONS && !result.error && result.stopReason === "length" && result.text && !result.nativeCalls.length && !signal.aborted; k++) {
      request = continuationRequest(request, result.text);
      deps.emit({ type: "notice", level: "info", text: t("core.continueOutput", { limit: String(request.maxOutputTokens) }) });
      result = await streamOnce(deps, provider, { ...request, purpose: "continuation" }, messageId, signal, usage, { text: result.text, thinking: result.thinking });
    }
    if (result.error && result.error.kind !== "aborted") {
      deps.emit({ type: "error", message: result.error.message, error: result.error });
      // Keep whatever arrived: a partial answer is still useful, and calls get closed below.
    }
    const nativeCalls = uniqueCallIds(result.nativeCalls, request.messages, () => deps.newId("call"));
    const { message, calls, displayText, feedback } = deps.finishAssistant(result.text, result.thinking, nativeCalls);
    if (message.content || message.toolCalls?.length || message.thinking) {
      deps.append(message);
      deps.emit({ type: "message.completed", messageId, message, ...(displayText !== message.content ? { displayText } : {}) });
    }
    if (result.error) {
      closeCalls(deps, calls, result.error.kind === "aborted" ? NOT_EXECUTED_RESULT : `[not executed: the model stream failed: ${result.error.message}]`, "not_executed");
      return { stopReason: result.error.kind === "aborted" ? "interrupted" : "error", usage, error: result.error };
    }
    if (calls.length === 0 && feedback && !result.error) {
      deps.append({ role: "user", content: feedback, meta: { kind: "tool_feedback" } });
      deps.emit({ type: "notice", level: "warn", text: t("core.unreadableToolCall") });
      continue;
    }
    if (calls.length === 0) {
      // Without this the user sees nothing at all: no answer, no tool, no error.
      if (!displayText.trim() && !message.toolCalls?.length) deps.emit({ type: "notice", level: "warn", text: t("core.emptyAnswer") });
      return { stopReason: result.stopReason, usage };
    }

    const fp = batchFingerprint(calls);
    fingerprints.push(fp);
    const batchId = deps.newId("batch");
    const outcome = await executeBatch(deps, calls, batchId, signal);
    if (outcome === "interrupted") return { stopReason: "interrupted", usage };
    const n = deps.limits.earlyExitTurns;
    if (n > 0 && fingerprints.length >= n && fingerprints.slice(-n).every((f) => f === fp)) {
      deps.append({
        role: "user",
        content:
          "[stagnation detected] The same tool call was emitted repeatedly without new information. Stopping the agent loop. Summarize what you found and what is blocking you.",
        meta: { kind: "notice" },
      });
      deps.emit({ type: "notice", level: "warn", text: t("core.stagnation", { count: n }) });
      return { stopReason: "stagnation", usage };
    }
  }
}

interface StreamResult {
  text: string;
  thinking: string;
  nativeCalls: ToolCall[];
  stopReason: StopReason;
  error?: LlmError;
}

async function streamOnce(
  deps: RunDeps,
  provider: LlmProvider,
  request: LlmRequest,
  messageId: string,
  signal: AbortSignal,
  usage: Usage,
  /** A continuation: the text so far, which the new deltas extend. */
  prefix?: { text: string; thinking: string },
): Promise<StreamResult> {
  let text = prefix?.text ?? "";
  let thinking = prefix?.thinking ?? "";
  const calls = new Map<number, ToolCall>();
  let stopReason: StopReason = "stop";
  let error: LlmError | undefined;
  const onEvent = (ev: LlmEvent): void => {
    switch (ev.type) {
      case "text_delta":
        text += ev.text;
        deps.emit({ type: "message.delta", messageId, text: ev.text });
        return;
      case "thinking_delta":
        thinking += ev.text;
        deps.emit({ type: "message.delta", messageId, thinking: ev.text });
        return;
      case "toolcall_start":
        calls.set(ev.index, { id: ev.id, name: ev.name, arguments: "" });
        return;
      case "toolcall_delta": {
        const c = calls.get(ev.index);
        if (c) c.arguments += ev.argumentsDelta;
        return;
      }
      case "toolcall_end":
        calls.set(ev.index, { id: ev.id, name: ev.name, arguments: ev.arguments });
        return;
      case "usage":
        usage.inputTokens += ev.usage.inputTokens;
        usage.outputTokens += ev.usage.outputTokens;
        usage.cachedInputTokens += ev.usage.cachedInputTokens;
        usage.reasoningTokens += ev.usage.reasoningTokens;
        deps.recordUsage(ev.usage, request.purpose, ev.model ?? request.model, ev.provider);
        return;
      case "retry":
        deps.emit({ type: "retry", attempt: ev.attempt, delayMs: ev.delayMs, error: ev.error });
        return;
      case "provider_switch":
        deps.emit({ type: "provider.switched", from: ev.from, to: ev.to, reason: ev.reason });
        return;
      case "done":
        stopReason = ev.stopReason;
        return;
      case "error":
        error = ev.error;
        return;
    }
  };
  try {
    for await (const ev of provider.stream(request, signal)) onEvent(ev);
  } catch (err) {
    // Providers must not throw; if one does anyway, treat it as a stream error rather than crash the loop.
    error = { kind: signal.aborted ? "aborted" : "unknown", message: (err as Error)?.message ?? String(err), retryable: false, fallbackable: false };
  }
  if (!error && signal.aborted) error = { kind: "aborted", message: "interrupted", retryable: false, fallbackable: false };
  const nativeCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  return error ? { text, thinking, nativeCalls, stopReason: "error", error } : { text, thinking, nativeCalls, stopReason };
}

async function executeBatch(deps: RunDeps, calls: ToolCallRequest[], batchId: string, signal: AbortSignal): Promise<"ok" | "interrupted"> {
  const results: Message[] = new Array(calls.length);
  let interrupted = false;
  // Calls run in order; a run of consecutive calls the host marks concurrent (subagents) runs at once.
  for (let i = 0; i < calls.length; ) {
    const concurrent = deps.tools?.runsConcurrently?.(calls[i]!.name) === true;
    let j = i + 1;
    if (concurrent) while (j < calls.length && deps.tools?.runsConcurrently?.(calls[j]!.name) === true) j++;
    const group = calls.slice(i, j).map((call, k) => ({ call, index: i + k }));
    await Promise.all(
      group.map(async ({ call, index }) => {
        const r = await runOneCall(deps, call, batchId, signal);
        if (r.interrupted) interrupted = true;
        results[index] = r.message;
      }),
    );
    i = j;
  }
  deps.appendToolResults(results, batchId, calls);
  return interrupted || signal.aborted ? "interrupted" : "ok";
}

async function runOneCall(deps: RunDeps, call: ToolCallRequest, batchId: string, signal: AbortSignal): Promise<{ message: Message; interrupted: boolean }> {
  if (signal.aborted) {
    deps.emit({ type: "tool.completed", callId: call.id, name: call.name, isError: true, errorCode: "not_executed", result: NOT_EXECUTED_RESULT, durationMs: 0, batchId });
    return { message: toolResultMessage(call.id, call.name, NOT_EXECUTED_RESULT, true, "not_executed"), interrupted: true };
  }
  const title = deps.tools ? deps.tools.title(call.name, call.args) : call.name;
  deps.emit({ type: "tool.started", callId: call.id, name: call.name, args: call.args ?? {}, title, batchId, ...(call.recoveredFrom ? { recoveredFrom: call.recoveredFrom } : {}) });
  const started = deps.now();
  const ctx: ToolRunContext = {
    signal,
    onUpdate: (chunk) => deps.emit({ type: "tool.updated", callId: call.id, output: chunk }),
    requestApproval: (req) => deps.requestApproval(req, signal),
  };
  let res: ToolRunResult = deps.tools
    ? await deps.tools.run(call, ctx).catch((err: unknown): ToolRunResult => ({ text: `tool crashed: ${(err as Error)?.message ?? String(err)}`, isError: true, errorCode: "UnknownError" }))
    : { text: `Unknown tool "${call.name}": no tools are available in this session.`, isError: true, errorCode: "unknown_tool" };
  if (signal.aborted && !res.isError) res = withModelNote(res, INTERRUPTED_RESULT, "after");
  if (signal.aborted && res.isError && res.errorCode === "Canceled") res = withModelNote(res, INTERRUPTED_RESULT, "before");
  const durationMs = deps.now() - started;
  deps.emit({
    type: "tool.completed",
    callId: call.id,
    name: call.name,
    isError: res.isError,
    ...(res.errorCode ? { errorCode: res.errorCode } : {}),
    result: res.text,
    ...(res.details ? { details: res.details } : {}),
    durationMs,
    batchId,
  });
  const resultMessage = toolResultMessage(call.id, call.name, res.text, res.isError, res.errorCode);
  return { message: res.images?.length ? { ...resultMessage, images: res.images } : resultMessage, interrupted: false };
}

function closeCalls(deps: RunDeps, calls: ToolCallRequest[], text: string, code: string): void {
  if (!calls.length) return;
  deps.appendToolResults(
    calls.map((c) => toolResultMessage(c.id, c.name, text, true, code)),
    deps.newId("batch"),
    calls,
  );
}

export type { AgentEvent, AssistantMessage };
