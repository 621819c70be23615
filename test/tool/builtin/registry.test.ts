import { expect, test } from "bun:test";
import { builtinTools, findTool, TOOL_ALIASES } from "../../../src/tool/registry.ts";
import { createFetchTool } from "../../../src/tool/web/fetch-tool.ts";

test("builtin tools: names, caps, read-only flags, valid specs", () => {
  const tools = builtinTools();
  expect(tools.map((t) => t.name)).toEqual(["read", "write", "edit", "exec", "search", "tree", "glob", "todo"]);
  const caps = Object.fromEntries(tools.map((t) => [t.name, t.maxResultChars]));
  expect(caps).toEqual({ read: 80_000, write: 30_000, edit: 30_000, exec: 30_000, search: 60_000, tree: 50_000, glob: 30_000, todo: 30_000 });
  expect(tools.filter((t) => t.readOnly).map((t) => t.name)).toEqual(["read", "search", "tree", "glob", "todo"]);
  for (const t of tools) {
    const spec = t.spec();
    expect(spec.parameters.type).toBe("object");
    expect(spec.parameters.$schema).toBeUndefined();
    expect(spec.description.length).toBeGreaterThan(20);
  }
  // A copy each time: callers may filter it.
  expect(builtinTools()).not.toBe(tools);
});

test("findTool resolves names and aliases case-insensitively, with @ and dashes", () => {
  const cases: [string, string][] = [
    ["read", "read"],
    ["read_file", "read"],
    ["Read-File", "read"],
    ["@read", "read"],
    ["write_file", "write"],
    ["edit_file", "edit"],
    ["str_replace", "edit"],
    ["bash", "exec"],
    ["shell", "exec"],
    ["run_command", "exec"],
    ["grep", "search"],
    ["ls", "tree"],
    ["list", "tree"],
    ["list_dir", "tree"],
    ["find_files", "glob"],
  ];
  for (const [name, expected] of cases) expect(findTool(name)?.name).toBe(expected);
  expect(findTool("teleport")).toBeUndefined();
  // fetch is registered only when web fetch is on: its aliases resolve in a list that has it.
  const withFetch = [...builtinTools(), createFetchTool({ allowPrivateNetworks: false })];
  for (const target of Object.values(TOOL_ALIASES)) expect(findTool(target, withFetch)).toBeDefined();
  expect(findTool("web_fetch")).toBeUndefined();
  expect(findTool("web_fetch", withFetch)?.name).toBe("fetch");
});
