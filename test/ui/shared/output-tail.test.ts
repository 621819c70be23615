import { expect, test } from "bun:test";
import { appendTail, EMPTY_TAIL, tailOf, type OutputTail } from "../../../src/ui/shared/output-tail.ts";

test("a tail keeps the last chars at a line start and counts every dropped char and line, whatever the chunking", () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
  const text = lines.join("\n") + "\n";
  for (const size of [1, 7, 100, 4096, text.length]) {
    let tail: OutputTail = EMPTY_TAIL;
    for (let i = 0; i < text.length; i += size) tail = appendTail(tail, text.slice(i, i + size), 1000);
    expect(tail.text.length).toBeLessThanOrEqual(1000);
    expect(tail.text.length).toBeGreaterThan(500);
    // Nothing lost, nothing duplicated: dropped + kept is the whole output.
    expect(tail.droppedChars + tail.text.length).toBe(text.length);
    expect(text.endsWith(tail.text)).toBe(true);
    expect(tail.droppedLines).toBe(text.slice(0, tail.droppedChars).split("\n").length - 1);
    expect(tail.text.startsWith("line ")).toBe(true);
  }
});

test("short output is kept whole; a surrogate pair is never cut", () => {
  expect(tailOf("a\nb\n")).toEqual({ text: "a\nb\n", droppedChars: 0, droppedLines: 0 });
  const t = tailOf("😀".repeat(600), 1001);
  expect(t.text.length).toBe(1000);
  expect(t.text.codePointAt(0)).toBe(0x1f600);
  expect(t.droppedChars + t.text.length).toBe(1200);
});
