/**
 * One MCP server entry, as users write it in `~/.chatcli/settings.json` (`mcpServers`) and in a project's
 * `.mcp.json` (the shape Claude Code and Cursor use: an object keyed by server name). Shared by the runtime
 * (src/mcp/runtime/) and the command line (`chatcli mcp …`, importers, OAuth).
 *
 * A stdio entry has `command`; a remote one has `url` (`type` "http" = Streamable HTTP with a fallback to the
 * older HTTP+SSE transport; "sse" = that older transport only). Unknown keys are kept (forward compatibility,
 * other tools' extras) and ignored.
 */
import { z } from "zod";

const common = {
  enabled: z.boolean().optional(),
  /** Start-up (connect + initialize + first tools/list) limit; default MCP_START_TIMEOUT_MS. */
  timeoutMs: z.number().int().positive().optional(),
  /** One tool call's limit; default MCP_TOOL_TIMEOUT_MS. */
  toolTimeoutMs: z.number().int().positive().optional(),
  /** Tool names (globs allowed) kept / dropped from this server's catalog. */
  includeTools: z.array(z.string().min(1)).optional(),
  excludeTools: z.array(z.string().min(1)).optional(),
};

export const stdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...common,
});

export const remoteServerSchema = z.looseObject({
  type: z.enum(["http", "sse", "streamable-http"]).optional(),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Name of an environment variable holding a bearer token (sent as `Authorization: Bearer …`). */
  bearerTokenEnv: z.string().min(1).optional(),
  /** OAuth 2.1 options for servers that require it (`chatcli mcp login NAME`). */
  oauth: z
    .looseObject({
      clientId: z.string().optional(),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).optional(),
      callbackPort: z.number().int().min(0).max(65535).optional(),
    })
    .optional(),
  ...common,
});

export const mcpServerSchema = z.union([stdioServerSchema, remoteServerSchema]);
export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof remoteServerSchema>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/** `mcpServers`: server name → entry. Names become part of tool names (`mcp__<server>__<tool>`). */
export const mcpServersSchema = z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), mcpServerSchema);
export type McpServers = z.infer<typeof mcpServersSchema>;

/** Where an entry came from: project entries (`.mcp.json`) are repository content and need approval. */
export type McpServerScope = "user" | "project" | "cli";

export const MCP_START_TIMEOUT_MS = 30_000;
export const MCP_TOOL_TIMEOUT_MS = 120_000;

export const isStdioServer = (c: McpServerConfig): c is StdioServerConfig => "command" in c && typeof c.command === "string";
