import { describe, expect, test } from "bun:test";
import type { Message } from "../../../src/protocol/message.ts";
import {
  MISSING_RESULT_ERROR_CODE,
  SYNTHETIC_TOOL_RESULT_CONTENT,
  countPendingToolCalls,
  describePairingReport,
  ensureToolResultPairing,
  hasPairingRepairs,
  validateToolResultPairing,
} from "../../../src/agent/results/pairing.ts";
import { assistant, pick, prng, tool, toolMessages, user } from "./history-builders.ts";

describe("ensureToolResultPairing", () => {
  test("a valid history comes back as the same array with no repairs", () => {
    const h: Message[] = [user("go"), assistant("", "web_fetch:0", "web_fetch:1"), tool("web_fetch:0", "a"), tool("web_fetch:1", "b"), assistant("done")];
    const r = ensureToolResultPairing(h);
    expect(r.messages).toBe(h);
    expect(hasPairingRepairs(r.report)).toBe(false);
    expect(describePairingReport(r.report)).toBe("");
    expect(validateToolResultPairing(h)).toBe(true);
  });

  test("ids reused across turns: the second, dangling block gets synthetics right after it", () => {
    const h: Message[] = [
      user("q"),
      assistant("", "web_fetch:0", "web_fetch:1"),
      tool("web_fetch:0", "a"),
      tool("web_fetch:1", "b"),
      assistant("", "web_fetch:0", "web_fetch:1"),
      user("next"),
    ];
    const r = ensureToolResultPairing(h);
    expect(r.report.syntheticResultsInjected).toBe(2);
    expect(r.report.orphanResultsRemoved).toBe(0);
    expect(r.messages).toHaveLength(8);
    expect(r.messages[2]).toBe(h[2]!);
    expect(r.messages[3]).toBe(h[3]!);
    for (const i of [5, 6]) {
      const m = r.messages[i]!;
      expect(m.role === "tool" && m.content === SYNTHETIC_TOOL_RESULT_CONTENT).toBe(true);
    }
    expect(r.messages[7]).toBe(h[5]!);
    expect(r.report.missingToolCallIds).toEqual(["web_fetch:0", "web_fetch:1"]);
  });

  test("a dangling first block does not steal the later block's results", () => {
    const h: Message[] = [
      user("q"),
      assistant("", "web_fetch:0", "web_fetch:1"),
      assistant("", "web_fetch:0", "web_fetch:1"),
      tool("web_fetch:0", "fresh-a"),
      tool("web_fetch:1", "fresh-b"),
    ];
    const r = ensureToolResultPairing(h);
    expect(r.messages).toHaveLength(7);
    expect(r.report.syntheticResultsInjected).toBe(2);
    const contents = r.messages.map((m) => (m.role === "tool" ? m.content : m.role));
    expect(contents).toEqual(["user", "assistant", SYNTHETIC_TOOL_RESULT_CONTENT, SYNTHETIC_TOOL_RESULT_CONTENT, "assistant", "fresh-a", "fresh-b"]);
  });

  test("results displaced behind an interposed message are moved back next to their call", () => {
    const block = user("SECURITY BLOCK: command denied");
    const h: Message[] = [assistant("", "a", "b"), block, tool("a", "ra"), tool("b", "rb")];
    const r = ensureToolResultPairing(h);
    expect(r.report.resultsRelocated).toBe(2);
    expect(r.report.syntheticResultsInjected).toBe(0);
    expect(r.messages.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(["assistant", "a", "b", "user"]);
    expect(r.messages[3]).toBe(block);
  });

  test("a result with no call is removed and its id recorded", () => {
    const h: Message[] = [user("hi"), tool("ghost:0", "boo"), assistant("hello")];
    const r = ensureToolResultPairing(h);
    expect(r.report.orphanResultsRemoved).toBe(1);
    expect(r.report.orphanToolResultIds).toEqual(["ghost:0"]);
    expect(r.messages).toHaveLength(2);
    expect(r.messages.some((m) => m.role === "tool")).toBe(false);
  });

  test("partial results: synthetics fill the gaps, emitted in call order", () => {
    const h: Message[] = [assistant("", "web_fetch:0", "web_fetch:1", "park:2"), tool("web_fetch:0", "real")];
    const r = ensureToolResultPairing(h);
    expect(r.report.syntheticResultsInjected).toBe(2);
    expect(r.report.missingToolCallIds).toEqual(["web_fetch:1", "park:2"]);
    const tools = toolMessages(r.messages);
    expect(tools.map((t) => [t.toolCallId, t.content === SYNTHETIC_TOOL_RESULT_CONTENT])).toEqual([
      ["web_fetch:0", false],
      ["web_fetch:1", true],
      ["park:2", true],
    ]);
  });

  test("a duplicated call id inside one message keeps only the first", () => {
    const h: Message[] = [assistant("", "dup:0", "dup:0"), tool("dup:0", "r")];
    const r = ensureToolResultPairing(h);
    const a = r.messages[0]!;
    expect(a.role === "assistant" ? a.toolCalls?.length : -1).toBe(1);
    expect(r.report.duplicateCallsPruned).toBe(1);
    expect(r.messages).toHaveLength(2);
    expect(validateToolResultPairing(r.messages)).toBe(true);
  });

  test("the same id in a later assistant message is legal", () => {
    const h: Message[] = [assistant("", "x:0"), tool("x:0", "1"), assistant("", "x:0"), tool("x:0", "2")];
    expect(ensureToolResultPairing(h).messages).toBe(h);
  });

  test("a result beyond the next assistant message is not claimed", () => {
    const h: Message[] = [assistant("", "x:0"), assistant("thinking aloud"), tool("x:0", "late")];
    const r = ensureToolResultPairing(h);
    expect(r.report.syntheticResultsInjected).toBe(1);
    expect(r.report.orphanResultsRemoved).toBe(1);
    expect(r.messages).toHaveLength(3);
  });

  test("synthetic results are marked as errors with the missing_result code and the call's name", () => {
    const h: Message[] = [assistant("", ["c1", "read"])];
    const [, synth] = ensureToolResultPairing(h).messages;
    expect(synth).toEqual({ role: "tool", toolCallId: "c1", name: "read", content: SYNTHETIC_TOOL_RESULT_CONTENT, isError: true, errorCode: MISSING_RESULT_ERROR_CODE });
  });

  test("an empty id is dropped and a second pass is a no-op", () => {
    const h: Message[] = [assistant("", "", "ok:1"), tool("ok:1", "r")];
    const first = ensureToolResultPairing(h);
    expect(first.report.duplicateCallsPruned).toBe(1);
    expect(first.report.emptyIdCallsDropped).toBe(1);
    const second = ensureToolResultPairing(first.messages);
    expect(hasPairingRepairs(second.report)).toBe(false);
    expect(second.messages).toBe(first.messages);
  });

  test("an assistant message whose only call had an empty id loses its toolCalls field", () => {
    const r = ensureToolResultPairing([assistant("text", ""), user("u")]);
    expect(r.messages[0]).toEqual({ role: "assistant", content: "text" });
  });

  test("adjacent results in another order are valid and untouched", () => {
    const h: Message[] = [assistant("", "a", "b", "c"), tool("c", "3"), tool("a", "1"), tool("b", "2")];
    expect(validateToolResultPairing(h)).toBe(true);
    expect(ensureToolResultPairing(h).messages).toBe(h);
  });

  test("a duplicated result keeps the first and drops the second as an orphan", () => {
    const h: Message[] = [assistant("", "a"), tool("a", "first"), tool("a", "second")];
    const r = ensureToolResultPairing(h);
    expect(toolMessages(r.messages).map((t) => t.content)).toEqual(["first"]);
    expect(r.report.orphanResultsRemoved).toBe(1);
  });

  test("the input array and its messages are not mutated", () => {
    const h: Message[] = [assistant("", "a", "a", ""), user("x"), tool("a", "r"), tool("zz", "o")];
    const snapshot = JSON.stringify(h);
    ensureToolResultPairing(h);
    expect(JSON.stringify(h)).toBe(snapshot);
  });

  test("describe names every kind of repair", () => {
    const r = ensureToolResultPairing([assistant("", "a", "a", "b"), user("x"), tool("a", "r"), tool("ghost", "o")]);
    expect(describePairingReport(r.report)).toBe("pairing: 1 missing result closed, 1 orphan result removed, 1 invalid call pruned, 1 result moved");
  });
});

describe("countPendingToolCalls", () => {
  test("counts only the last block, then reaches 0 when its results arrive", () => {
    const h: Message[] = [assistant("", "x"), assistant("", "a", "b"), tool("a", "1")];
    expect(countPendingToolCalls(h)).toBe(1);
    h.push(tool("b", "2"));
    expect(countPendingToolCalls(h)).toBe(0);
  });
});

describe("pairing properties over random histories", () => {
  const ids = ["web_fetch:0", "web_fetch:1", "park:2", "x", ""];

  function randomHistory(rand: () => number): Message[] {
    const h: Message[] = [];
    const n = Math.floor(rand() * 14);
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.15) h.push(user(`u${i}`));
      else if (r < 0.2) h.push({ role: "system", content: `s${i}` });
      else if (r < 0.5) {
        const calls = Array.from({ length: Math.floor(rand() * 4) }, () => pick(rand, ids));
        h.push(assistant(`a${i}`, ...calls));
      } else h.push(tool(pick(rand, ids), `t${i}`));
    }
    return h;
  }

  test("the output is always valid, a second pass returns the same array, nothing but tool results is lost", () => {
    const rand = prng(0xc0ffee);
    for (let c = 0; c < 400; c++) {
      const h = randomHistory(rand);
      const snapshot = JSON.stringify(h);
      const first = ensureToolResultPairing(h);
      expect(JSON.stringify(h)).toBe(snapshot);
      expect(validateToolResultPairing(first.messages)).toBe(true);
      const second = ensureToolResultPairing(first.messages);
      expect(second.messages).toBe(first.messages);
      expect(hasPairingRepairs(second.report)).toBe(false);
      if (validateToolResultPairing(h)) expect(first.messages).toBe(h);

      // Non-tool messages keep their relative order (assistants may only lose invalid calls).
      const shape = (m: Message): string => (m.role === "tool" ? "" : `${m.role}:${m.content}`);
      expect(first.messages.map(shape).filter(Boolean)).toEqual(h.map(shape).filter(Boolean));
      // Every kept real result is an input message, used at most once.
      const real = toolMessages(first.messages).filter((t) => t.content !== SYNTHETIC_TOOL_RESULT_CONTENT);
      expect(new Set(real).size).toBe(real.length);
      for (const t of real) expect(h.includes(t)).toBe(true);
      // Accounting: input results = kept + orphans; synthetics = output results - kept.
      const inputResults = toolMessages(h).length;
      expect(real.length + first.report.orphanResultsRemoved).toBe(inputResults);
      expect(toolMessages(first.messages).length - real.length).toBe(first.report.syntheticResultsInjected);
    }
  });
});
