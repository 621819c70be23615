/** Turning a finished model reply into the assistant message and the tool calls to run (native or text protocol). */
import type { AssistantMessage, ToolCall } from "../../protocol/message.ts";
import type { TurnOptions } from "./session-options.ts";
import type { ToolCallRequest } from "../tool-host.ts";

/** What a reply needs from its session: the turn options and the id counter. */
export interface ReplyContext {
  readonly opts: Pick<TurnOptions, "tools" | "textProtocol" | "sanitizeNativeArgs">;
  /** The id counter's current value (newId advances it). */
  readonly seq: number;
  newId(prefix: string): string;
}

export function finishAssistant(s: ReplyContext, text: string, thinking: string, nativeCalls: ToolCall[]): { message: AssistantMessage; calls: ToolCallRequest[]; displayText: string; feedback?: string } {
  const message: AssistantMessage = { role: "assistant", content: text };
  if (thinking) message.thinking = thinking;
  const calls: ToolCallRequest[] = [];
  let displayText = text;
  if (nativeCalls.length) {
    message.toolCalls = nativeCalls.map((c, i) => ({ ...c, id: c.id || `tc_${s.seq}_${i}` }));
    for (const c of message.toolCalls) calls.push(nativeRequest(c, s.opts.sanitizeNativeArgs));
  } else if (s.opts.tools && s.opts.textProtocol) {
    const parsed = s.opts.textProtocol.parse(text);
    // Prose that is the text up to surrounding white space (no markup removed) is the text itself: a
    // `displayText` differing only by a trailing newline would repeat the whole answer in message.completed.
    if (parsed.text !== text.trim()) displayText = parsed.text;
    parsed.calls.forEach((c, i) => {
      const req: ToolCallRequest = { id: `txt_${s.newId("c")}_${i}`, name: c.name, args: c.args };
      if (c.argsError) req.argsError = c.argsError;
      if (c.recoveredFrom) req.recoveredFrom = c.recoveredFrom;
      calls.push(req);
    });
    // A tool call the parser could not recover goes back to the model with what to fix.
    if (!calls.length && parsed.errors?.length) return { message, calls, displayText, feedback: parsed.errors.join("\n") };
  }
  return { message, calls, displayText };
}

export function nativeRequest(c: ToolCall, sanitize?: TurnOptions["sanitizeNativeArgs"]): ToolCallRequest {
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
