/**
 * The builtin tool list and name lookup. Models call tools by many names (read_file, bash, grep, ls, …); `findTool`
 * maps the common ones onto ours, case-insensitively, ignoring a leading `@` and `-`/`_` differences.
 * (The `@coder` subcommand form is translated by the agent's tool-call parser, not here.)
 */
import { editTool } from "./builtin/edit.ts";
import { execTool } from "./builtin/exec.ts";
import { globTool } from "./builtin/glob.ts";
import { readTool } from "./builtin/read.ts";
import { searchTool } from "./builtin/search.ts";
import { todoTool } from "./builtin/todo.ts";
import { treeTool } from "./builtin/tree.ts";
import { writeTool } from "./builtin/write.ts";
import type { ToolDefinition } from "./tool.ts";

const BUILTINS: readonly ToolDefinition[] = [readTool, writeTool, editTool, execTool, searchTool, treeTool, globTool, todoTool];

/** Alternative names → canonical tool name. Keys are normalized (lower case, `-` → `_`). */
export const TOOL_ALIASES: Readonly<Record<string, string>> = {
  read_file: "read",
  readfile: "read",
  view: "read",
  view_file: "read",
  cat: "read",
  open_file: "read",
  write_file: "write",
  writefile: "write",
  create_file: "write",
  write_to_file: "write",
  save_file: "write",
  edit_file: "edit",
  str_replace: "edit",
  str_replace_editor: "edit",
  replace: "edit",
  replace_in_file: "edit",
  apply_diff: "edit",
  search_replace: "edit",
  patch: "edit",
  multi_edit: "edit",
  multiedit: "edit",
  apply_edit: "edit",
  bash: "exec",
  shell: "exec",
  sh: "exec",
  run: "exec",
  run_command: "exec",
  run_shell_command: "exec",
  run_terminal_cmd: "exec",
  execute_bash: "exec",
  shell_exec: "exec",
  execute: "exec",
  execute_command: "exec",
  terminal: "exec",
  command: "exec",
  grep: "search",
  rg: "search",
  ripgrep: "search",
  search_files: "search",
  search_file_content: "search",
  grep_search: "search",
  search_code: "search",
  find_in_files: "search",
  code_search: "search",
  list: "tree",
  ls: "tree",
  list_dir: "tree",
  list_directory: "tree",
  list_files: "tree",
  dir: "tree",
  directory_tree: "tree",
  find: "glob",
  find_files: "glob",
  file_search: "glob",
  glob_files: "glob",
  todo_write: "todo",
  todowrite: "todo",
  write_todos: "todo",
  update_todos: "todo",
  todos: "todo",
  update_plan: "todo",
  // The fetch tool is registered only when web fetch is on (src/tool/web/fetch-tool.ts); "fetch" is listed so the
  // text protocol knows the name.
  fetch: "fetch",
  web_fetch: "fetch",
  webfetch: "fetch",
  fetch_url: "fetch",
  url_fetch: "fetch",
  read_url: "fetch",
};

export function builtinTools(): ToolDefinition[] {
  return [...BUILTINS];
}

export function normalizeToolName(name: string): string {
  return name.trim().replace(/^@/, "").toLowerCase().replace(/-/g, "_");
}

/** The tool for a name or alias, from `tools` (default: the builtins). */
export function findTool(name: string, tools: readonly ToolDefinition[] = BUILTINS): ToolDefinition | undefined {
  const key = normalizeToolName(name);
  const direct = tools.find((t) => t.name === key);
  if (direct) return direct;
  const canonical = TOOL_ALIASES[key];
  return canonical ? tools.find((t) => t.name === canonical) : undefined;
}

/**
 * The title a call was shown with live (`read src/a.ts`), rebuilt from its recorded JSON arguments: used when a
 * transcript is redrawn from a history (compaction, rewind). An unknown tool or unreadable arguments give the name.
 */
export function callTitle(name: string, argumentsJson: string): string {
  const tool = findTool(name);
  if (!tool) return name;
  try {
    return tool.describe(JSON.parse(argumentsJson) as unknown);
  } catch {
    return tool.name;
  }
}

/** Our name for a tool the model called by another (`read_file` → `read`); an unknown name as it is. */
export function canonicalToolName(name: string): string {
  return findTool(name)?.name ?? name;
}
