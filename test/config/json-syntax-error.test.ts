import { describe, expect, test } from "bun:test";
import { findJsonSyntaxError } from "../../src/config/json-syntax-error.ts";

describe("findJsonSyntaxError", () => {
  test("valid JSON (every JSON.parse accepts) has no error", () => {
    for (const ok of ['{"a": [1, -2.5e+3, true, false, null, "x\\\\n\\\\u00e9"]}', "  []  ", '"s"', "0", '\uFEFF{"a":{}}']) {
      JSON.parse(ok.replace(/^\uFEFF/, ""));
      expect(findJsonSyntaxError(ok)).toBeNull();
    }
  });

  test("the first bad character, with 1-based line and column", () => {
    expect(findJsonSyntaxError('{\n  "a": 1,\n  b: 2\n}')).toEqual({ line: 3, column: 3, found: "b", expected: "key" });
    expect(findJsonSyntaxError('{"a": 1 "b": 2}')).toEqual({ line: 1, column: 9, found: '"', expected: 'token:"," or "}"' });
    expect(findJsonSyntaxError("[1, 2,]")).toEqual({ line: 1, column: 7, found: "]", expected: "value" });
    expect(findJsonSyntaxError('{"a": tru}')).toMatchObject({ line: 1, column: 10, expected: 'token:"true"' });
    expect(findJsonSyntaxError('{"a": 1}\n}')).toMatchObject({ line: 2, column: 1, found: "}", expected: "end" });
    expect(findJsonSyntaxError('{"a": "open')).toMatchObject({ line: 1, column: 12, found: null });
    expect(findJsonSyntaxError('{"a": 01}')).toMatchObject({ column: 8, found: "1" });
  });
});
