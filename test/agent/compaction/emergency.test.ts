import { describe, expect, test } from "bun:test";
import { capMessages, emergencyTruncate, shrinkToBudget } from "../../../src/agent/compaction/emergency.ts";
import { extractQuotes } from "../../../src/agent/compaction/blocks.ts";
import { recoverFromOverflow } from "../../../src/agent/compaction/recovery.ts";
import { computeBudget } from "../../../src/agent/compaction/budget.ts";
import { estimateTokens } from "../../../src/agent/compaction/tokens.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { agentHistory, assistant, pairingValid, sys, tool, user } from "./fixtures.ts";

describe("level 3: emergency truncation", () => {
  test("keeps system + the last N (snapped), says honestly that messages were removed, quotes the user's messages", () => {
    const h = agentHistory(8);
    const archived: Message[][] = [];
    const { messages, dropped } = emergencyTruncate(h, 8, (m) => (archived.push(m), "/tmp/x/arch.jsonl"));
    expect(messages[0]).toBe(sys);
    const notice = messages[1]!;
    expect(notice.meta?.kind).toBe("summary");
    expect(notice.content).toContain("removed to fit the context window. They were not summarized.");
    expect(notice.content).not.toContain("has been summarized");
    expect(notice.content).toContain("/tmp/x/arch.jsonl");
    expect(messages.slice(2)).toEqual(h.slice(h.length - 8));
    expect(dropped).toBe(h.length - 1 - 8);
    expect(archived[0]!.length).toBe(dropped);
    // Every user instruction that was dropped is quoted exactly.
    const quotes = extractQuotes(notice.content);
    const droppedAsks = h.slice(1, h.length - 8).filter((m) => m.role === "user").map((m) => m.content);
    expect(quotes).toEqual(droppedAsks);
    expect(pairingValid(messages)).toBe(true);
  });

  test("a cut that lands inside a tool block moves to the block's start; the result is never orphaned", () => {
    const h: Message[] = [sys, user("a"), assistant("x"), user("b"), assistant("", [{ id: "1", name: "read" }, { id: "2", name: "read" }]), tool("1", "read", "one"), tool("2", "read", "two"), assistant("done")];
    for (const keep of [1, 2, 3, 4]) {
      const { messages } = emergencyTruncate(h, keep);
      expect(pairingValid(messages)).toBe(true);
      const kept = messages.filter((m) => m.role === "tool").length;
      expect(kept === 0 || kept === 2).toBe(true);
    }
    const { messages } = emergencyTruncate(h, 2);
    expect(messages.slice(-4).map((m) => m.role)).toEqual(["assistant", "tool", "tool", "assistant"]);
  });

  test("short histories and earlier summaries are left alone", () => {
    const h: Message[] = [sys, user("a"), assistant("b")];
    expect(emergencyTruncate(h, 8).messages).toBe(h);
    const summary: Message = { role: "user", content: "[STRUCTURED SUMMARY — covering 10 earlier messages]\nfacts", meta: { kind: "summary" } };
    const h2: Message[] = [sys, summary, ...agentHistory(4).slice(1)];
    const r = emergencyTruncate(h2, 4);
    expect(r.messages).toContain(summary);
  });

  test("shrinkToBudget cuts the largest tool output first, never a system message, and stops at the budget", () => {
    const bigSys: Message = { role: "system", content: "S".repeat(20_000) };
    const h: Message[] = [bigSys, user("read it"), assistant("", [{ id: "1", name: "read" }]), tool("1", "read", "T".repeat(40_000)), assistant("A".repeat(8_000)), user("and?")];
    const budget = estimateTokens(h) - 8_000;
    const { messages, shrunk } = shrinkToBudget(h, budget);
    expect(shrunk).toBeGreaterThan(0);
    expect(messages[0]).toBe(bigSys);
    expect(messages[1]).toBe(h[1]);
    expect(messages[3]!.content.length).toBeLessThan(40_000);
    expect(messages[3]!.content).toContain("omitted to fit the context window");
    expect(messages[4]).toBe(h[4]);
    expect(estimateTokens(messages)).toBeLessThanOrEqual(budget);
  });

  test("the user's own message is shrunk only when nothing else is left, and keeps its start", () => {
    const paste = "FIX THIS: " + "p".repeat(30_000);
    const h: Message[] = [sys, user(paste)];
    const { messages } = shrinkToBudget(h, 2_000);
    expect(messages[1]!.content.startsWith("FIX THIS: ")).toBe(true);
    expect(estimateTokens(messages)).toBeLessThanOrEqual(2_000);
  });

  test("capMessages caps every non-system message", () => {
    const h: Message[] = [{ role: "system", content: "s".repeat(9000) }, user("u".repeat(9000)), assistant("a".repeat(9000))];
    const { messages, capped } = capMessages(h, 4000);
    expect(capped).toBe(2);
    expect(messages[0]).toBe(h[0]);
    expect(messages.slice(1).every((m) => m.content.length <= 4000)).toBe(true);
  });
});

describe("overflow recovery attempts", () => {
  const budget = computeBudget({ contextWindow: 8192, agent: true, overheadTokens: 1000 });
  test("1: halved budgets shorten long outputs everywhere; 2: keep 10; 3: keep 4 capped at 4,000 chars", () => {
    const h = agentHistory(10, 12_000);
    h.push(user("latest ask"), assistant("Z".repeat(20_000)));
    const r1 = recoverFromOverflow(h, 1, budget)!;
    expect(r1.messages.length).toBe(h.length);
    expect(r1.messages.every((m) => m.role === "system" || m.role === "user" || m.content.length <= 6_000)).toBe(true);
    expect(estimateTokens(r1.messages)).toBeLessThan(estimateTokens(h));
    const r2 = recoverFromOverflow(h, 2, budget)!;
    expect(r2.messages.length).toBeLessThanOrEqual(1 + 1 + 10);
    expect(r2.messages.at(-2)!.content).toBe("latest ask");
    const r3 = recoverFromOverflow(h, 3, budget)!;
    // system + notice + the last 4, snapped back one to the assistant message that owns the kept tool result.
    expect(r3.messages.length).toBe(1 + 1 + 5);
    expect(r3.messages[2]!.role).toBe("assistant");
    expect(r3.messages.every((m) => m.content.length <= 4_000 || m.role === "system" || m.meta?.kind === "summary")).toBe(true);
    for (const r of [r1, r2, r3]) expect(pairingValid(r.messages)).toBe(true);
    // The dropped user instructions survive, quoted.
    expect(extractQuotes(r3.messages[1]!.content)).toContain("task 0: look at src/file0.ts");
  });

  test("nothing left to shrink: undefined (the caller moves on or gives up)", () => {
    const h: Message[] = [sys, user("hi")];
    expect(recoverFromOverflow(h, 1, budget)).toBeUndefined();
    expect(recoverFromOverflow(h, 2, budget)).toBeUndefined();
  });
});
