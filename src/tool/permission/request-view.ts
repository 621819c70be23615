/**
 * What permission.ts reads from a request: the tool's kind, the command line, the path, whether it is inside
 * the project, and the patterns an "always" answer would add.
 */
import { isAbsolute, posix, resolve } from "node:path";
import type { PermissionRequest } from "../permission.ts";
import { parseShell } from "../shell/parse-shell.ts";

// mcp_search (src/mcp/) reads only the local catalog of MCP tools.
const READ_TOOLS = new Set(["read", "search", "tree", "list", "glob", "mcp_search"]);
const WRITE_TOOLS = new Set(["write", "edit"]);
export type ToolKind = "read" | "write" | "exec" | "other";

export function toolKind(tool: string): ToolKind {
  if (tool === "exec") return "exec";
  if (READ_TOOLS.has(tool)) return "read";
  if (WRITE_TOOLS.has(tool)) return "write";
  return "other";
}

/** The command line of an exec request: `command` given by the host, or the `command` / `cmd` argument. */
export function commandOf(req: PermissionRequest): string | undefined {
  if (req.command !== undefined) return req.command;
  const c = req.args.command ?? req.args.cmd;
  return typeof c === "string" ? c : undefined;
}

/** The absolute path a file request names (its `path`, or the first of the usual path arguments). */
export function pathOf(req: PermissionRequest, projectRoot: string): string | undefined {
  // Relative to the session's project, never the process's cwd (a served session's project is not the server's cwd).
  if (req.path) return isAbsolute(req.path) ? resolve(req.path) : resolve(projectRoot, req.path);
  for (const key of ["path", "file", "file_path", "dir"]) {
    const v = req.args[key];
    if (typeof v === "string" && v !== "") return isAbsolute(v) ? resolve(v) : resolve(projectRoot, v);
  }
  return undefined;
}

export function insideProject(path: string, projectRoot: string): boolean {
  const rel = posix.relative(projectRoot, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !posix.isAbsolute(rel));
}

/** The rules an "always" answer would remember: one `exec …` per command of the line, or the tool and its path. */
export function suggestPatterns(req: PermissionRequest, ctx: { projectRoot: string }): string[] {
  const kind = toolKind(req.tool);
  if (kind === "exec") {
    const command = commandOf(req)?.trim() ?? "";
    const parse = parseShell(command);
    if (!parse.ok) return [`exec ${command.replace(/\s+/g, " ")}`];
    const out = parse.script.commands.filter((c) => c.argv.length > 0).map((c) => `exec ${c.argv.join(" ").replace(/\s+/g, " ")}`);
    return [...new Set(out)];
  }
  if (kind === "read" || kind === "write") {
    const path = pathOf(req, ctx.projectRoot);
    if (!path) return [req.tool];
    const rel = posix.relative(ctx.projectRoot, path);
    return [`${req.tool} ${insideProject(path, ctx.projectRoot) ? rel || "." : path}`];
  }
  return [req.tool];
}
