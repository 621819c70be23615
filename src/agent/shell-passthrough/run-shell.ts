/**
 * `!cmd` (issue 25): a command the user typed runs in the project through the tool host's exec, so the sandbox,
 * the checkpoints (/diff, /undo) and the permission policy all apply, but no model is called. The transcript gets
 * the usual tool.started / tool.updated / tool.completed events; the conversation gets one context message with
 * the command and its output (cut to the tool-result budget), which the next turn's request carries.
 *
 * Permission: the user typed the command, so a plain "ask" (not read-only, an `ask` rule, the sandbox network
 * question) counts as their approval. What protects the user still holds: deny rules, the denylist, dangerous
 * commands and plan mode deny as for the agent; protected paths, lines the dangerous check cannot clear and
 * safety-immune commands still ask (tool-host-impl.ts, `typedByUser`).
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import { capText } from "../../tool/tool.ts";
import type { ApprovalAnswer } from "../run-deps.ts";
import type { ApprovalRequest, ToolHost, ToolRunResult } from "../tool-host.ts";

export interface ShellRunContext {
  command: string;
  signal: AbortSignal;
  emit(e: AgentEvent): void;
  newId(prefix: string): string;
  now(): number;
  requestApproval(req: ApprovalRequest): Promise<ApprovalAnswer>;
}

export interface ShellRunResult {
  /** The context message for the next turn (undefined when nothing ran: denied, interrupted before it started). */
  message?: Message;
  /** The command did not run, or exited non-zero. */
  failed: boolean;
}

export interface ShellPassthroughOptions {
  tools: ToolHost;
  /** The tool-result budget's per-result limit now (it follows the model's window). */
  maxContextChars: () => number;
  /** Where a cut output is saved in full (the session's tool-results directory). */
  saveOverflow?: (callId: string, text: string) => string | undefined;
  /** Before the command runs: a checkpoint, so what it changes is in /diff and /undo. */
  beforeRun?: (command: string) => void;
}

export function createShellPassthrough(o: ShellPassthroughOptions): (c: ShellRunContext) => Promise<ShellRunResult> {
  return async (c) => {
    const callId = c.newId("shell");
    const batchId = c.newId("batch");
    const args = { command: c.command };
    o.beforeRun?.(c.command);
    c.emit({ type: "tool.started", callId, name: "exec", args, title: o.tools.title("exec", args), batchId });
    const started = c.now();
    const res: ToolRunResult = await o.tools
      .run({ id: callId, name: "exec", args, typedByUser: true }, { signal: c.signal, onUpdate: (chunk) => c.emit({ type: "tool.updated", callId, output: chunk }), requestApproval: (req) => c.requestApproval(req) })
      .catch((err: unknown): ToolRunResult => ({ text: `exec crashed: ${(err as Error)?.message ?? String(err)}`, isError: true, errorCode: "UnknownError" }));
    c.emit({
      type: "tool.completed",
      callId,
      name: "exec",
      isError: res.isError,
      ...(res.errorCode ? { errorCode: res.errorCode } : {}),
      result: res.text,
      details: { ...(res.details ?? {}), typedByUser: true },
      durationMs: c.now() - started,
      batchId,
    });
    const ran = res.errorCode !== "permission_denied" && res.errorCode !== "not_executed";
    if (!ran) return { failed: true };
    const capped = capText(res.text, Math.max(1_000, o.maxContextChars()), o.saveOverflow ? (full) => o.saveOverflow!(callId, full) : undefined, 0.3);
    const content = `[The user ran a shell command themselves (\`!\` in chatcli), in the project; its output is context for what they ask next.]\n$ ${c.command}\n${capped.text}`;
    return { message: { role: "user", content, meta: { kind: "context", createdAt: c.now() } }, failed: res.isError };
  };
}
