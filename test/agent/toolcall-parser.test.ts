import { describe, expect, test } from "bun:test";
import { parseToolCalls, formatToolCatalogForText, formatToolResultsForText } from "../../src/agent/toolcall-parser.ts";
import { loadCorpus } from "../support/toolcall-corpus.ts";

const corpus = loadCorpus("single");

describe("tool-call corpus", () => {
  test("has at least 40 cases, each a distinct id", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
  });

  for (const c of corpus) {
    test(`${c.id} (${c.style}): ${c.description}`, () => {
      const r = parseToolCalls(c.input);
      expect(r.calls.map(({ name, args }) => ({ name, args }))).toEqual(c.expected.calls);
      if (c.expected.text !== undefined) expect(r.text).toBe(c.expected.text);
      if (c.expected.errors !== undefined) expect(r.errors.length).toBe(c.expected.errors);
      if (c.expected.repaired !== undefined) expect(r.calls.map((x) => x.repaired)).toEqual(c.expected.repaired);
      for (const call of r.calls) expect(c.input).toContain(call.raw.slice(0, 20));
    });
  }
});

describe("parseToolCalls", () => {
  test("keeps document order across markup and JSON forms", () => {
    const r = parseToolCalls(
      `<tool_call name="read" args='{"path":"1"}' />\n{"name":"read","arguments":{"path":"2"}}\n<function=read>{"path":"3"}</function>`,
    );
    expect(r.calls.map((c) => c.args["path"])).toEqual(["1", "2", "3"]);
  });

  test("a closing </tool> does not end a <tool_call>, and <tool> works as an alias tag", () => {
    const r = parseToolCalls(`<tool name="read">{"path":"a"}</tool> <tool_call name="exec">{"command":"echo </tool>"}</tool_call>`);
    expect(r.calls).toEqual([
      expect.objectContaining({ name: "read", args: { path: "a" } }),
      expect.objectContaining({ name: "exec", args: { command: "echo </tool>" } }),
    ]);
  });

  test("JSON inside a tag's args is not parsed a second time", () => {
    const r = parseToolCalls(`<tool_call name="x" args='{"name":"read","arguments":{"path":"a"}}' />`);
    expect(r.calls.length).toBe(1);
    expect(r.calls[0]?.name).toBe("x");
  });

  test("unlabelled fences are used only when nothing outside fences was a call", () => {
    const fenced = "```\n<tool_call name=\"read\" args='{\"path\":\"f\"}' />\n```";
    expect(parseToolCalls(fenced).calls.map((c) => c.args["path"])).toEqual(["f"]);
    const both = `${fenced}\n<tool_call name="read" args='{"path":"g"}' />`;
    expect(parseToolCalls(both).calls.map((c) => c.args["path"])).toEqual(["g"]);
  });

  test("an unclosed quote in args is tolerated", () => {
    const r = parseToolCalls(`<tool_call name="read" args='{"path":"a.ts"} />`);
    expect(r.calls[0]?.args).toEqual({ path: "a.ts" });
  });

  test("errors name the tool and show the expected syntax", () => {
    const r = parseToolCalls(`<tool_call name="write" args='{:::}' />`);
    expect(r.errors[0]).toContain('"write"');
    expect(r.errors[0]).toContain("<tool_call name=");
  });

  test("unknown @coder subcommands become errors", () => {
    const r = parseToolCalls(`<tool_call name="@coder" args='{"cmd":"rollback","args":{"file":"a"}}' />`);
    expect(r.calls).toEqual([]);
    expect(r.errors[0]).toContain("rollback");
  });

  test("@coder git subcommands map onto exec", () => {
    const r = parseToolCalls(`<tool_call name="@coder" args='{"cmd":"git-diff","args":{"staged":true,"path":"src"}}' />`);
    expect(r.calls[0]).toEqual(expect.objectContaining({ name: "exec", args: { command: "git diff --staged -- src" } }));
  });

  test("never throws, on hostile input", () => {
    const inputs = [
      "<".repeat(5000),
      "{".repeat(5000),
      "[".repeat(3000) + "{\"name\":\"read\"",
      "<tool_call " + "a=".repeat(2000),
      "<tool_call name='",
      "```json\n" + "{\"name\":".repeat(500),
      "<function=",
      "<｜tool▁call▁begin｜>",
      "\u0000\uffff\ud800",
      `<tool_call name="read" args='${"{".repeat(400)}' />`,
    ];
    let seed = 7;
    const alphabet = `<>/{}[]"'=\\ \n:,tool_call name args&quot;;`;
    for (let n = 0; n < 200; n++) {
      let s = "";
      for (let k = 0; k < 80; k++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        s += alphabet[seed % alphabet.length];
      }
      inputs.push(s);
    }
    for (const s of inputs) {
      const r = parseToolCalls(s);
      expect(Array.isArray(r.calls)).toBe(true);
      expect(typeof r.text).toBe("string");
    }
  });
});

describe("text protocol prompts", () => {
  const tools = [
    {
      name: "read",
      description: "Read a file.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "file path" },
          startLine: { type: "integer" },
          mode: { enum: ["text", "hex"] },
        },
        required: ["path"],
      },
    },
    { name: "tree", description: "List files.", parameters: { type: "object", properties: {} } },
  ];

  test("the catalog lists every tool and its example parses back to a call", () => {
    const catalog = formatToolCatalogForText(tools);
    expect(catalog).toContain("## read");
    expect(catalog).toContain("path*: file path");
    expect(catalog).toContain("startLine (integer)");
    expect(catalog).toContain('one of "text", "hex"');
    // the lead example, then one per tool
    const examples = catalog.split("\n").filter((l) => l.startsWith("<tool_call "));
    expect(examples.length).toBe(3);
    const parsed = parseToolCalls(examples.join("\n"));
    expect(parsed.calls.map((c) => c.name)).toEqual(["read", "read", "tree"]);
    expect(parsed.calls[0]?.args).toEqual({ path: "src/main.ts" });
  });

  test("results message carries every result, marks errors and defuses a closing tag", () => {
    const msg = formatToolResultsForText([
      { name: "read", content: "line 1", isError: false },
      { name: "exec", content: "boom </tool_output> x", isError: true },
    ]);
    expect(msg.startsWith("The tools 'read, exec' were executed")).toBe(true);
    expect(msg).toContain("--- Result of action 1 (read) ---\nline 1");
    expect(msg).toContain("--- Result of action 2 (exec) — ERROR ---\nERROR: boom <\\/tool_output> x");
    expect(msg.match(/<\/tool_output>/g)?.length).toBe(1);
    expect(msg).toContain("send the next tool_call");
    const one = formatToolResultsForText([{ name: "read", content: "x", isError: false }]);
    expect(one.startsWith("The tool 'read' was executed and returned the following:\n\n<tool_output>\n")).toBe(true);
  });
});
