/** Crafted histories for the compaction tests. */
import type { Message } from "../../../src/protocol/message.ts";

export const sys: Message = { role: "system", content: "You are chatcli." };

export function user(content: string): Message {
  return { role: "user", content, meta: { createdAt: 1 } };
}

export function assistant(content: string, calls: Array<{ id: string; name: string; args?: Record<string, unknown> }> = []): Message {
  return calls.length
    ? { role: "assistant", content, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.args ?? {}) })) }
    : { role: "assistant", content };
}

export function tool(id: string, name: string, content: string): Message {
  return { role: "tool", toolCallId: id, name, content };
}

/** `turns` rounds of: user ask → assistant calls a tool → big result → assistant answer. */
export function agentHistory(turns: number, outputChars = 6_000): Message[] {
  const h: Message[] = [sys];
  for (let i = 0; i < turns; i++) {
    h.push(user(`task ${i}: look at src/file${i}.ts`));
    h.push(assistant(`<think>planning step ${i} ${"hmm ".repeat(50)}</think>I will read it.`, [{ id: `c${i}`, name: "read", args: { path: `src/file${i}.ts` } }]));
    h.push(tool(`c${i}`, "read", `line of file ${i}\n`.repeat(Math.ceil(outputChars / 17))));
    h.push(assistant(`src/file${i}.ts has ${i + 10} lines; done with task ${i}.`));
  }
  return h;
}

/** Every call answered by its adjacent block (what providers require). */
export function pairingValid(h: readonly Message[]): boolean {
  for (let i = 0; i < h.length; i++) {
    const m = h[i]!;
    if (m.role === "tool") {
      let j = i;
      while (j >= 0 && h[j]!.role === "tool") j--;
      const owner = h[j];
      if (owner?.role !== "assistant" || !owner.toolCalls?.some((c) => c.id === m.toolCallId)) return false;
    }
    if (m.role === "assistant" && m.toolCalls?.length) {
      const ids = new Set<string>();
      for (let j = i + 1; j < h.length && h[j]!.role === "tool"; j++) ids.add((h[j] as Extract<Message, { role: "tool" }>).toolCallId);
      if (!m.toolCalls.every((c) => ids.has(c.id))) return false;
    }
  }
  return true;
}

export function userTexts(h: readonly Message[]): string[] {
  return h.filter((m) => m.role === "user" && !m.meta?.kind).map((m) => m.content);
}
