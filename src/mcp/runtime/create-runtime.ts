/**
 * The MCP runtime of a session, or undefined when no server is configured (then nothing else of src/mcp/ runs and
 * the SDK is never loaded). Called once by cli/wire-session.ts. Throws McpConfigError for a bad `--mcp-config`.
 */
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Logger } from "../../util/logger.ts";
import { loadMcpServers } from "../load-servers.ts";
import { isStdioServer, type McpServerConfig, type McpServers } from "../server-config.ts";
import { t } from "../../i18n/i18n.ts";
import { McpManager, type McpBinding } from "./mcp-manager.ts";

export interface McpRuntimeOptions {
  home: string;
  projectRoot: string;
  cwd: string;
  userServers: McpServers | undefined;
  userFile: string;
  configFiles: readonly string[];
  strict: boolean;
  /** The real environment (`${VAR}` expansion, bearerTokenEnv). */
  env: Record<string, string | undefined>;
  /** What stdio servers start with (secrets filtered). */
  childEnv: Record<string, string | undefined>;
  clientVersion: string;
  binding(): McpBinding;
  warn(text: string): void;
  scrub?: (text: string) => string;
  /** `--offline`: remote (HTTP) servers are not started (named in one warning); stdio servers run as configured. */
  offline?: boolean;
  /** OAuth providers (src/mcp/oauth/). */
  authProvider?: (name: string, entry: McpServerConfig) => OAuthClientProvider | undefined;
}

export function createMcpRuntime(o: McpRuntimeOptions): McpManager | undefined {
  const loaded = loadMcpServers({ userServers: o.userServers, userFile: o.userFile, projectRoot: o.projectRoot, cwd: o.cwd, configFiles: o.configFiles, strict: o.strict });
  if (loaded.servers.length === 0 && loaded.warnings.length === 0) return undefined;
  const logger = new Logger(join(o.home, "logs"));
  if (o.scrub) logger.addScrubber(o.scrub);
  const log = (line: string) => logger.info(`mcp ${line}`);
  for (const w of loaded.warnings) {
    log(w);
    o.warn(w);
  }
  const servers = o.offline ? loaded.servers.filter((s) => isStdioServer(s.entry)) : loaded.servers;
  const remote = loaded.servers.filter((s) => !servers.includes(s)).map((s) => s.name);
  if (remote.length) o.warn(t("mcp.offlineSkipped", { names: remote.join(", ") }));
  if (servers.length === 0) return undefined;
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.childEnv)) if (v !== undefined) baseEnv[k] = v;
  const manager = new McpManager({
    servers,
    projectRoot: o.projectRoot,
    home: o.home,
    env: o.env,
    baseEnv,
    clientVersion: o.clientVersion,
    log,
    warn: o.warn,
    binding: o.binding,
    deferShare: deferShareFromEnv(o.env),
    ...(o.authProvider ? { authProvider: o.authProvider } : {}),
  });
  process.once("exit", () => manager.killNow());
  return manager;
}

/** CHATCLI_MCP_DEFER_SHARE: the share of the window MCP schemas may take before they are deferred (default 0.1). */
function deferShareFromEnv(env: Record<string, string | undefined>): number {
  const v = Number(env.CHATCLI_MCP_DEFER_SHARE);
  return Number.isFinite(v) && v >= 0 && v <= 1 && env.CHATCLI_MCP_DEFER_SHARE !== undefined && env.CHATCLI_MCP_DEFER_SHARE !== "" ? v : 0.1;
}
