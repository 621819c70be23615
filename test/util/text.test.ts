import { expect, test } from "bun:test";
import { headToLine, tailFromLine } from "../../src/util/text.ts";

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
