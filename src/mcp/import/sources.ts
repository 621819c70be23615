/**
 * The MCP configurations of other tools that `chatcli mcp import` reads, each turned into our `mcpServers` entries:
 * - Claude Code: `~/.claude.json` (`mcpServers`, and `projects[<this project>].mcpServers`: its private per-project
 *   scope, which has no counterpart here and is imported into the user settings);
 * - Claude Desktop: `claude_desktop_config.json` (`~/Library/Application Support/Claude/` on macOS,
 *   `$XDG_CONFIG_HOME/Claude/` elsewhere), the same `mcpServers` shape;
 * - Cursor: `~/.cursor/mcp.json`, `<project>/.cursor/mcp.json` (`${env:X}`, `${userHome}`, `${workspaceFolder}`);
 * - Codex: `$CODEX_HOME/config.toml` (default `~/.codex`), `[mcp_servers.NAME]`;
 * - Gemini CLI: `~/.gemini/settings.json`, `<project>/.gemini/settings.json` (`httpUrl` = Streamable HTTP, `url` =
 *   SSE, `timeout` in ms);
 * - OpenCode: `$XDG_CONFIG_HOME/opencode/opencode.json[c]`, `<project>/opencode.json[c]` (`mcp`: `type: local` with
 *   a `command` array and `environment`, `type: remote` with `url`; `{env:X}`).
 * The project's own `.mcp.json` (Claude Code's project scope) is what chatcli reads already: nothing to import.
 * A file that cannot be read is reported with its error; an entry that cannot be expressed is "unsupported" with why.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseToml } from "./toml-lite.ts";

export type ImportTool = "claude" | "claude-desktop" | "cursor" | "codex" | "gemini" | "opencode";
export const IMPORT_TOOLS: readonly ImportTool[] = ["claude", "claude-desktop", "cursor", "codex", "gemini", "opencode"];

export interface ImportCandidate {
  name: string;
  entry?: Record<string, unknown>;
  /** Why it cannot be imported (English, shown as is). */
  unsupported?: string;
}

export interface SourceRead {
  tool: ImportTool;
  file: string;
  /** Where its servers belong: a user-wide file, or one of this project. */
  level: "user" | "project";
  servers: ImportCandidate[];
  error?: string;
}

export interface SourceContext {
  /** The user's home (HOME), where the other tools keep their files. */
  userHome: string;
  env: Record<string, string | undefined>;
  projectRoot: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined);
const stringMap = (v: unknown): Record<string, string> | undefined =>
  isObj(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === "string" || typeof x === "number" || typeof x === "boolean").map(([k, x]) => [k, String(x)])) : undefined;

/** The files this machine has, in a fixed order (the first source of a name wins a clash). */
export function readSources(ctx: SourceContext, only?: readonly ImportTool[]): { reads: SourceRead[]; looked: string[] } {
  const looked: string[] = [];
  const reads: SourceRead[] = [];
  const want = (t: ImportTool) => !only?.length || only.includes(t);
  const visit = (tool: ImportTool, file: string, level: "user" | "project", read: (text: string) => ImportCandidate[]) => {
    if (!want(tool)) return;
    looked.push(file);
    if (!existsSync(file)) return;
    try {
      reads.push({ tool, file, level, servers: read(readFileSync(file, "utf8")) });
    } catch (err) {
      reads.push({ tool, file, level, servers: [], error: (err as Error).message });
    }
  };
  const h = ctx.userHome;
  const p = ctx.projectRoot;
  visit("claude", join(h, ".claude.json"), "user", (text) => claudeUser(parseJsonc(text), p));
  const desktopDir = process.platform === "darwin" ? join(h, "Library", "Application Support", "Claude") : join(ctx.env.XDG_CONFIG_HOME || join(h, ".config"), "Claude");
  visit("claude-desktop", join(desktopDir, "claude_desktop_config.json"), "user", (text) => claudeLike(parseJsonc(text).mcpServers, (s) => s));
  visit("cursor", join(h, ".cursor", "mcp.json"), "user", (text) => claudeLike(parseJsonc(text).mcpServers, cursorVars(h, undefined)));
  visit("cursor", join(p, ".cursor", "mcp.json"), "project", (text) => claudeLike(parseJsonc(text).mcpServers, cursorVars(h, p)));
  visit("codex", join(ctx.env.CODEX_HOME || join(h, ".codex"), "config.toml"), "user", (text) => codex(parseToml(text)));
  visit("gemini", join(h, ".gemini", "settings.json"), "user", (text) => gemini(parseJsonc(text).mcpServers));
  visit("gemini", join(p, ".gemini", "settings.json"), "project", (text) => gemini(parseJsonc(text).mcpServers));
  const xdg = ctx.env.XDG_CONFIG_HOME || join(h, ".config");
  for (const name of ["opencode.json", "opencode.jsonc"]) visit("opencode", join(xdg, "opencode", name), "user", (text) => opencode(parseJsonc(text).mcp));
  for (const name of ["opencode.json", "opencode.jsonc"]) visit("opencode", join(p, name), "project", (text) => opencode(parseJsonc(text).mcp));
  return { reads, looked };
}

/** `~/.claude.json`: user servers, then the ones Claude Code keeps for this project only. */
function claudeUser(json: Obj, projectRoot: string): ImportCandidate[] {
  const out = claudeLike(json.mcpServers, (s) => s);
  const projects = isObj(json.projects) ? json.projects : {};
  const mine = projects[projectRoot];
  if (isObj(mine)) out.push(...claudeLike(mine.mcpServers, (s) => s));
  return out;
}

/** The `mcpServers` shape Claude Code and Cursor share. `vars` rewrites the tool's own variable syntax into ours. */
function claudeLike(servers: unknown, vars: (s: string) => string): ImportCandidate[] {
  if (servers === undefined) return [];
  if (!isObj(servers)) throw new Error("mcpServers is not an object");
  return Object.entries(servers).map(([name, raw]): ImportCandidate => {
    if (!isObj(raw)) return { name, unsupported: "the entry is not an object" };
    const type = typeof raw.type === "string" ? raw.type : undefined;
    const enabled = raw.disabled === true || raw.enabled === false ? { enabled: false } : {};
    if (typeof raw.command === "string" && (type === undefined || type === "stdio")) {
      return { name, entry: { ...stdioEntry(raw, raw.command, vars), ...enabled } };
    }
    if (typeof raw.url === "string" && (type === undefined || type === "http" || type === "sse" || type === "streamable-http" || type === "streamableHttp")) {
      const headers = stringMap(raw.headers);
      return { name, entry: { type: type === "sse" ? "sse" : "http", url: vars(raw.url), ...(headers && Object.keys(headers).length ? { headers: mapValues(headers, vars) } : {}), ...enabled } };
    }
    return { name, unsupported: type ? `transport "${type}" is not supported` : "neither a command nor a url" };
  });
}

/** Cursor's `${env:X}`, `${userHome}`, `${workspaceFolder}` (project files only). */
function cursorVars(userHome: string, projectRoot: string | undefined): (s: string) => string {
  return (s) =>
    s
      .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, v: string) => `\${${v}}`)
      .replace(/\$\{userHome\}/g, userHome)
      .replace(/\$\{workspaceFolder\}/g, (m) => projectRoot ?? m);
}

/** Codex `[mcp_servers.NAME]`. */
function codex(toml: Obj): ImportCandidate[] {
  const servers = toml.mcp_servers;
  if (servers === undefined) return [];
  if (!isObj(servers)) throw new Error("mcp_servers is not a table");
  return Object.entries(servers).map(([name, raw]): ImportCandidate => {
    if (!isObj(raw)) return { name, unsupported: "the entry is not a table" };
    const common = {
      ...(raw.enabled === false ? { enabled: false } : {}),
      ...seconds("timeoutMs", raw.startup_timeout_sec, raw.startup_timeout_ms),
      ...seconds("toolTimeoutMs", raw.tool_timeout_sec, undefined),
      ...nonEmptyList("includeTools", raw.enabled_tools),
      ...nonEmptyList("excludeTools", raw.disabled_tools),
    };
    if (typeof raw.command === "string") return { name, entry: { ...stdioEntry(raw, raw.command, verbatim), ...common } };
    if (typeof raw.url === "string") {
      const headers = { ...(stringMap(raw.http_headers) ?? {}) };
      // env_http_headers: header name → the variable holding its value.
      for (const [h, v] of Object.entries(stringMap(raw.env_http_headers) ?? {})) headers[h] = `\${${v}}`;
      return {
        name,
        entry: {
          type: "http",
          url: raw.url,
          ...(Object.keys(headers).length ? { headers } : {}),
          ...(typeof raw.bearer_token_env_var === "string" ? { bearerTokenEnv: raw.bearer_token_env_var } : {}),
          ...common,
        },
      };
    }
    return { name, unsupported: "neither a command nor a url" };
  });
}

function seconds(key: string, sec: unknown, ms: unknown): Obj {
  if (typeof ms === "number" && ms > 0) return { [key]: Math.round(ms) };
  if (typeof sec === "number" && sec > 0) return { [key]: Math.round(sec * 1000) };
  return {};
}

/** Gemini CLI `mcpServers`: `httpUrl` (Streamable HTTP), `url` (SSE), `$VAR` / `${VAR}` in env values. */
function gemini(servers: unknown): ImportCandidate[] {
  if (servers === undefined) return [];
  if (!isObj(servers)) throw new Error("mcpServers is not an object");
  const vars = (s: string) => s.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, v: string) => `\${${v}}`);
  return Object.entries(servers).map(([name, raw]): ImportCandidate => {
    if (!isObj(raw)) return { name, unsupported: "the entry is not an object" };
    const common = {
      ...(typeof raw.timeout === "number" && raw.timeout > 0 ? { toolTimeoutMs: Math.round(raw.timeout) } : {}),
      ...nonEmptyList("includeTools", raw.includeTools),
      ...nonEmptyList("excludeTools", raw.excludeTools),
    };
    if (typeof raw.command === "string") return { name, entry: { ...stdioEntry(raw, raw.command, verbatim, vars), ...common } };
    const url = typeof raw.httpUrl === "string" ? raw.httpUrl : typeof raw.url === "string" ? raw.url : undefined;
    if (url) {
      const headers = stringMap(raw.headers);
      const o = isObj(raw.oauth) ? raw.oauth : {};
      const oauth = { ...oauthClient(o), ...nonEmptyList("scopes", o.scopes) };
      return {
        name,
        entry: {
          type: typeof raw.httpUrl === "string" ? "http" : "sse",
          url,
          ...(headers && Object.keys(headers).length ? { headers: mapValues(headers, vars) } : {}),
          ...(Object.keys(oauth).length ? { oauth } : {}),
          ...common,
        },
      };
    }
    return { name, unsupported: raw.tcp !== undefined ? "the websocket/tcp transport is not supported" : "neither a command nor a url" };
  });
}

/** OpenCode `mcp`: `{ type: "local", command: [...], environment }` or `{ type: "remote", url, headers }`; `{env:X}`. */
function opencode(servers: unknown): ImportCandidate[] {
  if (servers === undefined) return [];
  if (!isObj(servers)) throw new Error("mcp is not an object");
  const vars = (s: string) => s.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, v: string) => `\${${v}}`);
  return Object.entries(servers).map(([name, raw]): ImportCandidate => {
    if (!isObj(raw)) return { name, unsupported: "the entry is not an object" };
    const common = { ...(raw.enabled === false ? { enabled: false } : {}), ...(typeof raw.timeout === "number" && raw.timeout > 0 ? { timeoutMs: Math.round(raw.timeout) } : {}) };
    if (raw.type === "local") {
      const cmd = strings(raw.command);
      if (!cmd?.length) return { name, unsupported: "a local server without a command array" };
      const env = stringMap(raw.environment);
      return { name, entry: { command: vars(cmd[0]!), ...(cmd.length > 1 ? { args: cmd.slice(1).map(vars) } : {}), ...(env && Object.keys(env).length ? { env: mapValues(env, vars) } : {}), ...common } };
    }
    if (raw.type === "remote" && typeof raw.url === "string") {
      const headers = stringMap(raw.headers);
      const o = isObj(raw.oauth) ? raw.oauth : {};
      const oauth = { ...oauthClient(o), ...(typeof o.scope === "string" && o.scope.trim() ? { scopes: o.scope.trim().split(/\s+/) } : {}) };
      return {
        name,
        entry: { type: "http", url: vars(raw.url), ...(headers && Object.keys(headers).length ? { headers: mapValues(headers, vars) } : {}), ...(Object.keys(oauth).length ? { oauth } : {}), ...common },
      };
    }
    return { name, unsupported: `type ${JSON.stringify(raw.type)} is not supported` };
  });
}

const verbatim = (s: string): string => s;

/** `command`, `args`, `env`, `cwd` of a stdio entry (empty ones left out); `vars` rewrites the tool's variable syntax. */
function stdioEntry(raw: Obj, command: string, vars: (s: string) => string, envVars = vars): Obj {
  const args = strings(raw.args);
  const env = stringMap(raw.env);
  return {
    command: vars(command),
    ...(args?.length ? { args: args.map(vars) } : {}),
    ...(env && Object.keys(env).length ? { env: mapValues(env, envVars) } : {}),
    ...(typeof raw.cwd === "string" ? { cwd: vars(raw.cwd) } : {}),
  };
}

function nonEmptyList(key: string, v: unknown): Obj {
  const list = strings(v);
  return list?.length ? { [key]: list } : {};
}

function oauthClient(o: Obj): Obj {
  return {
    ...(typeof o.clientId === "string" ? { clientId: o.clientId } : {}),
    ...(typeof o.clientSecret === "string" ? { clientSecret: o.clientSecret } : {}),
  };
}

function mapValues(m: Record<string, string>, f: (s: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, f(v)]));
}

/** JSON with `//` and block comments and trailing commas (OpenCode's `.jsonc`, hand-edited settings): Bun's own parser. */
export function parseJsonc(text: string): Obj {
  const json: unknown = Bun.JSONC.parse(text);
  if (!isObj(json)) throw new Error("not a JSON object");
  return json;
}
