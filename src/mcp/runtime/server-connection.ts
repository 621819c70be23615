/**
 * One configured MCP server for the life of a session: start (connect + initialize + tools/list, within
 * `timeoutMs`), its tool list (kept current on `notifications/tools/list_changed`), calls with a timeout
 * (`toolTimeoutMs`) and cancellation (the SDK sends `notifications/cancelled` when the signal aborts or the
 * timeout fires), resources and prompts, restart, stop.
 *
 * A server whose connection closes while the session runs (crash, exit) has its in-flight calls rejected (the
 * SDK fails pending requests on close) and is restarted with backoff (1 s, 2 s, 4 s … 30 s; at most
 * MAX_RESTARTS times in a row; a start that stays connected for a minute resets the count).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool } from "@modelcontextprotocol/sdk/types.js";
import { isStdioServer, MCP_START_TIMEOUT_MS, MCP_TOOL_TIMEOUT_MS, type McpServerConfig, type McpServerScope } from "../server-config.ts";
import { connectServer, errorText, NeedsLoginError, type OpenConnection } from "./connect.ts";
import { globMatch } from "./glob.ts";
import { withTimeout } from "../../util/with-timeout.ts";

export type McpServerState = "starting" | "connected" | "failed" | "needs-login" | "disabled" | "unapproved" | "stopped";

export interface McpServerStatus {
  name: string;
  scope: McpServerScope;
  state: McpServerState;
  /** Why it failed (failed / needs-login). */
  reason?: string;
  transport?: "stdio" | "http" | "sse";
  toolCount: number;
  /** What it runs: the command line, or the url. */
  target: string;
}

export interface ServerConnectionDeps {
  baseEnv: Record<string, string>;
  expandEnv: Record<string, string | undefined>;
  projectRoot: string;
  clientVersion: string;
  log(line: string): void;
  /** Called whenever the status or the tool list changes. */
  onChange(): void;
  /** The OAuth provider for a remote server, when the OAuth module supplies one. */
  authProvider?: (name: string, entry: McpServerConfig) => OAuthClientProvider | undefined;
  /** Backoff base for restarts after a crash; default 1000 ms (tests shorten it). */
  restartBaseMs?: number;
}

const MAX_RESTARTS = 5;
export const NETWORK_ERROR = /ECONNREFUSED|ECONNRESET|fetch failed|Unable to connect|socket (?:connection was )?closed|network/i;

export class ServerConnection {
  private conn: OpenConnection | undefined;
  private state: McpServerState;
  private reason: string | undefined;
  private toolList: Tool[] = [];
  private promptList: Prompt[] = [];
  private starting: Promise<void> | undefined;
  private stopping = false;
  private restarts = 0;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private connectedAt = 0;
  /** Bumped per start: a stale connection's close must not restart a newer one. */
  private generation = 0;

  constructor(
    readonly name: string,
    readonly entry: McpServerConfig,
    readonly scope: McpServerScope,
    private readonly deps: ServerConnectionDeps,
    initial: "idle" | "disabled" | "unapproved" = "idle",
  ) {
    this.state = initial === "idle" ? "stopped" : initial;
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      scope: this.scope,
      state: this.state,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.conn ? { transport: this.conn.kind } : {}),
      toolCount: this.tools().length,
      target: serverTarget(this.entry),
    };
  }

  get isStartable(): boolean {
    return this.state !== "disabled" && this.state !== "unapproved";
  }

  /** Starts it unless it is running or starting; resolves when it is connected or has failed (never rejects). */
  start(): Promise<void> {
    if (!this.isStartable || this.stopping) return Promise.resolve();
    if (this.state === "connected") return Promise.resolve();
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves when a start under way has finished (immediately when none is). */
  settled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /** The tools after `includeTools` / `excludeTools`. */
  tools(): Tool[] {
    const inc = this.entry.includeTools;
    const exc = this.entry.excludeTools ?? [];
    return this.toolList.filter((t) => (!inc || inc.some((g) => globMatch(g, t.name))) && !exc.some((g) => globMatch(g, t.name)));
  }

  get client(): Client | undefined {
    return this.state === "connected" ? this.conn?.client : undefined;
  }

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.state === "starting" || this.state === "stopped") await this.start();
    const client = this.client;
    if (!client) throw new Error(`MCP server "${this.name}" is not connected (${this.state}${this.reason ? `: ${this.reason}` : ""})`);
    const timeout = this.entry.toolTimeoutMs ?? MCP_TOOL_TIMEOUT_MS;
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout, maxTotalTimeout: timeout })) as CallToolResult;
    } catch (err) {
      // A remote server that went away says so only through failed requests: close, so it is restarted with backoff.
      if (!isStdioServer(this.entry) && NETWORK_ERROR.test(errorText(err))) void client.close().catch(() => undefined);
      throw err;
    }
  }

  async listResources(): Promise<Resource[]> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.resources) return [];
    const out: Resource[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await client.listResources(cursor ? { cursor } : undefined);
      out.push(...r.resources);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    if (this.state === "starting" || this.state === "stopped") await this.start();
    const client = this.client;
    if (!client) throw new Error(`MCP server "${this.name}" is not connected (${this.state}${this.reason ? `: ${this.reason}` : ""})`);
    return client.readResource({ uri }, { timeout: this.entry.toolTimeoutMs ?? MCP_TOOL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
    const client = this.client;
    if (!client) throw new Error(`MCP server "${this.name}" is not connected (${this.state}${this.reason ? `: ${this.reason}` : ""})`);
    return client.getPrompt({ name, arguments: args }, { timeout: this.entry.toolTimeoutMs ?? MCP_TOOL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  }

  /** The prompts it offered when it connected (slash commands `/mcp__<server>__<prompt>`). */
  prompts(): Prompt[] {
    return this.state === "connected" ? this.promptList : [];
  }

  async listPrompts(): Promise<Prompt[]> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.prompts) return [];
    return (await client.listPrompts()).prompts;
  }

  /** Stops it and starts it again (the `/mcp` restart); the restart budget starts over. */
  async restart(): Promise<void> {
    this.restarts = 0;
    await this.closeConnection();
    this.stopping = false;
    if (this.state === "disabled" || this.state === "unapproved") return;
    this.state = "stopped";
    return this.start();
  }

  /** Lets an unapproved project server start (the user approved it). */
  markApproved(): void {
    if (this.state === "unapproved") this.state = "stopped";
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.closeConnection();
    if (this.isStartable) this.state = "stopped";
  }

  /** Synchronous kill of a stdio server's process group (the process is exiting). */
  killNow(): void {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const conn = this.conn;
    conn?.killNow();
    // A remote connection holds open requests (the SSE stream): closing aborts them, so nothing keeps the process up.
    void conn?.client.close().catch(() => undefined);
  }

  private async doStart(): Promise<void> {
    const gen = ++this.generation;
    this.setState("starting");
    const timeoutMs = this.entry.timeoutMs ?? MCP_START_TIMEOUT_MS;
    const authProvider = this.deps.authProvider?.(this.name, this.entry);
    let conn: OpenConnection | undefined;
    try {
      conn = await withTimeout(
        connectServer({ name: this.name, entry: this.entry, baseEnv: this.deps.baseEnv, expandEnv: this.deps.expandEnv, projectRoot: this.deps.projectRoot, log: (l) => this.deps.log(`[${this.name}] ${l}`), clientVersion: this.deps.clientVersion, timeoutMs, ...(authProvider ? { authProvider } : {}) }),
        timeoutMs,
        `did not start within ${Math.round(timeoutMs / 1000)} s`,
      );
      if (this.stopping || gen !== this.generation) {
        await conn.transport.close().catch(() => undefined);
        return;
      }
      this.conn = conn;
      const opened = conn;
      opened.client.onclose = () => this.onClosed(gen);
      opened.client.onerror = (err) => this.deps.log(`[${this.name}] ${errorText(err)}`);
      await this.watchToolList(opened.client);
      this.toolList = await withTimeout(listAllTools(opened.client), timeoutMs, `tools/list did not answer within ${Math.round(timeoutMs / 1000)} s`);
      this.promptList = opened.client.getServerCapabilities()?.prompts ? await withTimeout(opened.client.listPrompts(), timeoutMs, "prompts/list did not answer").then((r) => r.prompts, () => []) : [];
      this.connectedAt = Date.now();
      this.reason = undefined;
      this.setState("connected");
      this.deps.log(`[${this.name}] connected over ${opened.kind}: ${this.toolList.length} tools`);
    } catch (err) {
      await conn?.transport.close().catch(() => undefined);
      if (gen !== this.generation) return;
      this.conn = undefined;
      this.toolList = [];
      this.reason = err instanceof NeedsLoginError ? `run: chatcli mcp login ${this.name}` : errorText(err);
      this.setState(err instanceof NeedsLoginError ? "needs-login" : "failed");
      this.deps.log(`[${this.name}] start failed: ${errorText(err)}`);
    }
  }

  private async watchToolList(client: Client): Promise<void> {
    const { ToolListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        this.toolList = await listAllTools(client);
        this.deps.log(`[${this.name}] tools changed: ${this.toolList.length} tools`);
        this.deps.onChange();
      } catch (err) {
        this.deps.log(`[${this.name}] tools/list after list_changed failed: ${errorText(err)}`);
      }
    });
  }

  private onClosed(gen: number): void {
    if (gen !== this.generation || this.stopping) return;
    const transport = this.conn?.transport as { exitReason?: string } | undefined;
    this.conn = undefined;
    this.toolList = [];
    this.reason = transport?.exitReason ?? "connection closed";
    this.setState("failed");
    this.deps.log(`[${this.name}] connection lost: ${this.reason}`);
    if (Date.now() - this.connectedAt > 60_000) this.restarts = 0;
    if (this.restarts >= MAX_RESTARTS) return;
    const delay = Math.min(30_000, (this.deps.restartBaseMs ?? 1000) * 2 ** this.restarts);
    this.restarts++;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopping && this.state === "failed") void this.start();
    }, delay);
    this.restartTimer.unref?.();
  }

  private async closeConnection(): Promise<void> {
    this.generation++;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const conn = this.conn;
    this.conn = undefined;
    this.toolList = [];
    if (conn) await conn.client.close().catch(() => conn.transport.close().catch(() => undefined));
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.deps.onChange();
  }
}

/** What a server runs, for people: its command line, or its url. */
export function serverTarget(entry: McpServerConfig): string {
  return isStdioServer(entry) ? [entry.command, ...(entry.args ?? [])].join(" ") : entry.url;
}

async function listAllTools(client: Client): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const out: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = await client.listTools(cursor ? { cursor } : undefined);
    out.push(...r.tools);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}
