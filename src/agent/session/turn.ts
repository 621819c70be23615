/**
 * One turn of a session: the user's input enters the history, runAgent (src/agent/loop.ts) runs with the RunDeps
 * built here, and a turn that failed before the model answered is taken back out. The Session (session.ts) holds
 * its slot around this and announces turn.started / turn.completed; everything a turn does in between is here.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { LlmRequest, Purpose, Usage } from "../../protocol/llm.ts";
import type { ImagePart, Message } from "../../protocol/message.ts";
import { safeHead } from "../../util/text.ts";
import { t } from "../../i18n/i18n.ts";
import { runAgent, type RunOutcome } from "../loop.ts";
import type { ApprovalAnswer, PreparedRequest, RunDeps } from "../run-deps.ts";
import type { ApprovalRequest, ToolCallRequest } from "../tool-host.ts";
import { finishAssistant } from "./assistant-reply.ts";
import type { SessionHistory } from "./session-history.ts";
import type { ModelBinding, TurnOptions } from "./session-options.ts";

/** What a turn sees of its Session. */
export interface TurnHost {
  readonly opts: TurnOptions;
  readonly history: SessionHistory;
  /** The binding now: read once per request, never cached across requests. */
  readonly binding: ModelBinding;
  /** The id counter's current value (newId advances it). */
  readonly seq: number;
  emit(e: AgentEvent): void;
  newId(prefix: string): string;
  now(): number;
  /** Type-ahead input to deliver between two model calls of this run (the queue is left empty), if any. */
  takeQueued(): string | undefined;
  requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  recordUsage(usage: Usage, purpose: Purpose, model: string, provider?: string): void;
}

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };

/** How many times Stop hooks may send the agent back to work within one turn. */
const MAX_STOP_CONTINUATIONS = 5;

/** Never throws: a bug in the loop becomes an `error` event and the stop reason `error`. */
export async function runTurn(h: TurnHost, input: string, signal: AbortSignal): Promise<RunOutcome> {
  const gate = h.opts.beforeInput ? await h.opts.beforeInput(input, signal) : {};
  if (gate.block !== undefined) return { stopReason: "blocked", usage: { ...NO_USAGE } };
  const typed = await transformed(h, await resolved(h, input, signal));
  const content = gate.context ? `${typed.content}\n\n<hook-context>\n${gate.context}\n</hook-context>` : typed.content;
  const userMessage: Message = { role: "user", content, ...(typed.images ? { images: typed.images } : {}), meta: { createdAt: h.now() } };
  h.history.append(userMessage);
  let outcome: RunOutcome;
  try {
    outcome = await runAgent(turnDeps(h, input), signal);
    for (let n = 0; h.opts.onStop && n < MAX_STOP_CONTINUATIONS && outcome.stopReason !== "interrupted" && outcome.stopReason !== "error" && !signal.aborted; n++) {
      const reason = await h.opts.onStop(n > 0, signal);
      if (reason === undefined) break;
      h.history.append({ role: "user", content: `[Stop hook feedback] ${reason}`, meta: { createdAt: h.now() } });
      const next = await runAgent(turnDeps(h, input), signal);
      outcome = { ...next, usage: addUsage(outcome.usage, next.usage) };
    }
  } catch (err) {
    h.emit({ type: "error", message: t("core.internalError", { error: (err as Error)?.message ?? String(err) }) });
    outcome = { stopReason: "error", usage: { ...NO_USAGE } };
  }
  // A turn that failed before the model answered leaves no trace in the history: the UI gives the text back
  // for a retry, and sending it again must not put the same request in twice.
  const history = h.history.messages;
  const last = history[history.length - 1];
  // The budget limit refusing the first request is the same: nothing was sent.
  if ((outcome.stopReason === "error" || outcome.stopReason === "budget") && last && (last === userMessage || (last.role === "user" && last.content === userMessage.content && last.meta?.kind === undefined))) {
    h.history.replace(history.slice(0, -1), "failed-turn", false);
  }
  return outcome;
}

function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens, reasoningTokens: a.reasoningTokens + b.reasoningTokens };
}

/** Built once per run; every member reads the session when it is called. */
export function turnDeps(h: TurnHost, task: string): RunDeps {
  return {
    tools: h.opts.tools,
    limits: { maxTurns: h.opts.maxTurns ?? 50, earlyExitTurns: h.opts.earlyExitTurns ?? 3 },
    emit: (e) => h.emit(e),
    newId: (p) => h.newId(p),
    now: () => h.now(),
    drainQueue: (signal) => drainQueue(h, signal),
    buildRequest: (signal) => buildRequest(h, task, signal),
    ...(h.opts.checkRequest ? { checkRequest: h.opts.checkRequest } : {}),
    finishAssistant: (text, thinking, nativeCalls) => finishAssistant(h, text, thinking, nativeCalls),
    append: (m) => h.history.append(m),
    appendToolResults: (results, batchId, calls) => {
      appendToolResults(h, results);
      batchCompleted(h, batchId, calls, results);
    },
    requestApproval: (req, signal) => h.requestApproval(req, signal),
    recordUsage: (usage, purpose, model, provider) => h.recordUsage(usage, purpose, model, provider),
    ...(h.opts.recoverOverflow ? { recoverOverflow: async (attempt: number) => recoverOverflow(h, attempt) } : {}),
  };
}

/** Only between model calls of a run that has tool results pending a reply (text-protocol feedback counts). */
async function drainQueue(h: TurnHost, signal: AbortSignal): Promise<void> {
  const last = h.history.messages.at(-1);
  if (!last || (last.role === "user" && last.meta?.kind !== "tool_feedback")) return;
  const text = h.takeQueued();
  if (text === undefined) return;
  // Type-ahead is a prompt too: UserPromptSubmit hooks see it (a blocked one is dropped; they said why).
  const gate = h.opts.beforeInput ? await h.opts.beforeInput(text, signal) : {};
  if (gate.block !== undefined) return;
  const typed = await transformed(h, text);
  const content = gate.context ? `${typed.content}\n\n<hook-context>\n${gate.context}\n</hook-context>` : typed.content;
  h.history.append({ role: "user", content, ...(typed.images ? { images: typed.images } : {}), meta: { createdAt: h.now() } });
  h.emit({ type: "notice", level: "info", text: t("core.newInstruction") });
}

async function buildRequest(h: TurnHost, task: string, signal: AbortSignal): Promise<PreparedRequest> {
  h.opts.onCheckpoint?.(h.history.messages);
  let outgoing = h.history.messages;
  if (h.opts.pipeline) {
    const before = h.history.messages;
    const r = await h.opts.pipeline(before, { signal, emit: (e) => h.emit(e) });
    if (r.persistent !== before) h.history.replace(r.persistent, "pipeline", false);
    outgoing = r.outgoing;
  }
  // Read once, after the last await: model, window, tool mode and provider of this request all come from it.
  const binding = h.binding;
  const specs = h.opts.tools?.specs() ?? [];
  const native = binding.nativeTools && specs.length > 0;
  const anchor = anchorText(h, task);
  const request: LlmRequest = {
    model: binding.model,
    system: h.opts.systemPrompt({ nativeTools: native, tools: specs }),
    messages: binding.images === false ? withoutImages(outgoing) : [...outgoing],
    ...(anchor ? { anchor } : {}),
    purpose: "main",
    contextWindow: binding.contextWindow,
  };
  if (native) request.tools = specs;
  if (h.opts.maxOutputTokens) request.maxOutputTokens = h.opts.maxOutputTokens;
  return { request, provider: binding.provider };
}

/** Images kept in the history from a vision model are not sent to one without vision (its server would refuse them). */
function withoutImages(messages: readonly Message[]): Message[] {
  return messages.map((m) => {
    if (m.role === "tool" && m.images) {
      const { images: _dropped, ...text } = m; // a tool's text describes its images (ToolOutput.images)
      return text;
    }
    if (m.role !== "user" || !m.images?.length) return m;
    const { images, ...rest } = m;
    return { ...rest, content: `${m.content}\n\n[${images.length} image(s) not shown: this model cannot see images.]` };
  });
}

/** A short reminder of the task, added to each request and never persisted. */
function anchorText(h: TurnHost, task: string): string {
  if (!h.opts.tools) return "";
  const oneLine = task.replace(/\s+/g, " ").trim();
  const short = oneLine.length > 300 ? `${safeHead(oneLine, 300)}…` : oneLine;
  const base = `Reminder: the user's current request is: "${short}". Use the tools when they help; call independent tools together in one response; when the task is done, answer with a short final summary and no tool calls.`;
  const extra = h.opts.anchorNote?.();
  return extra ? `${base}\n${extra}` : base;
}

async function recoverOverflow(h: TurnHost, attempt: number): Promise<boolean> {
  const before = h.history.messages;
  const r = h.opts.recoverOverflow?.({ history: before, attempt, emit: (e) => h.emit(e) });
  if (!r || r === before) return false;
  h.history.replace(r, "overflow_recovery");
  return true;
}

function appendToolResults(h: TurnHost, given: Message[]): void {
  // A tool's images are kept only for a model with vision; for one without, its text (which describes them) is all.
  const results = h.binding.images === false ? withoutImages(given) : given;
  const last = h.history.messages.findLast((m) => m.role === "assistant");
  const native = last?.role === "assistant" && (last.toolCalls?.length ?? 0) > 0;
  if (native) {
    h.history.append(...results);
    return;
  }
  const formatted = h.opts.textProtocol
    ? h.opts.textProtocol.formatResults(results.map((r) => ({ name: r.role === "tool" ? r.name : "tool", content: r.content, isError: r.role === "tool" && r.isError === true })))
    : results.map((r) => r.content).join("\n\n");
  const images = results.flatMap((r) => (r.role === "tool" ? (r.images ?? []) : []));
  h.history.append({ role: "user", content: formatted, ...(images.length ? { images } : {}), meta: { kind: "tool_feedback" } });
}

function batchCompleted(h: TurnHost, batchId: string, calls: ToolCallRequest[], results: Message[]): void {
  if (!h.opts.onBatchCompleted) return;
  const history = h.history.messages;
  const lastAssistant = history.findLast((m) => m.role === "assistant");
  // A tool-only reply has no text: the user's last prompt then states the intent.
  const lastPrompt = history.findLast((m) => m.role === "user" && m.meta?.kind !== "tool_feedback");
  const intent = lastAssistant?.content.trim() || lastPrompt?.content || "";
  h.opts.onBatchCompleted({
    batchId,
    intent,
    calls: calls.map((c, i) => {
      const r = results[i];
      return { id: c.id, name: c.name, args: c.args, result: r?.content ?? "", isError: r?.role === "tool" ? r.isError === true : false };
    }),
  });
}

/** `resolveInput` (e.g. `@server:uri` MCP resources); its notices are warnings, and a failure keeps the text as typed. */
async function resolved(h: Pick<TurnHost, "opts" | "emit">, text: string, signal: AbortSignal): Promise<string> {
  if (!h.opts.resolveInput) return text;
  try {
    const r = await h.opts.resolveInput(text, signal);
    for (const n of r.notices ?? []) h.emit({ type: "notice", level: "warn", text: n });
    return r.text;
  } catch (err) {
    h.emit({ type: "notice", level: "warn", text: t("core.attachmentsFailed", { error: (err as Error)?.message ?? String(err) }) });
    return text;
  }
}

/**
 * `transformInput` (e.g. `@path` attachments, images); its notices are warnings, and a failure keeps the text as
 * typed. Images for a model without vision are not sent: the user is told and the model reads a note instead.
 */
export async function transformed(h: Pick<TurnHost, "opts" | "emit" | "binding">, text: string): Promise<{ content: string; images?: ImagePart[] }> {
  if (!h.opts.transformInput) return { content: text };
  try {
    const r = await h.opts.transformInput(text);
    for (const n of r.notices ?? []) h.emit({ type: "notice", level: "warn", text: n });
    const images = r.images ?? [];
    const blind = images.length > 0 && h.binding.images === false;
    // "attached" lines would contradict the no-vision warning that replaces them.
    if (!blind) for (const n of r.infos ?? []) h.emit({ type: "notice", level: "info", text: n });
    if (!images.length) return { content: r.text };
    if (blind) {
      h.emit({ type: "notice", level: "warn", text: t("image.noVision", { model: h.binding.model, count: images.length }) });
      return { content: `${r.text}\n\n[${images.length} image(s) the user attached were not sent: this model cannot see images.]` };
    }
    return { content: r.text, images };
  } catch (err) {
    h.emit({ type: "notice", level: "warn", text: t("core.attachmentsFailed", { error: (err as Error)?.message ?? String(err) }) });
    return { content: text };
  }
}
