/**
 * `chatcli mcp list [--no-check] [--json]` and `chatcli mcp get NAME [--json]`. `list` tries each enabled server
 * (in parallel, a short timeout each, as `claude mcp list` does) unless `--no-check`; a project server that is not
 * approved is never started (it is shown as such).
 */
import { t } from "../../i18n/i18n.ts";
import { findServer, readAllScopes, type ConfiguredServer } from "../../mcp/config-files.ts";
import { isStdioServer, type McpServerConfig } from "../../mcp/server-config.ts";
import { versionString } from "../../version.ts";
import { UsageError } from "../args.ts";
import { parseOptions, positiveInt } from "./mcp-args.ts";
import type { McpCliContext } from "./mcp-context.ts";

const CHECK_TIMEOUT_MS = 10_000;

interface Row {
  name: string;
  scope: "user" | "project";
  file: string;
  transport: string;
  enabled: boolean;
  target: string;
  /** Project servers: approved for this project as they are now. */
  approved?: boolean;
  /** A user entry a project entry of the same name replaces. */
  shadowed?: boolean;
  error?: string;
  status?: string;
  tools?: number;
}

export async function mcpList(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, [{ name: "json" }, { name: "check" }, { name: "no-check" }, { name: "timeout-ms", value: true }]);
  if (p.positionals.length) throw new UsageError(t("mcp.listUsage"));
  const scopes = readAllScopes(ctx.home, ctx.projectRoot);
  for (const s of scopes) if (s.error) ctx.err.write(`chatcli: ${t("mcp.cannotRead", { file: s.file, error: s.error })}\n`);
  const projectNames = new Set(scopes[1]!.servers.map((s) => s.name));
  const rows = await Promise.all(scopes.flatMap((s) => s.servers).map((s) => rowOf(ctx, s, s.scope === "user" && projectNames.has(s.name))));
  if (!p.flags.has("no-check")) {
    const limit = positiveInt(p, "timeout-ms");
    const all = scopes.flatMap((sc) => sc.servers);
    await Promise.all(rows.map((row, i) => (row.shadowed ? undefined : check(ctx, row, all[i]!.entry, limit))));
  }
  if (p.flags.has("json")) {
    ctx.out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (!rows.length) {
    ctx.out.write(`${t("mcp.list.none", { user: scopes[0]!.file, project: scopes[1]!.file })}\n`);
    return 0;
  }
  ctx.out.write(table(rows));
  return 0;
}

export async function mcpGet(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, [{ name: "json" }, { name: "no-check" }, { name: "timeout-ms", value: true }]);
  const [name, ...more] = p.positionals;
  if (!name || more.length) throw new UsageError(t("mcp.getUsage"));
  const server = findServer(ctx.home, ctx.projectRoot, name);
  if (!server) {
    ctx.err.write(`chatcli: ${t("mcp.notFound", { name })}\n`);
    return 1;
  }
  const row = await rowOf(ctx, server, false);
  if (!p.flags.has("no-check")) await check(ctx, row, server.entry, positiveInt(p, "timeout-ms"));
  const masked = maskEntry(server.raw);
  if (p.flags.has("json")) {
    ctx.out.write(`${JSON.stringify({ ...row, entry: masked }, null, 2)}\n`);
    return 0;
  }
  const lines = [
    name,
    `  ${t("mcp.get.scope")}: ${row.scope} (${row.file})`,
    `  ${t("mcp.get.transport")}: ${row.transport}`,
    `  ${t("mcp.get.enabled")}: ${t(row.enabled ? "mcp.yes" : "mcp.no")}`,
  ];
  if (row.approved !== undefined) lines.push(`  ${t("mcp.get.approved")}: ${t(row.approved ? "mcp.yes" : "mcp.no")}`);
  if (row.status !== undefined || row.error) lines.push(`  ${t("mcp.get.status")}: ${statusText(row)}`);
  if (server.entry && !isStdioServer(server.entry)) {
    const { hasOAuthTokens } = await import("../../mcp/oauth/token-store.ts");
    lines.push(`  ${t("mcp.get.oauth")}: ${t(hasOAuthTokens(ctx.home, name, server.entry.url) ? "mcp.get.loggedIn" : "mcp.get.notLoggedIn")}`);
  }
  for (const [k, v] of Object.entries(masked as Record<string, unknown>)) lines.push(`  ${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  ctx.out.write(`${lines.join("\n")}\n`);
  return 0;
}

/** Tries the server (unless disabled, invalid, or a project server not approved) and records the outcome in `row`. */
async function check(ctx: McpCliContext, row: Row, entry: McpServerConfig | undefined, limit: number | undefined): Promise<void> {
  if (!entry || row.error) return;
  if (!row.enabled) return void (row.status = "disabled");
  if (row.scope === "project" && !row.approved) return void (row.status = "not-approved");
  const { probeServer } = await import("../../mcp/probe-server.ts");
  const timeoutMs = limit ?? Math.min(entry.timeoutMs ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS);
  const r = await probeServer(row.name, entry, { home: ctx.home, env: ctx.env, projectRoot: ctx.projectRoot, timeoutMs, clientVersion: versionString() });
  row.status = r.state;
  if (r.state === "connected") row.tools = r.tools;
  if (r.state === "failed") row.error = r.reason;
}

async function rowOf(ctx: McpCliContext, s: ConfiguredServer, shadowed: boolean): Promise<Row> {
  const raw = (s.raw && typeof s.raw === "object" ? s.raw : {}) as Record<string, unknown>;
  const entry = s.entry;
  const row: Row = {
    name: s.name,
    scope: s.scope,
    file: s.file,
    transport: entry ? transportOf(entry) : typeof raw.type === "string" ? raw.type : "?",
    enabled: raw.enabled !== false,
    target: entry ? targetOf(entry) : "",
    ...(shadowed ? { shadowed } : {}),
    ...(s.error ? { error: s.error } : {}),
  };
  if (s.scope === "project" && entry) {
    const { isApproved } = await import("../../mcp/approvals.ts");
    row.approved = isApproved(ctx.projectRoot, s.name, entry, { home: ctx.home });
  }
  return row;
}

export const transportOf = (e: McpServerConfig): string => (isStdioServer(e) ? "stdio" : e.type === "sse" ? "sse" : "http");
export const targetOf = (e: McpServerConfig): string => (isStdioServer(e) ? [e.command, ...(e.args ?? [])].join(" ") : e.url);

function statusText(r: Row): string {
  const text = connectionText(r);
  return r.approved && r.status !== undefined ? `${t("mcp.status.approved")}; ${text}` : text;
}

function connectionText(r: Row): string {
  if (r.error) return r.status === "failed" ? t("mcp.status.failed", { reason: r.error }) : t("mcp.status.invalid", { error: r.error });
  if (r.shadowed) return t("mcp.status.shadowed");
  switch (r.status) {
    case "connected":
      return t("mcp.status.connected", { tools: r.tools ?? 0 });
    case "needs-login":
      return t("mcp.status.needsLogin", { name: r.name });
    case "disabled":
      return t("mcp.status.disabled");
    case "not-approved":
      return t("mcp.status.notApproved", { name: r.name });
  }
  if (r.approved === false) return t("mcp.status.notApproved", { name: r.name });
  return r.approved ? t("mcp.status.approved") : "";
}

function table(rows: Row[]): string {
  const head = [t("mcp.col.name"), t("mcp.col.scope"), t("mcp.col.transport"), t("mcp.col.enabled"), t("mcp.col.target"), t("mcp.col.status")];
  const cells = rows.map((r) => [r.name, r.scope, r.transport, t(r.enabled ? "mcp.yes" : "mcp.no"), r.target, statusText(r)]);
  const all = [head, ...cells];
  const widths = head.map((_, i) => Math.max(...all.map((c) => c[i]!.length)));
  return `${all.map((c) => c.map((x, i) => (i < c.length - 1 ? x.padEnd(widths[i]!) : x)).join("  ").trimEnd()).join("\n")}\n`;
}

/** env and header values hidden (a `${VAR}` reference is shown: it is not the secret). */
function maskEntry(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const mask = (v: unknown) => (typeof v === "string" && /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/.test(v) ? v : "***");
  for (const k of ["env", "headers"]) {
    const m = out[k];
    if (m && typeof m === "object") out[k] = Object.fromEntries(Object.entries(m as Record<string, unknown>).map(([a, v]) => [a, mask(v)]));
  }
  const oauth = out.oauth as Record<string, unknown> | undefined;
  if (oauth && typeof oauth === "object" && oauth.clientSecret !== undefined) out.oauth = { ...oauth, clientSecret: "***" };
  return out;
}
