/**
 * The files that hold `mcpServers`: the user's `~/.chatcli/settings.json` (scope "user") and a project's
 * `<project>/.mcp.json` (scope "project", repository content: its servers need approval). Reads never throw
 * (a broken file is reported with its error); writes change only `mcpServers`, keep every other key and the file's
 * indentation, and replace the file atomically (a temporary file in the same directory, fsynced, renamed), so a
 * crash never leaves half a settings file. The user file keeps its mode; a new one is 0600 (it may hold env secrets).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { mcpServerSchema, mcpServersSchema, type McpServerConfig } from "./server-config.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export type EditableScope = "user" | "project";

export const mcpConfigFile = (scope: EditableScope, home: string, projectRoot: string): string =>
  scope === "user" ? join(home, "settings.json") : join(projectRoot, ".mcp.json");

/** `mcpServers`, or `servers` in a file that uses only that (VS Code's `.vscode/mcp.json` shape, read by the runtime too). */
const serversKey = (data: Record<string, unknown>, scope: EditableScope): string =>
  scope === "project" && data.mcpServers === undefined && data.servers !== undefined ? "servers" : "mcpServers";

export type JsonFileRead =
  | { ok: true; exists: boolean; data: Record<string, unknown>; indent: string }
  | { ok: false; error: string };

export function readJsonObjectFile(file: string): JsonFileRead {
  if (!existsSync(file)) return { ok: true, exists: false, data: {}, indent: "  " };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (!text.trim()) return { ok: true, exists: true, data: {}, indent: "  " };
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data !== "object" || data === null || Array.isArray(data)) return { ok: false, error: "not a JSON object" };
    const indent = /^\{\s*\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
    return { ok: true, exists: true, data: data as Record<string, unknown>, indent };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * Writes `data` as JSON to `file` atomically. Throws on I/O failure (the old file is then untouched). A symlinked
 * file (a dotfiles checkout) is written where it points, so the link stays.
 */
export function writeJsonAtomic(target: string, data: unknown, opts: { indent?: string; mode?: number } = {}): void {
  const file = existsSync(target) ? realpathSync(target) : target;
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : (opts.mode ?? 0o600);
  writeFileAtomic(file, `${JSON.stringify(data, null, opts.indent ?? "  ")}\n`, { mode });
}

/** One configured server as `chatcli mcp list/get` shows it. `error` when the entry does not parse (it is skipped at run time). */
export interface ConfiguredServer {
  name: string;
  scope: EditableScope;
  file: string;
  raw: unknown;
  entry?: McpServerConfig;
  error?: string;
}

export interface ScopeRead {
  scope: EditableScope;
  file: string;
  servers: ConfiguredServer[];
  /** The file itself could not be read or parsed. */
  error?: string;
}

export function readScope(scope: EditableScope, home: string, projectRoot: string): ScopeRead {
  const file = mcpConfigFile(scope, home, projectRoot);
  const r = readJsonObjectFile(file);
  if (!r.ok) return { scope, file, servers: [], error: r.error };
  const map = r.data[serversKey(r.data, scope)];
  if (map === undefined) return { scope, file, servers: [] };
  if (typeof map !== "object" || map === null || Array.isArray(map)) return { scope, file, servers: [], error: "mcpServers is not an object" };
  const servers = Object.entries(map as Record<string, unknown>).map(([name, raw]): ConfiguredServer => {
    const nameOk = mcpServersSchema.keyType.safeParse(name).success;
    const parsed = mcpServerSchema.safeParse(raw);
    if (!nameOk) return { name, scope, file, raw, error: "the name may only hold letters, digits, _ and - (64 at most)" };
    if (!parsed.success) return { name, scope, file, raw, error: parsed.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; ") };
    return { name, scope, file, raw, entry: parsed.data };
  });
  return { scope, file, servers };
}

/**
 * Read-modify-write of one scope's `mcpServers`. `change` edits the map in place and returns what to report; the
 * file is written only when it returns `{ write: true }`. Fails (without writing) when the file does not parse.
 */
export function editServers<T>(
  scope: EditableScope,
  home: string,
  projectRoot: string,
  change: (servers: Record<string, unknown>) => { write: boolean; result: T },
): { ok: true; file: string; result: T } | { ok: false; file: string; error: string } {
  const file = mcpConfigFile(scope, home, projectRoot);
  const r = readJsonObjectFile(file);
  if (!r.ok) return { ok: false, file, error: r.error };
  const key = serversKey(r.data, scope);
  const current = r.data[key];
  if (current !== undefined && (typeof current !== "object" || current === null || Array.isArray(current))) return { ok: false, file, error: "mcpServers is not an object" };
  const servers: Record<string, unknown> = { ...((current as Record<string, unknown> | undefined) ?? {}) };
  const { write, result } = change(servers);
  if (write) writeJsonAtomic(file, { ...r.data, [key]: servers }, { indent: r.indent, mode: scope === "user" ? 0o600 : 0o644 });
  return { ok: true, file, result };
}

/** Both scopes, user first; a project entry takes the place of a user entry of the same name (as the runtime does). */
export function readAllScopes(home: string, projectRoot: string): ScopeRead[] {
  return [readScope("user", home, projectRoot), readScope("project", home, projectRoot)];
}

/** The entry a name means now: the project's, else the user's. */
export function findServer(home: string, projectRoot: string, name: string): ConfiguredServer | undefined {
  const [user, project] = readAllScopes(home, projectRoot);
  return project!.servers.find((s) => s.name === name) ?? user!.servers.find((s) => s.name === name);
}
