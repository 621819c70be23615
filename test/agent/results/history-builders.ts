/** Small builders for tool-result pipeline tests (not a test file). */
import type { AssistantMessage, Message, ToolMessage, UserMessage } from "../../../src/protocol/message.ts";

export function user(content: string, meta?: UserMessage["meta"]): UserMessage {
  return meta ? { role: "user", content, meta } : { role: "user", content };
}

export function assistant(content: string, ...calls: Array<string | [id: string, name: string]>): AssistantMessage {
  if (calls.length === 0) return { role: "assistant", content };
  return {
    role: "assistant",
    content,
    toolCalls: calls.map((c) => (typeof c === "string" ? { id: c, name: "web_fetch", arguments: "{}" } : { id: c[0], name: c[1], arguments: "{}" })),
  };
}

export function tool(id: string, content: string, name = "web_fetch", extra: Partial<ToolMessage> = {}): ToolMessage {
  return { role: "tool", toolCallId: id, name, content, ...extra };
}

/** Deterministic PRNG (mulberry32) so property tests replay exactly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

/** `lines` lines of about `width` chars each, numbered so head/tail are recognizable. */
export function numberedLines(lines: number, width = 60, prefix = "line"): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) out.push(`${prefix} ${i} `.padEnd(width, "x"));
  return out.join("\n");
}

export function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

export function toolMessages(h: readonly Message[]): ToolMessage[] {
  return h.filter((m): m is ToolMessage => m.role === "tool");
}
