import { describe, expect, test } from "bun:test";
import { shrinkCallArguments } from "../../../src/agent/compaction/call-args.ts";
import { capMessages, shrinkToBudget } from "../../../src/agent/compaction/emergency.ts";
import { trimHistory } from "../../../src/agent/compaction/trim.ts";
import { estimateTokens } from "../../../src/agent/compaction/tokens.ts";
import type { AssistantMessage, Message } from "../../../src/protocol/message.ts";
import { assistant, pairingValid, sys, tool, user } from "./fixtures.ts";

const BIG = ("abcdefghij".repeat(10) + "\n").repeat(5_000); // 505,000 chars: a model writing a large file

function bigWrite(id: string): Message {
  return assistant("", [{ id, name: "write", args: { path: "big.txt", content: BIG } }]);
}
const argsOf = (m: Message | undefined) => (m as AssistantMessage).toolCalls![0]!.arguments;

describe("native tool-call arguments are compacted (a 500 KB write no longer pins the history over the window)", () => {
  test("shrinkCallArguments keeps a JSON object with the short fields intact and says what went", () => {
    const raw = JSON.stringify({ path: "big.txt", content: BIG });
    const out = shrinkCallArguments(raw, 3_000);
    expect(out.length).toBeLessThanOrEqual(3_200);
    const parsed = JSON.parse(out) as { path: string; content: string };
    expect(parsed.path).toBe("big.txt");
    expect(parsed.content.startsWith("abcdefghij")).toBe(true);
    expect(parsed.content).toMatch(/\[\d+ chars of this argument omitted to fit the context window\]/);
    expect(shrinkCallArguments("not json".repeat(1_000), 100)).toContain("chars of tool-call arguments omitted");
    expect(shrinkCallArguments('{"a":1}', 100)).toBe('{"a":1}');
  });

  test("level 1 trims an old write's arguments like an old output; a recent one is left alone", () => {
    const h: Message[] = [sys, user("write it"), bigWrite("c1"), tool("c1", "write", "Created big.txt"), assistant("done"), user("again"), bigWrite("c2"), tool("c2", "write", "Created big.txt")];
    const { messages, report } = trimHistory(h, { keepRecent: 2 });
    expect(argsOf(messages[2]).length).toBeLessThan(3_000);
    expect(JSON.parse(argsOf(messages[2])).path).toBe("big.txt");
    expect(argsOf(messages[6])).toBe(argsOf(h[6]));
    expect(report.toolCallsCompacted).toBe(1);
    expect(pairingValid(messages)).toBe(true);
  });

  test("emergency shrinking reaches the budget when the bulk is a recent call's arguments", () => {
    const h: Message[] = [sys, user("write it"), bigWrite("c1"), tool("c1", "write", "Created big.txt"), assistant("done")];
    expect(estimateTokens(h)).toBeGreaterThan(100_000);
    const { messages, shrunk } = shrinkToBudget(h, 20_000);
    expect(shrunk).toBeGreaterThan(0);
    expect(estimateTokens(messages)).toBeLessThanOrEqual(20_000);
    expect(JSON.parse(argsOf(messages[2])).path).toBe("big.txt");
    expect(pairingValid(messages)).toBe(true);
  });

  test("capMessages (overflow recovery's last attempt) caps call arguments too", () => {
    const h: Message[] = [sys, user("write it"), bigWrite("c1"), tool("c1", "write", "Created big.txt")];
    const { messages, capped } = capMessages(h, 4_000);
    expect(capped).toBe(1);
    expect(argsOf(messages[2]).length).toBeLessThanOrEqual(4_200);
  });
});
