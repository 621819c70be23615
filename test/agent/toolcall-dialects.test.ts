import { describe, expect, test } from "bun:test";
import { parseToolCalls } from "../../src/agent/toolcall-parser.ts";
import { DIALECTS, DIALECT_TRIGGERS } from "../../src/agent/toolcall/dialects/registry.ts";
import { loadCorpus } from "../support/toolcall-corpus.ts";
import { findTool } from "../../src/tool/registry.ts";
import { argvToCommandLine } from "../../src/tool/builtin/argv-command.ts";

const dialectCases = loadCorpus("dialects");
const all = loadCorpus("all");

describe("dialect corpus", () => {
  test("≥ 150 cases, ≥ 30 negatives, distinct ids, every registered dialect covered", () => {
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(all.filter((c) => c.expected.calls.length === 0 && c.style === "negative").length).toBeGreaterThanOrEqual(30);
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    for (const d of DIALECTS) expect(dialectCases.some((c) => c.style === d.id)).toBe(true);
  });

  for (const c of dialectCases) {
    test(`${c.id} (${c.style}): ${c.description}`, () => {
      const r = parseToolCalls(c.input);
      expect(r.calls.map(({ name, args }) => ({ name, args }))).toEqual(c.expected.calls);
      if (c.expected.text !== undefined) expect(r.text).toBe(c.expected.text);
      if (c.expected.errors !== undefined) expect(r.errors.length).toBe(c.expected.errors);
      // the call says which dialect recognised it
      if (c.style !== "negative") for (const call of r.calls) expect(call.dialect).toBe(c.style);
    });
  }
});

describe("dialect behaviour", () => {
  test("a call to a tool we do not have keeps its own name (the host answers with an error), never another tool", () => {
    const r = parseToolCalls('<|channel|>commentary to=functions.browser_search<|message|>{"query":"x"}<|call|>');
    expect(r.calls.map((c) => c.name)).toEqual(["browser_search"]);
    expect(findTool("browser_search")).toBeUndefined();
  });

  test("a cline element whose name is not one of our tools stays prose", () => {
    const r = parseToolCalls("<ask_followup_question>\n<question>Which file?</question>\n</ask_followup_question>");
    expect(r.calls).toEqual([]);
  });

  test("python calls count only at a line start, alone on the line, and not inside unlabelled fences", () => {
    expect(parseToolCalls('Now: read(path="a")').calls).toEqual([]);
    expect(parseToolCalls('read(path="a") and more').calls).toEqual([]);
    expect(parseToolCalls('```\nread(path="a")\n```').calls).toEqual([]);
    expect(parseToolCalls('  read(path="a")  ').calls.map((c) => c.args)).toEqual([{ path: "a" }]);
  });

  test("an ```xml fence counts when it only wraps calls, or is the whole reply", () => {
    expect(parseToolCalls('```xml\n<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>\n```').calls.length).toBe(1);
    expect(parseToolCalls('Syntax:\n```xml\n<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>\n```').calls.length).toBe(0);
  });

  test("every dialect names at least one trigger or a line-start form, and triggers are lower case", () => {
    for (const t of DIALECT_TRIGGERS) expect(t).toBe(t.toLowerCase());
  });
});

describe("tool-name and argument aliases", () => {
  test("other agents' tool names map onto ours", () => {
    const map: Record<string, string> = { read_file: "read", run_shell_command: "exec", shell: "exec", bash: "exec", list_files: "tree", search_files: "search", str_replace_editor: "edit", apply_diff: "edit", write_to_file: "write" };
    for (const [alias, name] of Object.entries(map)) expect(findTool(alias)?.name).toBe(name);
  });

  test("argument aliases and argv arrays are normalised by the tools", () => {
    const exec = findTool("exec")!;
    const a = exec.prepare({ argv: ["git", "commit", "-m", "it's done"] });
    expect(a.ok && a.args["command"]).toBe("git commit -m 'it'\\''s done'");
    const b = exec.prepare({ command: ["bash", "-lc", "ls -la | head"] });
    expect(b.ok && b.args["command"]).toBe("ls -la | head");
    const edit = findTool("str_replace_editor")!;
    const e = edit.prepare({ file_path: "a.md", old_text: "teh", new_text: "the" });
    expect(e.ok && { path: e.args["path"], old: e.args["old_string"], new: e.args["new_string"] }).toEqual({ path: "a.md", old: "teh", new: "the" });
    const read = findTool("read_file")!;
    const r = read.prepare({ filename: "x.ts" });
    expect(r.ok && r.args["path"]).toBe("x.ts");
  });

  test("argv quoting keeps every word exactly", () => {
    expect(argvToCommandLine(["echo", "a b", "$HOME", ""])).toBe("echo 'a b' '$HOME' ''");
    expect(argvToCommandLine(["ls", 3])).toEqual(["ls", 3]);
  });
});
