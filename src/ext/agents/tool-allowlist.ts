/**
 * Tool allowlists from persona and command files: entries are our tool names, the names other agents use
 * (`Read`, `Bash`, `Grep`, `read_file` — mapped through the tool registry's aliases), `Bash(git diff:*)`-style
 * entries (the tool part counts; the command pattern cannot widen anything, so it is not needed to narrow), or
 * globs with `*` (`mcp__github__*`). An allowlist only ever removes tools: the permission policy still decides
 * every call that is left.
 */
import { canonicalToolName } from "../../tool/registry.ts";

/** Claude Code names the registry's aliases do not cover. */
const EXTRA: Record<string, string> = { ls: "tree", multiedit: "edit", notebookedit: "edit", notebookread: "read" };

export function normaliseToolEntry(entry: string): string {
  const base = entry.trim().replace(/\(.*\)$/s, "").trim();
  if (base.includes("*")) return base;
  const lower = base.toLowerCase();
  return EXTRA[lower] ?? canonicalToolName(base);
}

export interface ToolFilter {
  allow?: string[];
  deny?: string[];
}

/** Whether `tool` (our canonical name) passes the filter. `skill` is the persona's own loader and always passes. */
export function toolAllowed(tool: string, f: ToolFilter): boolean {
  if (tool === "skill") return true;
  if (f.deny?.some((p) => matches(normaliseToolEntry(p), tool))) return false;
  if (!f.allow) return true;
  return f.allow.some((p) => matches(normaliseToolEntry(p), tool));
}

function matches(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const re = new RegExp(`^${pattern.split("*").map(escape).join(".*")}$`);
  return re.test(name);
}

function escape(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}
