import { describe, expect, test } from "bun:test";
import { ThinkSplitter, type SplitPiece } from "../../src/llm/think-splitter.ts";

/** Feeds the chunks, then ends; returns the joined answer and thinking text. */
function split(chunks: string[]): { text: string; thinking: string; pieces: SplitPiece[] } {
  const s = new ThinkSplitter();
  const pieces = [...chunks.flatMap((c) => s.push(c)), ...s.end()];
  return {
    text: pieces.filter((p) => p.kind === "text").map((p) => p.text).join(""),
    thinking: pieces.filter((p) => p.kind === "thinking").map((p) => p.text).join(""),
    pieces,
  };
}

describe("ThinkSplitter", () => {
  test("tags split across chunks, one character at a time", () => {
    const whole = "<think>weigh it</think>The answer.";
    expect(split([...whole])).toMatchObject({ text: "The answer.", thinking: "weigh it" });
  });

  test("a partial tag is held back, never shown, until the next chunk decides it", () => {
    const s = new ThinkSplitter();
    expect(s.push("Hi <thi")).toEqual([{ kind: "text", text: "Hi " }]);
    expect(s.push("nking>x")).toEqual([{ kind: "thinking", text: "x" }]);
    expect(s.push("</thinking")).toEqual([]);
    expect(s.push("> a <b>")).toEqual([{ kind: "text", text: " a <b>" }]);
    // A held-back prefix that turns out not to be a tag comes out as answer text.
    expect(s.push("<th")).toEqual([]);
    expect(s.push("e end")).toEqual([{ kind: "text", text: "<the end" }]);
  });

  test("unclosed think at the end of the stream is thinking", () => {
    expect(split(["<think>still going", " and cut off"])).toMatchObject({ text: "", thinking: "still going and cut off" });
  });

  test("text before the tag stays answer text", () => {
    expect(split(["Sure.\n<think>plan", "</think>Done."])).toMatchObject({ text: "Sure.\nDone.", thinking: "plan" });
  });

  test("<thinking> and upper case; a block closes only with its own tag", () => {
    expect(split(["<THINKING>a</think>b</Thinking>answer"])).toMatchObject({ text: "answer", thinking: "a</think>b" });
  });

  test("a closing tag without an opening one (the template put <think> in the prompt) never reaches the answer", () => {
    const r = split(["reasoning here</th", "ink>\n\nThe answer."]);
    expect(r.text).toBe("reasoning here\n\nThe answer.");
    expect(r.text).not.toContain("think>");
  });

  test("two think blocks in one answer", () => {
    expect(split(["<think>a</think>one <think>b</think>two"])).toMatchObject({ text: "one two", thinking: "ab" });
  });

  test("tags inside Markdown code are answer text (inline spans and fenced blocks)", () => {
    const inline = "Strip them with `s.replace(/<think>[\\s\\S]*?<\\/think>/g, \"\")` and you are done.";
    expect(split([inline])).toMatchObject({ text: inline, thinking: "" });
    const fenced = "Example:\n```xml\n<think>\nplan\n</think>\n```\nAfter the block <think>real</think>end";
    expect(split([...fenced])).toMatchObject({ text: "Example:\n```xml\n<think>\nplan\n</think>\n```\nAfter the block end", thinking: "real" });
  });
});
