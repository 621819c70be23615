/** The RunDeps one agent run gets from its Session: request building, history appends, queue delivery, usage. */
import type { LlmRequest } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import { safeHead } from "../util/text.ts";
import { t } from "../i18n/i18n.ts";
import { finishAssistant } from "./assistant-reply.ts";
import type { RunDeps } from "./run-deps.ts";
import type { SessionInternals } from "./session-internals.ts";
import type { ToolCallRequest } from "./tool-host.ts";

/** Built once per run: `provider` is the binding at the run's start; everything else is read when called. */
export function buildRunDeps(s: SessionInternals): RunDeps {
  return {
    provider: s.binding.provider,
    tools: s.opts.tools,
    maxTurns: s.opts.maxTurns ?? 50,
    earlyExitTurns: s.opts.earlyExitTurns ?? 3,
    emit: (e) => s.emit(e),
    newId: (p) => s.newId(p),
    now: s.now,
    drainQueue: () => {
      if (!s.queue.length) return;
      // Only between model turns of a run that already has tool results pending a reply.
      // (Text-protocol results are a user message too: tool feedback counts as results pending a reply.)
      const last = s.history[s.history.length - 1];
      if (!last || (last.role === "user" && last.meta?.kind !== "tool_feedback")) return;
      const text = s.queue.take();
      s.appendHistory({ role: "user", content: s.transformed(text), meta: { createdAt: s.now() } });
      s.emit({ type: "notice", level: "info", text: t("core.newInstruction") });
    },
    buildRequest: (signal) => buildRequest(s, signal),
    finishAssistant: (text, thinking, nativeCalls) => finishAssistant(s, text, thinking, nativeCalls),
    append: (m) => s.appendHistory(m),
    appendToolResults: (results, batchId, calls) => {
      appendToolResults(s, results, calls);
      batchCompleted(s, batchId, calls, results);
    },
    requestApproval: (req, signal) => s.requestApproval(req, signal),
    ...(s.opts.recoverOverflow
      ? {
          recoverOverflow: async (attempt: number) => {
            const r = s.opts.recoverOverflow?.({ history: s.history, attempt, emit: (e) => s.emit(e) });
            if (!r || r === s.history) return false;
            s.replaceHistory(r, "overflow_recovery");
            return true;
          },
        }
      : {}),
    recordUsage: (usage, purpose, model, provider) => {
      s.totals.inputTokens += usage.inputTokens;
      s.totals.outputTokens += usage.outputTokens;
      s.totals.cachedInputTokens += usage.cachedInputTokens;
      s.totals.reasoningTokens += usage.reasoningTokens;
      if (purpose === "main" && usage.inputTokens > 0) s.setLastInputTokens(usage.inputTokens + usage.outputTokens);
      s.opts.onUsage?.(usage, purpose, model, provider);
    },
  };
}

async function buildRequest(s: SessionInternals, signal: AbortSignal): Promise<LlmRequest> {
  s.opts.onCheckpoint?.(s.history);
  let outgoing = s.history;
  if (s.opts.pipeline) {
    const r = await s.opts.pipeline(s.history, { signal, emit: (e) => s.emit(e) });
    if (r.persistent !== s.history) s.replaceHistory(r.persistent, "pipeline", false);
    outgoing = r.outgoing;
  }
  const specs = s.opts.tools?.specs() ?? [];
  const native = s.binding.nativeTools && specs.length > 0;
  const anchor = anchorText(s);
  const req: LlmRequest = {
    model: s.binding.model,
    system: s.opts.systemPrompt({ nativeTools: native, tools: specs }),
    messages: anchor ? [...outgoing, { role: "system", content: anchor }] : [...outgoing],
    purpose: "main",
    contextWindow: s.binding.contextWindow,
  };
  if (native) req.tools = specs;
  if (s.opts.maxOutputTokens) req.maxOutputTokens = s.opts.maxOutputTokens;
  return req;
}

/** A short reminder of the task, added to each request and never persisted. */
function anchorText(s: SessionInternals): string {
  if (!s.opts.tools) return "";
  const task = s.currentTask.replace(/\s+/g, " ").trim();
  const short = task.length > 300 ? `${safeHead(task, 300)}…` : task;
  return `Reminder: the user's current request is: "${short}". Use the tools when they help; call independent tools together in one response; when the task is done, answer with a short final summary and no tool calls.`;
}

function appendToolResults(s: SessionInternals, results: Message[], calls: ToolCallRequest[]): void {
  const last = s.history.findLast((m) => m.role === "assistant");
  const native = last?.role === "assistant" && (last.toolCalls?.length ?? 0) > 0;
  if (native) {
    s.appendHistory(...results);
    return;
  }
  const formatted = s.opts.textProtocol
    ? s.opts.textProtocol.formatResults(results.map((r) => ({ name: r.role === "tool" ? r.name : "tool", content: r.content, isError: r.role === "tool" && r.isError === true })))
    : results.map((r) => r.content).join("\n\n");
  void calls;
  s.appendHistory({ role: "user", content: formatted, meta: { kind: "tool_feedback" } });
}

function batchCompleted(s: SessionInternals, batchId: string, calls: ToolCallRequest[], results: Message[]): void {
  if (!s.opts.onBatchCompleted) return;
  const lastAssistant = s.history.findLast((m) => m.role === "assistant");
  // A tool-only reply has no text: the user's last prompt then states the intent.
  const lastPrompt = s.history.findLast((m) => m.role === "user" && m.meta?.kind !== "tool_feedback");
  const intent = lastAssistant?.content.trim() || lastPrompt?.content || "";
  s.opts.onBatchCompleted({
    batchId,
    intent,
    calls: calls.map((c, i) => {
      const r = results[i];
      return { id: c.id, name: c.name, args: c.args, result: r?.content ?? "", isError: r?.role === "tool" ? r.isError === true : false };
    }),
  });
}
