import { describe, expect, test } from "bun:test";
import { sanitizeToolArgs } from "../../src/agent/arg-sanitizer.ts";
import {
  normalizeSpacesOutsideQuotes,
  processLineContinuations,
  sanitizeCliArgs,
  splitCliArgs,
} from "../../src/agent/toolcall/cli-args.ts";
import { parseLenientJson } from "../../src/agent/toolcall/lenient-json.ts";

describe("sanitizeToolArgs: valid JSON is never altered (reference flaw #9)", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [String.raw`{"content":"x := \"a   b\""}`, { content: 'x := "a   b"' }],
    [String.raw`{"cmd":"echo \"a\\b\"  |  tr a b"}`, { cmd: 'echo "a\\b"  |  tr a b' }],
    [`{"content":"&quot;kept&quot; &amp; &lt;p&gt;"}`, { content: "&quot;kept&quot; &amp; &lt;p&gt;" }],
    [String.raw`{"content":"line1\r\nline2\\\nline3 \\"}`, { content: "line1\r\nline2\\\nline3 \\" }],
    [`{"content":"tabs\\t\\tand    spaces"}`, { content: "tabs\t\tand    spaces" }],
  ];
  for (const source of ["text", "native"] as const) {
    for (const [raw, want] of cases) {
      test(`${source}: ${raw}`, () => {
        const r = sanitizeToolArgs(raw, source);
        expect(r.value).toEqual(want);
        expect(r.repaired).toBe(false);
        expect(r.error).toBeUndefined();
      });
    }
  }

  test("repairing broken JSON keeps string content byte for byte", () => {
    const r = sanitizeToolArgs(String.raw`{"content":"x := \"a   b\"  \\n", "path": 'm.go',}`, "text");
    expect(r.value).toEqual({ content: 'x := "a   b"  \\n', path: "m.go" });
    expect(r.repaired).toBe(true);
  });
});

describe("sanitizeToolArgs: native does structural repairs only", () => {
  test("empty is an empty object", () => {
    expect(sanitizeToolArgs("", "native")).toEqual({ value: {}, repaired: false });
    expect(sanitizeToolArgs("  ", "text")).toEqual({ value: {}, repaired: false });
  });
  test("trailing commas", () => {
    expect(sanitizeToolArgs(`{"a":[1,2,],}`, "native")).toEqual({ value: { a: [1, 2] }, repaired: true });
  });
  test("trailing garbage", () => {
    expect(sanitizeToolArgs(`{"a":1}}`, "native")).toEqual({ value: { a: 1 }, repaired: true });
    expect(sanitizeToolArgs(`{"a":1} <|end|>`, "native").value).toEqual({ a: 1 });
  });
  test("truncated closing braces and string", () => {
    expect(sanitizeToolArgs(`{"a":{"b":"c"`, "native").value).toEqual({ a: { b: "c" } });
    expect(sanitizeToolArgs(`{"a":"unterminated`, "native").value).toEqual({ a: "unterminated" });
  });
  test("double-encoded arguments string", () => {
    expect(sanitizeToolArgs(JSON.stringify(JSON.stringify({ path: "a" })), "native")).toEqual({ value: { path: "a" }, repaired: true });
  });
  test("no entity decoding, single-quote or CLI fixes", () => {
    expect(sanitizeToolArgs(`{&quot;a&quot;:1}`, "native").value).toBeUndefined();
    expect(sanitizeToolArgs(`{'a': 'b'}`, "native").value).toBeUndefined();
    expect(sanitizeToolArgs(`--path a.ts`, "native").value).toBeUndefined();
    expect(sanitizeToolArgs(`{"a":"x"} `, "native").value).toEqual({ a: "x" });
  });
  test("non-objects are errors", () => {
    const r = sanitizeToolArgs(`[1,2]`, "native");
    expect(r.value).toBeUndefined();
    expect(r.error).toContain("array");
  });
});

describe("sanitizeToolArgs: text applies the seed pipeline", () => {
  test("entity unescape when the quotes are escaped", () => {
    expect(sanitizeToolArgs(`{&quot;path&quot;:&quot;a &amp; b.txt&quot;}`, "text")).toEqual({
      value: { path: "a & b.txt" },
      repaired: true,
    });
    expect(sanitizeToolArgs(`{&#34;n&#34;:&#x27;x&#x27;}`, "text").value).toEqual({ n: "x" });
  });
  test("entities without escaped quotes are content", () => {
    expect(sanitizeToolArgs(`{'c': 'a &amp; b'}`, "text").value).toEqual({ c: "a &amp; b" });
  });
  test("CRLF outside and inside strings", () => {
    expect(sanitizeToolArgs(`{\r\n"a": "x\r\ny"\r\n}`, "text").value).toEqual({ a: "x\ny" });
  });
  test("line continuations outside strings", () => {
    expect(sanitizeToolArgs(`{"a": 1, \\\n "b": 2}`, "text").value).toEqual({ a: 1, b: 2 });
  });
  test("JSON escaped as a string", () => {
    expect(sanitizeToolArgs(String.raw`{\"path\":\"a.ts\",\"n\":2}`, "text").value).toEqual({ path: "a.ts", n: 2 });
    expect(sanitizeToolArgs(String.raw`"{\"path\":\"a.ts\"}"`, "text").value).toEqual({ path: "a.ts" });
  });
  test("unbalanced quotes and a trailing backslash", () => {
    expect(sanitizeToolArgs(`{"command":"ls -la\\`, "text").value).toEqual({ command: "ls -la" });
    expect(sanitizeToolArgs(`{"command":"ls -la}`, "text").value).toEqual({ command: "ls -la" });
  });
  test("unescaped inner quotes", () => {
    expect(sanitizeToolArgs(`{"content":"say "hi" now", "path":"a"}`, "text").value).toEqual({ content: 'say "hi" now', path: "a" });
  });
  test("single quotes, unquoted keys, python literals", () => {
    expect(sanitizeToolArgs(`{'a': 'it\\'s', b: True, c: None}`, "text").value).toEqual({ a: "it's", b: true, c: null });
  });
  test("invalid escapes (Windows paths) keep the backslash", () => {
    expect(sanitizeToolArgs(String.raw`{"path":"C:\Users\dev\a.go"}`, "text").value).toEqual({ path: String.raw`C:\Users\dev\a.go` });
    // valid escapes keep their JSON meaning: this is a tab and a newline, as JSON.parse says
    expect(sanitizeToolArgs(String.raw`{"path":"C:\temp\new"}`, "text").value).toEqual({ path: "C:\temp\new" });
  });
  test("a leading label", () => {
    expect(sanitizeToolArgs(`args: {"a": 1}`, "text").value).toEqual({ a: 1 });
  });
  test("flag strings become objects", () => {
    expect(sanitizeToolArgs(`--path "my file.ts" --recursive`, "text").value).toEqual({ path: "my file.ts", recursive: true });
  });
  test("garbage is an error, never a throw", () => {
    for (const s of ["not json at all", "{:::}", "[", "\\", "'''", "{\"a\":"]) {
      const r = sanitizeToolArgs(s, "text");
      if (r.value === undefined) expect(typeof r.error).toBe("string");
    }
    expect(sanitizeToolArgs("not json at all", "text").error).toBeDefined();
  });
});

describe("CLI pipeline (@coder alias only)", () => {
  test("line continuations: a space outside quotes, removed inside", () => {
    expect(processLineContinuations("a \\\nb '1\\\n2'")).toBe("a  b '12'");
  });
  test("space collapsing honours escaped quotes", () => {
    expect(normalizeSpacesOutsideQuotes(String.raw`--x   "a \"  b\"   c"   --y`)).toBe(String.raw`--x "a \"  b\"   c" --y`);
  });
  test("the whole pipeline", () => {
    expect(sanitizeCliArgs("exec  --cmd &quot;ls  -la&quot; \\\r\n --dir src \\")).toBe(`exec --cmd "ls  -la" --dir src`);
    expect(sanitizeCliArgs(`write --content "abc\\`)).toBe(`write --content "abc"`);
    expect(sanitizeCliArgs(`search --term \\ "v"`)).toBe(`search --term "v"`);
  });
  test("shell-like split", () => {
    expect(splitCliArgs(`read --file "a b.go" --x 'c d' e\\ f C:\\dir`)).toEqual(["read", "--file", "a b.go", "--x", "c d", "e f", "C:\\dir"]);
  });
});

describe("lenient JSON extent", () => {
  test("stops at the end of the value in a longer text", () => {
    const s = `{"name":"read","arguments":{"path":"a"}} and then prose`;
    const r = parseLenientJson(s, "loose");
    expect(r.ok && s.slice(0, r.end)).toBe(`{"name":"read","arguments":{"path":"a"}}`);
  });
  test("a missing outer brace before prose closes the object there", () => {
    const s = `{"name":"read","arguments":{"path":"a"}\nI'll wait.`;
    const r = parseLenientJson(s, "loose");
    expect(r.ok && r.value).toEqual({ name: "read", arguments: { path: "a" } });
    expect(r.ok && s.slice(r.end).trim()).toBe("I'll wait.");
  });
  test("deep nesting fails cleanly", () => {
    expect(parseLenientJson("[".repeat(5000), "loose").ok).toBe(false);
  });
});
