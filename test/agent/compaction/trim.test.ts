import { describe, expect, test } from "bun:test";
import { trimHistory } from "../../../src/agent/compaction/trim.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { agentHistory, assistant, sys, tool, user } from "./fixtures.ts";

describe("level 1: trim", () => {
  test("strips reasoning from old assistant messages, shortens old tool outputs, keeps the recent ones verbatim", () => {
    const h = agentHistory(6);
    const { messages, report } = trimHistory(h, { keepRecent: 8 });
    expect(messages.length).toBe(h.length);
    const recentFrom = h.length - 8;
    for (let i = 0; i < h.length; i++) {
      const before = h[i]!;
      const after = messages[i]!;
      if (i >= recentFrom || before.role === "system" || before.role === "user") expect(after).toBe(before);
    }
    const oldAssistant = messages[2]!;
    expect(oldAssistant.role).toBe("assistant");
    expect(oldAssistant.content).toBe("I will read it.");
    expect((oldAssistant as Extract<Message, { role: "assistant" }>).toolCalls?.[0]?.id).toBe("c0");
    const oldTool = messages[3]!;
    expect(oldTool.content.length).toBeLessThan(3_000);
    expect(oldTool.content).toContain("chars of old tool output omitted");
    expect(oldTool.content.startsWith("line of file 0")).toBe(true);
    expect(report.reasoningStripped).toBeGreaterThan(0);
    expect(report.outputsShortened).toBeGreaterThan(0);
  });

  test("never touches system messages, summaries, the user's own messages or verbatim messages", () => {
    const bigUser = user("please keep ALL of this: " + "important ".repeat(1000));
    const summary: Message = { role: "user", content: "[STRUCTURED SUMMARY] " + "s".repeat(5000), meta: { kind: "summary" } };
    const verbatim: Message = { role: "tool", toolCallId: "v", name: "read", content: "v".repeat(9000), meta: { verbatim: true } };
    const h: Message[] = [
      { role: "system", content: "<think>not mine</think>" + "S".repeat(9000) },
      bigUser,
      summary,
      assistant("reading", [{ id: "v", name: "read" }]),
      verbatim,
      ...Array.from({ length: 10 }, (_, i) => user(`recent ${i}`)),
    ];
    const { messages } = trimHistory(h, { keepRecent: 8 });
    expect(messages[0]).toBe(h[0]);
    expect(messages[1]).toBe(bigUser);
    expect(messages[2]).toBe(summary);
    expect(messages[4]).toBe(verbatim);
  });

  test("injected context: earlier identical copies become a stub, copies over 3,000 chars keep header and 2,000 chars", () => {
    const ctx = "[MEMORY CONTEXT — loaded from 2026-01-01]\nline 2\nline 3\n" + "memory ".repeat(1000);
    const small: Message = { role: "user", content: "short context", meta: { kind: "context" } };
    const h: Message[] = [sys, user(ctx), assistant("ok"), small, user(ctx), assistant("ok again")];
    const { messages, report } = trimHistory(h, { keepRecent: 2 });
    expect(messages[1]!.content).toContain("identical copy appears later");
    expect(messages[3]).toBe(small);
    expect(messages[4]!.content.startsWith("[MEMORY CONTEXT — loaded from 2026-01-01]\nline 2\nline 3\n")).toBe(true);
    expect(messages[4]!.content).toContain("chars of context omitted during compaction");
    expect(messages[4]!.content.length).toBeLessThan(2_300);
    expect(report.contextTrimmed).toBe(2);
  });

  test("verbose XML tool calls in old text-protocol messages become one line; short ones stay", () => {
    const long = `Let me run it.\n<tool_call name="exec" args='${JSON.stringify({ cmd: "go test ./...", description: "x".repeat(200) })}' />`;
    const short = `<tool_call name="read" args='{"path":"a.ts"}' />`;
    const h: Message[] = [sys, user("go"), assistant(long), { role: "user", content: "<tool_output>ok</tool_output>", meta: { kind: "tool_feedback" } }, assistant(short), ...Array.from({ length: 8 }, (_, i) => user(`r${i}`))];
    const { messages, report } = trimHistory(h, { keepRecent: 8 });
    expect(messages[2]!.content).toBe("Let me run it.\n[tool: exec go test ./...]");
    expect(messages[4]).toBe(h[4]);
    expect(report.toolCallsCompacted).toBe(1);
  });

  test("identical consecutive messages are kept once, but a user's repeated message stays twice", () => {
    const notice: Message = { role: "user", content: "[stagnation detected] stop", meta: { kind: "notice" } };
    const h: Message[] = [sys, user("again"), user("again"), notice, { ...notice }, assistant("same"), assistant("same"), ...Array.from({ length: 8 }, (_, i) => user(`r${i}`))];
    const { messages, report } = trimHistory(h, { keepRecent: 8 });
    expect(report.duplicatesRemoved).toBe(2);
    expect(messages.filter((m) => m.content === "again").length).toBe(2);
    expect(messages.filter((m) => m.content === "same").length).toBe(1);
  });

  test("nothing to trim: the very same array back, and a second pass is a no-op", () => {
    const h: Message[] = [sys, user("hi"), assistant("hello")];
    expect(trimHistory(h, { keepRecent: 8 }).messages).toBe(h);
    const once = trimHistory(agentHistory(6), { keepRecent: 8 }).messages;
    expect(trimHistory(once, { keepRecent: 8 }).messages).toBe(once);
  });

  test("the recent boundary never splits a tool block: results of a kept call keep their full text", () => {
    const h: Message[] = [sys, user("go"), assistant("", [{ id: "a", name: "read" }, { id: "b", name: "read" }]), tool("a", "read", "A".repeat(9000)), tool("b", "read", "B".repeat(9000)), assistant("done")];
    // keepRecent 2 lands on tool "b": snapped back to the assistant message, so both results are recent.
    const { messages } = trimHistory(h, { keepRecent: 2 });
    expect(messages[3]).toBe(h[3]);
    expect(messages[4]).toBe(h[4]);
  });
});
