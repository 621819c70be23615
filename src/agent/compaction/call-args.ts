/**
 * Native tool calls carry their arguments as a raw JSON string on the assistant message (a `write` of a
 * 500 KB file keeps those 500 KB there for the rest of the session). Compaction shortens them the way it
 * shortens tool outputs, but the result must stay a JSON object: providers parse it back (Ollama sends
 * `arguments` as an object, Anthropic as `input`). So the long string values inside are cut, not the text.
 */
import type { AssistantMessage, Message } from "../../protocol/message.ts";
import { headTail } from "./blocks.ts";

type ToolCall = NonNullable<AssistantMessage["toolCalls"]>[number];

/** Total characters of a message's tool-call arguments (0 for anything but an assistant with calls). */
export function callArgsChars(m: Message): number {
  if (m.role !== "assistant" || !m.toolCalls) return 0;
  let n = 0;
  for (const c of m.toolCalls) n += c.arguments.length;
  return n;
}

/**
 * `args` (a JSON object text) at most about `maxChars` long: string values are cut head + tail with a marker,
 * the longest first. Text that is not a JSON object becomes an object saying what was omitted.
 */
export function shrinkCallArguments(args: string, maxChars: number): string {
  if (args.length <= maxChars) return args;
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return JSON.stringify({ omitted: `[${args.length} chars of tool-call arguments omitted to fit the context window]` });
  const obj = { ...(value as Record<string, unknown>) };
  const strings = Object.keys(obj)
    .filter((k) => typeof obj[k] === "string")
    .sort((a, b) => (obj[b] as string).length - (obj[a] as string).length);
  for (const k of strings) {
    const current = JSON.stringify(obj).length;
    if (current <= maxChars) break;
    const s = obj[k] as string;
    const keep = Math.max(200, s.length - (current - maxChars) - 80);
    if (keep >= s.length) continue;
    const head = Math.floor((keep * 2) / 3);
    obj[k] = headTail(s, head, keep - head, (n) => `\n... [${n} chars of this argument omitted to fit the context window] ...\n`);
  }
  return JSON.stringify(obj);
}

/** The message with every call's arguments shrunk to `maxCharsPerCall`, or the same message when none is over. */
export function withShrunkCallArgs<M extends Message>(m: M, maxCharsPerCall: number): M {
  if (m.role !== "assistant" || !m.toolCalls?.some((c) => c.arguments.length > maxCharsPerCall)) return m;
  const toolCalls: ToolCall[] = m.toolCalls.map((c) => (c.arguments.length > maxCharsPerCall ? { ...c, arguments: shrinkCallArguments(c.arguments, maxCharsPerCall) } : c));
  return { ...m, toolCalls };
}
