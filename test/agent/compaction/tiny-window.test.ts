/**
 * Issue 15 item 4: compaction always brings the history under the window, whatever it is given — a short chat
 * far over a tiny window, huge single messages, a failing or absent summarizer — and reports it as one event.
 */
import { describe, expect, test } from "bun:test";
import { compactHistory } from "../../../src/agent/compaction/compactor.ts";
import { createContextManager } from "../../../src/agent/compaction/context-manager.ts";
import { MANUAL_COMPACT_RATIO, computeBudget } from "../../../src/agent/compaction/budget.ts";
import type { Summarizer } from "../../../src/agent/compaction/summarize.ts";
import { estimateTokens } from "../../../src/agent/compaction/tokens.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import type { Message } from "../../../src/protocol/message.ts";
import { agentHistory, assistant, pairingValid, sys, tool, user } from "./fixtures.ts";

const OVERHEAD = 1_000;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(" ");

const summarizers: Record<string, Summarizer | undefined> = {
  "a working summarizer": async () => `## Current Task State\n- Done: ${words(40)}\n- Pending: the rest`,
  // Small models answer at length: a summary bigger than the whole target must still end under the window.
  "a verbose summarizer": async () => `## Key Decisions\n${`- ${words(30)}\n`.repeat(40)}`,
  "a failing summarizer": async () => {
    throw new Error("HTTP 500 from the model");
  },
  "no summarizer": undefined,
};

/** The issue's case: a 6-message chat at about 255 % of a 4,096-token window. */
function sixMessageChat(window: number): Message[] {
  const each = Math.floor((window * 2.55 - OVERHEAD) / 6) * 4;
  return [
    user(`please review this:\n${words(each / 7)}`),
    assistant(words(each / 7)),
    user(`and this file:\n${words(each / 7)}`),
    assistant(words(each / 7)),
    user("what next?"),
    assistant(words(each / 7)),
  ];
}

const histories: Record<string, (window: number) => Message[]> = {
  "a 6-message chat at 255 %": sixMessageChat,
  "one huge paste": (w) => [user(`fix this log:\n${words(w)}`), assistant("Looking at it.")],
  "a huge write call in the last tool block": (w) => [
    sys,
    user("write the file"),
    assistant("", [{ id: "w1", name: "write", args: { path: "big.txt", content: words(w) } }]),
    tool("w1", "write", "Wrote big.txt"),
  ],
  "a long agent session": (w) => agentHistory(Math.max(4, Math.floor(w / 300)), 4_000),
};

function under(window: number, msgs: readonly Message[]): boolean {
  return estimateTokens(msgs) + OVERHEAD <= window;
}

describe("compaction with tiny windows ends under the window in every case", () => {
  for (const window of [2_048, 4_096, 8_192]) {
    for (const [hName, make] of Object.entries(histories)) {
      for (const [sName, summarize] of Object.entries(summarizers)) {
        test(`${window} tokens, ${hName}, ${sName}: automatic and /compact`, async () => {
          const history = make(window);
          expect(under(window, history)).toBe(false);
          const cm = createContextManager({ contextWindow: () => window, overheadTokens: () => OVERHEAD, agent: () => true, ...(summarize ? { summarize } : {}) });

          const autoEvents: AgentEvent[] = [];
          const auto = await cm.beforeModelCall(history, { signal: new AbortController().signal, emit: (e) => autoEvents.push(e) });
          expect(under(window, auto)).toBe(true);
          expect(pairingValid(auto)).toBe(true);
          expect(autoEvents.filter((e) => e.type === "compaction").length).toBe(1);
          expect(autoEvents.filter((e) => e.type === "notice")).toEqual([]);

          const manualEvents: AgentEvent[] = [];
          const manual = await cm.compact({ history, signal: new AbortController().signal, emit: (e) => manualEvents.push(e) });
          expect(manual).toBeDefined();
          // At /compact's own target (half the window, or the history's floor when the overhead is most of that).
          expect(under(window, manual!)).toBe(true);
          expect(estimateTokens(manual!)).toBeLessThanOrEqual(cm.budget(MANUAL_COMPACT_RATIO).historyTarget);
          expect(pairingValid(manual!)).toBe(true);
          const reports = manualEvents.filter((e): e is Extract<AgentEvent, { type: "compaction" }> => e.type === "compaction");
          expect(reports.length).toBe(1);
          expect(reports[0]!.trigger).toBe("manual");
          expect(reports[0]!.tokensAfter).toBe(estimateTokens(manual!) + OVERHEAD);
          if (summarize === undefined) expect(reports[0]!.summaryError).toBeDefined();
          // The last message survives in some form: the conversation can go on.
          expect(manual!.at(-1)!.role).toBe(history.at(-1)!.role);
        });
      }
    }
  }

  test("the issue's chat: /compact keeps fewer recent messages so there is something to summarize", async () => {
    const history = sixMessageChat(4_096);
    const prompts: string[] = [];
    const cm = createContextManager({
      contextWindow: () => 4_096,
      overheadTokens: () => OVERHEAD,
      agent: () => true,
      summarize: async ({ prompt }) => {
        prompts.push(prompt);
        return "## Current Task State\n- Done: reviewed two files\n- Pending: what next";
      },
    });
    const events: AgentEvent[] = [];
    const out = await cm.compact({ history, signal: new AbortController().signal, emit: (e) => events.push(e) });
    expect(prompts.length).toBeGreaterThan(0);
    expect(out!.some((m) => m.meta?.kind === "summary")).toBe(true);
    expect(events.some((e) => e.type === "notice" && /nothing to summarize/.test(e.text))).toBe(false);
    const report = events.find((e) => e.type === "compaction");
    expect(report).toMatchObject({ trigger: "manual" });
    expect(report!.type === "compaction" && report!.summarized! >= 1).toBe(true);
  });

  test("a short history that fits is left alone by /compact; the automatic path does nothing under the trigger", async () => {
    const history = [user("hi"), assistant("hello")];
    const cm = createContextManager({ contextWindow: () => 4_096, overheadTokens: () => OVERHEAD, agent: () => true });
    const events: AgentEvent[] = [];
    expect(await cm.compact({ history, signal: new AbortController().signal, emit: (e) => events.push(e) })).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["notice"]);
    expect(await cm.beforeModelCall(history, { signal: new AbortController().signal, emit: (e) => events.push(e) })).toBe(history);
  });

  test("the compactor never leaves the target even for a history of protected messages only", async () => {
    const history = [user(words(3_000)), user(words(3_000)), user(words(3_000))];
    const budget = computeBudget({ contextWindow: 2_048, agent: true, overheadTokens: OVERHEAD });
    const r = await compactHistory({ history, budget, overheadTokens: OVERHEAD, signal: new AbortController().signal, emit: () => undefined }, {});
    expect(estimateTokens(r.messages)).toBeLessThanOrEqual(budget.historyTarget);
    // The user's requests are kept whole or quoted by their start.
    expect(r.messages.map((m) => m.content).join("\n")).toContain("word0 word1");
  });
});
