/**
 * The MCP servers of one session. Built by cli/wire-session.ts when any server is configured; a session without
 * one never builds it, so the SDK is never loaded.
 *
 * - Start: `startAll()` starts every startable server in parallel in the background (the TUI calls it after the
 *   first frame, headless at once); nothing waits for it but `ready()`, which the session awaits before a model
 *   call (a server still starting at the first prompt delays that call, up to its start timeout; never the prompt).
 * - Project servers (`.mcp.json`) not approved for this project stay `unapproved` until `approve(names)`.
 * - Tools: `tools()` is what the model is offered, `find(name)` what it may call. When the MCP catalog costs more
 *   than `deferShare` of the window (or the model is on the text protocol), only `mcp_search` is offered; the tools
 *   it finds are added to the offer from then on.
 * - `dispose()` stops every server (process groups killed); `killNow()` is for the process exit path.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { ToolSpec } from "../../protocol/llm.ts";
import type { ToolDefinition } from "../../tool/tool.ts";
import { estimateToolSpecTokens } from "../../agent/compaction/tokens.ts";
import { isApproved, approve as storeApproval } from "../approvals.ts";
import type { McpServerSpec } from "../load-servers.ts";
import type { McpServerConfig } from "../server-config.ts";
import { createMcpTool } from "../tools/mcp-tool.ts";
import { createMcpSearchTool, MCP_SEARCH_TOOL } from "../tools/mcp-search.ts";
import { normalizeToolSchema, schemaFamilyFor, type SchemaFamily } from "../schema-normalize.ts";
import { ServerConnection, type McpServerStatus } from "./server-connection.ts";

export interface McpBinding {
  providerId: string;
  nativeTools: boolean;
  contextWindow: number;
}

export interface McpManagerOptions {
  servers: readonly McpServerSpec[];
  projectRoot: string;
  /** chatcli's home (the approval store). */
  home: string;
  /** Where `${VAR}` in entries is read from. */
  env: Record<string, string | undefined>;
  /** The environment stdio servers start with (secrets filtered), before each entry's `env`. */
  baseEnv: Record<string, string>;
  clientVersion: string;
  log(line: string): void;
  /** A warning a person should see (a tool disabled for a bad schema). English; the caller may localise. */
  warn?(text: string): void;
  /** The model binding of the next request (provider family, tool mode, window). */
  binding(): McpBinding;
  /** Share of the window above which MCP tools are deferred behind mcp_search (default 0.1). */
  deferShare?: number;
  authProvider?: (name: string, entry: McpServerConfig) => OAuthClientProvider | undefined;
  restartBaseMs?: number;
}

export interface McpServerView extends McpServerStatus {
  /** Tokens its tool schemas cost in a request. */
  tokens: number;
}

export class McpManager {
  readonly servers: ServerConnection[];
  private listeners = new Set<() => void>();
  private cache: { key: string; tools: ToolDefinition[] } | undefined;
  private readonly activated = new Set<string>();
  private readonly warned = new Set<string>();
  private version = 0;
  private started = false;
  private readonly search: ToolDefinition;

  constructor(private readonly o: McpManagerOptions) {
    const deps = {
      baseEnv: o.baseEnv,
      expandEnv: o.env,
      projectRoot: o.projectRoot,
      clientVersion: o.clientVersion,
      log: o.log,
      onChange: () => this.changed(),
      ...(o.authProvider ? { authProvider: o.authProvider } : {}),
      ...(o.restartBaseMs !== undefined ? { restartBaseMs: o.restartBaseMs } : {}),
    };
    this.servers = o.servers.map((s) => {
      const initial = s.entry.enabled === false ? "disabled" : s.scope === "project" && !isApproved(o.projectRoot, s.name, s.entry, { home: o.home }) ? "unapproved" : "idle";
      return new ServerConnection(s.name, s.entry, s.scope, deps, initial);
    });
    this.search = createMcpSearchTool({ catalog: () => this.allTools(), activate: (names) => this.activate(names) });
  }

  /** Starts every startable server in the background (parallel); later calls start only those not yet started. */
  startAll(): void {
    this.started = true;
    for (const s of this.servers) if (s.status().state === "stopped") void s.start();
  }

  /** Resolves when no server is starting (each start is bounded by its timeout); an abort resolves it early. */
  async ready(signal?: AbortSignal): Promise<void> {
    if (!this.started) this.startAll();
    const all = Promise.all(this.servers.map((s) => s.settled())).then(() => undefined);
    if (!signal) return all;
    await Promise.race([all, new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }))]);
  }

  /** Project servers not approved yet (the TUI asks about them; headless names them in a notice). */
  unapproved(): McpServerSpec[] {
    return this.o.servers.filter((s) => this.byName(s.name)?.status().state === "unapproved");
  }

  /** Approves project servers for this project (stored) and starts them. */
  /** `remember: false` starts them for this session only (the TUI's "once"); the default stores the approval. */
  async approve(names: readonly string[], remember = true): Promise<void> {
    const starts: Promise<void>[] = [];
    for (const name of names) {
      const spec = this.o.servers.find((s) => s.name === name && s.scope === "project");
      const conn = this.byName(name);
      if (!spec || !conn) continue;
      if (remember) storeApproval(this.o.projectRoot, name, spec.entry, { home: this.o.home });
      conn.markApproved();
      if (this.started) starts.push(conn.start());
    }
    this.changed();
    await Promise.all(starts);
  }

  async restart(name: string): Promise<boolean> {
    const conn = this.byName(name);
    if (!conn) return false;
    await conn.restart();
    return true;
  }

  status(): McpServerView[] {
    const family = this.family();
    return this.servers.map((s) => {
      const tools = this.toolsOf(s, family);
      return { ...s.status(), toolCount: tools.length, tokens: estimateToolSpecTokens(tools.map((t) => t.spec())) };
    });
  }

  /** Listens for status and tool-list changes (the `/mcp` view). Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the model is offered now: every MCP tool, or (deferred) mcp_search plus the tools it found. */
  tools(): ToolDefinition[] {
    const all = this.allTools();
    if (all.length === 0) return [];
    if (!this.deferred(all)) return all;
    return [this.search, ...all.filter((t) => this.activated.has(t.name))];
  }

  /** Whether the catalog is deferred behind mcp_search now. */
  isDeferred(): boolean {
    const all = this.allTools();
    return all.length > 0 && this.deferred(all);
  }

  /** Any MCP tool by its exact name (deferred ones included: a model that knows the name may call it). */
  find(name: string): ToolDefinition | undefined {
    if (name === MCP_SEARCH_TOOL) return this.allTools().length > 0 ? this.search : undefined;
    return this.allTools().find((t) => t.name === name);
  }

  /** Every connected server's tools, for the current provider family (bad schemas left out, warned once). */
  allTools(): ToolDefinition[] {
    const family = this.family();
    const key = `${family}:${this.version}`;
    if (this.cache?.key === key) return this.cache.tools;
    const tools = this.servers.flatMap((s) => this.toolsOf(s, family));
    this.cache = { key, tools };
    return tools;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }

  killNow(): void {
    for (const s of this.servers) s.killNow();
  }

  byName(name: string): ServerConnection | undefined {
    return this.servers.find((s) => s.name === name);
  }

  private toolsOf(s: ServerConnection, family: SchemaFamily): ToolDefinition[] {
    const out: ToolDefinition[] = [];
    for (const tool of s.tools()) {
      const n = normalizeToolSchema(tool.inputSchema, family);
      if (!n.ok) {
        const key = `${s.name}/${tool.name}/${family}`;
        if (!this.warned.has(key)) {
          this.warned.add(key);
          const text = `MCP tool ${s.name}/${tool.name} disabled: ${n.reason}`;
          this.o.log(text);
          this.o.warn?.(text);
        }
        continue;
      }
      out.push(createMcpTool({ server: s.name, tool, schema: n.schema, ...(n.jsonStringPaths ? { jsonStringPaths: n.jsonStringPaths } : {}), call: (name, args, signal) => s.callTool(name, args, signal) }));
    }
    return out;
  }

  private deferred(all: readonly ToolDefinition[]): boolean {
    const b = this.o.binding();
    if (!b.nativeTools) return true;
    const specs: ToolSpec[] = all.map((t) => t.spec());
    return estimateToolSpecTokens(specs) > (this.o.deferShare ?? 0.1) * b.contextWindow;
  }

  private family(): SchemaFamily {
    const b = this.o.binding();
    return schemaFamilyFor(b.providerId, b.nativeTools);
  }

  private activate(names: readonly string[]): void {
    for (const n of names) this.activated.add(n);
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
