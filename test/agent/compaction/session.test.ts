/** Overflow recovery and continuation through the real Session built by wireSession, against the fake Ollama server. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONTINUATION_MESSAGE } from "../../../src/agent/compaction/continuation.ts";
import { ollamaHarness } from "./ollama-harness.ts";

type ChatBody = { messages: Array<{ role: string; content: string }>; options: Record<string, number> };
const size = (b: ChatBody) => JSON.stringify(b.messages).length;
const bigFile = (project: string) => {
  const lines = Array.from({ length: 400 }, (_, i) => `export const value${i} = ${i}; // ${"detail ".repeat(6)}`);
  writeFileSync(join(project, "big.ts"), lines.join("\n"));
};

describe("overflow recovery", () => {
  test("a context-length 400 from Ollama: the history is shrunk and the request retried, and the turn finishes", async () => {
    const h = await ollamaHarness({
      replies: [
        { toolCalls: [{ name: "read", arguments: { path: "big.ts" } }] },
        { text: "I read it." },
        { status: 400, errorBody: JSON.stringify({ error: "the input length exceeds the context length" }) },
        { text: "after recovery" },
      ],
      env: { CHATCLI_CONTEXT_WINDOW: "200000" },
    });
    try {
      bigFile(h.project);
      await h.run("read big.ts");
      await h.run("now summarize it");
      // One event per recovery (shown as one line), no extra notice.
      expect(h.of("notice").some((n) => n.text.includes("recovery"))).toBe(false);
      expect(h.of("compaction").some((c) => c.trigger === "overflow" && c.summary.startsWith("overflow recovery 1/3"))).toBe(true);
      expect(h.of("error").length).toBe(0);
      const done = h.of("turn.completed");
      expect(done.map((d) => d.stopReason)).toEqual(["stop", "stop"]);
      const chats = h.fake.chatRequests() as ChatBody[];
      expect(chats.length).toBe(4);
      expect(size(chats[3]!)).toBeLessThan(size(chats[2]!));
      expect(h.wired.session.messages.at(-1)).toMatchObject({ role: "assistant", content: "after recovery" });
      // The user's request is still there after the shrink.
      expect(chats[3]!.messages.some((m) => m.role === "user" && m.content.startsWith("now summarize it"))).toBe(true);
    } finally {
      h.cleanup();
    }
  });

  test("413 every time: 3 recovery attempts, then a clear message, and the session stays usable", async () => {
    const tooLarge = { status: 413, errorBody: JSON.stringify({ error: "request entity too large" }) };
    const readTurn = [{ toolCalls: [{ name: "read", arguments: { path: "big.ts" } }] }, { text: "read" }];
    const h = await ollamaHarness({
      replies: [...readTurn, ...readTurn, ...readTurn, tooLarge, tooLarge, tooLarge, tooLarge, { text: "fine again" }],
      env: { CHATCLI_CONTEXT_WINDOW: "200000" },
    });
    try {
      bigFile(h.project);
      for (let i = 0; i < 3; i++) await h.run(`read big.ts (${i})`);
      await h.run("explain");
      const errors = h.of("error");
      expect(errors.length).toBe(1);
      expect(errors[0]!.message).toContain("no longer fits the model's context window");
      expect(errors[0]!.message).toContain("after 3 recovery attempts");
      expect(errors[0]!.error?.kind).toBe("payload_too_large");
      // Each attempt shrank something (halved budgets, keep 10, keep 4), so each was retried.
      expect(h.fake.chatRequests().length).toBe(6 + 4);
      expect(h.of("compaction").filter((c) => c.trigger === "overflow" && /recovery [123]\/3/.test(c.summary)).length).toBe(3);
      await h.run("try again");
      expect(h.wired.session.messages.at(-1)).toMatchObject({ role: "assistant", content: "fine again" });
    } finally {
      h.cleanup();
    }
  });
});

describe("continuation after a length stop", () => {
  test("the model is asked to resume with a doubled output limit; both parts become one message with one id", async () => {
    const h = await ollamaHarness({ replies: [{ text: "The first half, ", doneReason: "length" }, { text: "and the second half." }] });
    try {
      await h.run("write a long answer");
      const chats = h.fake.chatRequests() as ChatBody[];
      expect(chats.length).toBe(2);
      const cont = chats[1]!;
      expect(cont.messages.at(-2)).toMatchObject({ role: "assistant", content: "The first half, " });
      expect(cont.messages.at(-1)).toMatchObject({ role: "user", content: CONTINUATION_MESSAGE });
      expect(cont.options.num_predict).toBe(4096); // 2 × the assumed 4,096, capped at half the 8K window
      const completed = h.of("message.completed");
      expect(completed.length).toBe(1);
      expect(completed[0]!.message.content).toBe("The first half, and the second half.");
      const ids = new Set(h.of("message.delta").map((d) => d.messageId));
      expect(ids.size).toBe(1);
      expect(ids.has(completed[0]!.messageId)).toBe(true);
      expect(h.of("message.delta").map((d) => d.text ?? "").join("")).toBe("The first half, and the second half.");
      const history = h.wired.session.messages;
      expect(history.filter((m) => m.role === "assistant").length).toBe(1);
      expect(history.some((m) => m.content === CONTINUATION_MESSAGE)).toBe(false);
    } finally {
      h.cleanup();
    }
  });

  test("at most 2 continuations: a reply that keeps hitting the limit ends after the third part", async () => {
    const cut = { text: "more ", doneReason: "length" };
    const h = await ollamaHarness({ replies: [cut, cut, cut, { text: "never asked" }] });
    try {
      await h.run("go");
      expect(h.fake.chatRequests().length).toBe(3);
      expect(h.of("message.completed")[0]!.message.content).toBe("more more more ");
      expect(h.of("turn.completed")[0]!.stopReason).toBe("length");
    } finally {
      h.cleanup();
    }
  });
});

describe("the context meter (issue 15)", () => {
  test("a reasoning model's thinking is kept in the history but not counted: no wire sends it back", async () => {
    const h = await ollamaHarness({
      replies: [{ thinking: [`${"let me think about this carefully ".repeat(1_200)}`], text: "The answer is 42." }, { text: "Still 42." }],
      env: { CHATCLI_CONTEXT_WINDOW: "32768" },
    });
    try {
      await h.run("what is the answer?");
      const assistant = h.wired.session.messages.at(-1);
      expect(assistant?.role === "assistant" && (assistant.thinking?.length ?? 0) > 30_000).toBe(true);
      const meter = h.of("turn.completed").at(-1)!.contextTokens;
      // What the next request really carries: the fake Ollama receives it, thinking left out.
      await h.run("and again?");
      const last = h.fake.chatRequests().at(-1) as ChatBody & { tools?: unknown };
      expect(JSON.stringify(last.messages)).not.toContain("let me think");
      // The thinking alone is ~10k tokens; the request (messages and tool definitions, as JSON) is far less.
      const carried = JSON.stringify({ messages: last.messages, tools: last.tools }).length / 4;
      expect(carried).toBeLessThan(5_000);
      expect(meter).toBeLessThan(carried + 200);
      expect(h.of("compaction")).toEqual([]);
    } finally {
      h.cleanup();
    }
  });
});
