import { describe, expect, test } from "bun:test";
import { parseToml, TomlError } from "../../src/mcp/import/toml-lite.ts";

describe("parseToml (the subset config files use)", () => {
  test("tables, quoted and dotted keys, inline tables, arrays of tables", () => {
    const doc = parseToml(`
top = "x" # comment
a.b.c = 1
[srv."my.name"]
cmd = 'C:\\path\\no-escape'
env = { "K" = "v", nested.x = true }
[srv."my.name".more]
n = -1_000
f = 6.5e1
[[list]]
v = 1
[[list]]
v = 2
[list.sub]
w = 3
when = 1979-05-27T07:32:00Z
`);
    expect(doc).toEqual({
      top: "x",
      a: { b: { c: 1 } },
      srv: { "my.name": { cmd: "C:\\path\\no-escape", env: { K: "v", nested: { x: true } }, more: { n: -1000, f: 65 } } },
      list: [{ v: 1 }, { v: 2, sub: { w: 3, when: "1979-05-27T07:32:00Z" } }],
    });
  });

  test("strings: escapes, unicode, multi-line basic (line-ending backslash) and literal", () => {
    const doc = parseToml('a = "tab\\there \\"q\\" \\u00e9"\nb = """\none \\\n   two"""\nc = \'\'\'\nraw \\n\'\'\'\nd = """x""""\n');
    expect(doc).toEqual({ a: 'tab\there "q" é', b: "one two", c: "raw \\n", d: 'x"' });
  });

  test("arrays span lines, hold comments and a trailing comma", () => {
    expect(parseToml('args = [\n  "a", # one\n  ["b", 2],\n]\n')).toEqual({ args: ["a", ["b", 2]] });
  });

  test("what it cannot read is an error naming the line", () => {
    expect(() => parseToml('ok = 1\nbad = "unterminated\n')).toThrow(TomlError);
    expect(() => parseToml('ok = 1\nbad = "unterminated\n')).toThrow(/line 2/);
    expect(() => parseToml("x = nope\n")).toThrow(/cannot read value nope/);
    expect(() => parseToml("x = 1 y = 2\n")).toThrow(/line 1/);
    expect(() => parseToml("x = 1\n[x]\n")).toThrow(/not a table/);
  });
});
