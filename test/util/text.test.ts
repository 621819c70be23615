import { describe, expect, test } from "bun:test";
import { headAtBoundary, headToLine, tailAtBoundary, tailFromLine } from "../../src/util/text.ts";
import { headTail } from "../../src/agent/compaction/blocks.ts";

test("headToLine cuts back to a line end in the second half, not in the first", () => {
  expect(headToLine("alpha\nbeta\ngamma delta", 14)).toBe("alpha\nbeta");
  // The only newline is in the first half: keep the raw cut rather than almost nothing.
  expect(headToLine("ab\ncdefghijklmnop", 12)).toBe("ab\ncdefghijk");
  expect(headToLine("one long line without breaks", 8)).toBe("one long");
  expect(headToLine("short", 50)).toBe("short");
});

test("tailFromLine starts after a newline in the first half, not in the second", () => {
  expect(tailFromLine("alpha beta\ngamma\ndelta", 14)).toBe("gamma\ndelta");
  expect(tailFromLine("abcdefghijklmnop\nqr", 12)).toBe("hijklmnop\nqr");
  expect(tailFromLine("one long line without breaks", 6)).toBe("breaks");
});

test("neither splits a surrogate pair", () => {
  const s = `x${"😀".repeat(4)}`;
  expect(headToLine(s, 4)).toBe("x😀");
  expect(tailFromLine(s, 3)).toBe("😀");
});

describe("cuts a person reads (issue 15: no mid-word cuts after a compaction)", () => {
  const prose = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
  test("head and tail end and start between words; a text with no space is still cut", () => {
    const head = headAtBoundary(prose, 1000);
    expect(head.length).toBeLessThanOrEqual(1000);
    expect(prose.startsWith(head)).toBe(true);
    expect(prose[head.length]).toBe(" ");
    const tail = tailAtBoundary(prose, 500);
    expect(prose.endsWith(tail)).toBe(true);
    expect(prose[prose.length - tail.length - 1]).toBe(" ");
    expect(headAtBoundary("x".repeat(50), 20)).toBe("x".repeat(20));
  });

  test("a line end wins over a space", () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i} of the output`).join("\n");
    expect(headAtBoundary(lines, 300).endsWith("of the output")).toBe(true);
    expect(tailAtBoundary(lines, 300).startsWith("line ")).toBe(true);
  });

  test("compaction's head-and-tail cut keeps whole words on both sides of its marker", () => {
    const cut = headTail(prose, 1000, 300, (n) => `\n[${n} omitted]\n`);
    const [before, after] = cut.split(/\n\[\d+ omitted\]\n/);
    expect(prose.startsWith(before!)).toBe(true);
    expect(prose.endsWith(after!)).toBe(true);
    expect(after).toMatch(/^word\d+ /);
    expect(before).toMatch(/ word\d+$/);
    expect(prose.split(" ")).toContain(before!.split(" ").at(-1)!);
  });
});
