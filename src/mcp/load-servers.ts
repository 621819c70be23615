/**
 * The effective MCP server set of a session: `mcpServers` of the user's settings (scope "user"), the project's
 * `.mcp.json` (scope "project": repository content, started only once approved, see approvals.ts) and each
 * `--mcp-config FILE` (scope "cli"; a file path or inline JSON). A later source replaces an earlier entry of the
 * same name (user < project < cli). `--strict-mcp-config` uses the `--mcp-config` servers only.
 *
 * Costs a session without MCP one stat (`.mcp.json`). An invalid entry is skipped with a warning naming it; an
 * unreadable or invalid `--mcp-config` throws McpConfigError (the user asked for it: a usage error).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { mcpServerSchema, type McpServerConfig, type McpServers, type McpServerScope } from "./server-config.ts";

export const PROJECT_MCP_FILE = ".mcp.json";

export interface McpServerSpec {
  name: string;
  entry: McpServerConfig;
  scope: McpServerScope;
  /** The file it came from (settings.json, .mcp.json, the --mcp-config file; "(inline)" for inline JSON). */
  source: string;
}

export interface LoadMcpOptions {
  /** `mcpServers` of the user's settings.json (never the project's: load-config refuses those). */
  userServers: McpServers | undefined;
  userFile: string;
  projectRoot: string;
  cwd: string;
  /** `--mcp-config` values: file paths or inline JSON objects. */
  configFiles: readonly string[];
  strict: boolean;
}

export interface LoadedMcpServers {
  servers: McpServerSpec[];
  /** English lines for the log and a notice (invalid entries skipped). */
  warnings: string[];
}

export class McpConfigError extends Error {
  override name = "McpConfigError";
}

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function loadMcpServers(o: LoadMcpOptions): LoadedMcpServers {
  const warnings: string[] = [];
  const byName = new Map<string, McpServerSpec>();
  const add = (servers: Record<string, unknown>, scope: McpServerScope, source: string) => {
    for (const [name, raw] of Object.entries(servers)) {
      if (!NAME_RE.test(name)) {
        warnings.push(`MCP server "${name}" in ${source} skipped: a name may only hold letters, digits, "_" and "-" (at most 64)`);
        continue;
      }
      const parsed = mcpServerSchema.safeParse(raw);
      if (!parsed.success) {
        warnings.push(`MCP server "${name}" in ${source} skipped: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")}`);
        continue;
      }
      byName.delete(name); // a later source's entry takes the place (and the order) of an earlier one
      byName.set(name, { name, entry: parsed.data, scope, source });
    }
  };
  if (!o.strict) {
    if (o.userServers) add(o.userServers, "user", o.userFile);
    const projectFile = join(o.projectRoot, PROJECT_MCP_FILE);
    if (existsSync(projectFile)) {
      const servers = readServersFile(projectFile, warnings);
      if (servers) add(servers, "project", projectFile);
    }
  }
  for (const value of o.configFiles) {
    const { servers, source } = readCliConfig(value, o.cwd);
    add(servers, "cli", source);
  }
  return { servers: [...byName.values()], warnings };
}

/** `{ "mcpServers": {...} }` (Claude Code, Cursor) or a bare object of servers. */
function serversOf(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const obj = json as Record<string, unknown>;
  const inner = obj.mcpServers ?? obj.servers;
  if (inner !== undefined) return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
  return obj;
}

function readServersFile(file: string, warnings: string[]): Record<string, unknown> | undefined {
  try {
    const servers = serversOf(JSON.parse(readFileSync(file, "utf8")) as unknown);
    if (!servers) warnings.push(`${file}: no "mcpServers" object; ignored`);
    return servers;
  } catch (err) {
    warnings.push(`${file} could not be read: ${err instanceof Error ? err.message : String(err)}; ignored`);
    return undefined;
  }
}

function readCliConfig(value: string, cwd: string): { servers: Record<string, unknown>; source: string } {
  const trimmed = value.trim();
  const inline = trimmed.startsWith("{");
  const source = inline ? "(inline --mcp-config)" : resolve(cwd, value);
  let json: unknown;
  try {
    json = JSON.parse(inline ? trimmed : readFileSync(source, "utf8")) as unknown;
  } catch (err) {
    throw new McpConfigError(`--mcp-config ${inline ? "(inline JSON)" : source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const servers = serversOf(json);
  if (!servers) throw new McpConfigError(`--mcp-config ${source}: expected an object with "mcpServers"`);
  return { servers, source };
}
