/** `chatcli mcp add`, `add-json` and `remove`: edit `mcpServers` of the user settings or the project's `.mcp.json`. */
import { t } from "../../i18n/i18n.ts";
import { editServers, readScope, type EditableScope } from "../../mcp/config-files.ts";
import { mcpServerSchema, mcpServersSchema } from "../../mcp/server-config.ts";
import { UsageError } from "../args.ts";
import { envPairs, headerPairs, listOption, one, parseOptions, positiveInt, scopeOption, type OptionSpec } from "./mcp-args.ts";
import type { McpCliContext } from "./mcp-context.ts";

const ADD_OPTIONS: OptionSpec[] = [
  { name: "transport", short: "t", value: true },
  { name: "scope", short: "s", value: true },
  { name: "env", short: "e", value: true, repeat: true },
  { name: "header", short: "H", value: true, repeat: true },
  { name: "bearer-token-env", value: true },
  { name: "client-id", value: true },
  { name: "client-secret", value: true },
  { name: "oauth-scopes", value: true, repeat: true },
  { name: "callback-port", value: true },
  { name: "timeout-ms", value: true },
  { name: "tool-timeout-ms", value: true },
  { name: "include-tools", value: true, repeat: true },
  { name: "exclude-tools", value: true, repeat: true },
  { name: "cwd", value: true },
  { name: "disabled" },
  { name: "force", short: "f" },
];

const TRANSPORTS = ["stdio", "http", "sse", "streamable-http"] as const;
const isUrl = (s: string) => /^https?:\/\//i.test(s);

export async function mcpAdd(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, ADD_OPTIONS, (pos, soFar) => {
    if (pos.length < 2) return false;
    const transport = one(soFar, "transport");
    const remote = transport === "http" || transport === "sse" || transport === "streamable-http" || (transport === undefined && isUrl(pos[1]!));
    return !remote; // a stdio command's own words are never ours
  });
  const transport = one(p, "transport");
  if (transport !== undefined && !(TRANSPORTS as readonly string[]).includes(transport)) throw new UsageError(t("mcp.badTransport", { transport }));
  const [name, target, ...extra] = [...p.positionals, ...p.rest];
  if (!name) throw new UsageError(t("mcp.addNeedsName"));
  if (!target) throw new UsageError(t("mcp.addNeedsTarget", { name }));
  if (!mcpServersSchema.keyType.safeParse(name).success) throw new UsageError(t("mcp.badName", { name }));
  const kind = transport === "streamable-http" ? "http" : (transport ?? (isUrl(target) ? "http" : "stdio"));
  const common = commonFields(p);
  let entry: Record<string, unknown>;
  if (kind === "stdio") {
    const env = envPairs(p.opts.get("env"));
    if (p.opts.has("header")) throw new UsageError(t("mcp.headerNeedsRemote"));
    entry = { command: target, ...(extra.length ? { args: extra } : {}), ...(env ? { env } : {}), ...(one(p, "cwd") ? { cwd: one(p, "cwd") } : {}), ...common };
  } else {
    if (extra.length) throw new UsageError(t("mcp.remoteExtraArgs", { words: extra.join(" ") }));
    if (p.opts.has("env")) throw new UsageError(t("mcp.envNeedsStdio"));
    const headers = headerPairs(p.opts.get("header"));
    const oauth = oauthFields(p);
    const bearer = one(p, "bearer-token-env");
    entry = { type: kind, url: target, ...(headers ? { headers } : {}), ...(bearer ? { bearerTokenEnv: bearer } : {}), ...(oauth ? { oauth } : {}), ...common };
  }
  const parsed = mcpServerSchema.safeParse(entry);
  if (!parsed.success) throw new UsageError(t("mcp.badEntry", { name, problem: parsed.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; ") }));
  return writeEntry(ctx, name, entry, scopeOption(p) ?? "user", p.flags.has("force"));
}

/** `chatcli mcp add-json NAME '{"command": …}'`: an entry as JSON, checked against the schema. */
export async function mcpAddJson(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, [{ name: "scope", short: "s", value: true }, { name: "force", short: "f" }]);
  const [name, json, ...more] = p.positionals;
  if (!name || !json || more.length) throw new UsageError(t("mcp.addJsonUsage"));
  if (!mcpServersSchema.keyType.safeParse(name).success) throw new UsageError(t("mcp.badName", { name }));
  let entry: unknown;
  try {
    entry = JSON.parse(json);
  } catch (err) {
    throw new UsageError(t("mcp.badJson", { message: (err as Error).message }));
  }
  const parsed = mcpServerSchema.safeParse(entry);
  if (!parsed.success || typeof entry !== "object" || entry === null) {
    throw new UsageError(t("mcp.badEntry", { name, problem: parsed.error?.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; ") ?? "" }));
  }
  return writeEntry(ctx, name, entry as Record<string, unknown>, scopeOption(p) ?? "user", p.flags.has("force"));
}

async function writeEntry(ctx: McpCliContext, name: string, entry: Record<string, unknown>, scope: EditableScope, force: boolean): Promise<number> {
  const r = editServers(scope, ctx.home, ctx.projectRoot, (servers) => {
    if (Object.hasOwn(servers, name) && !force) return { write: false, result: "exists" as const };
    servers[name] = entry;
    return { write: true, result: "added" as const };
  });
  if (!r.ok) {
    ctx.err.write(`chatcli: ${t("mcp.cannotEdit", { file: r.file, error: r.error })}\n`);
    return 1;
  }
  if (r.result === "exists") {
    ctx.err.write(`chatcli: ${t("mcp.exists", { name, file: r.file })}\n`);
    return 1;
  }
  ctx.out.write(`${t("mcp.added", { name, scope, file: r.file })}\n`);
  // The user wrote this project entry from their own shell: that is the approval (a later edit by anyone else is not).
  if (scope === "project") {
    const { approve } = await import("../../mcp/approvals.ts");
    approve(ctx.projectRoot, name, mcpServerSchema.parse(entry), { home: ctx.home });
  }
  return 0;
}

export function mcpRemove(ctx: McpCliContext, words: string[]): number {
  const p = parseOptions(words, [{ name: "scope", short: "s", value: true }]);
  const [name, ...more] = p.positionals;
  if (!name || more.length) throw new UsageError(t("mcp.removeUsage"));
  const scope = scopeOption(p);
  const found = (["user", "project"] as const).filter((s) => (scope ? s === scope : true) && readScope(s, ctx.home, ctx.projectRoot).servers.some((x) => x.name === name));
  if (!found.length) {
    ctx.err.write(`chatcli: ${t("mcp.notFound", { name })}\n`);
    return 1;
  }
  if (found.length > 1) {
    ctx.err.write(`chatcli: ${t("mcp.inBothScopes", { name })}\n`);
    return 1;
  }
  const r = editServers(found[0]!, ctx.home, ctx.projectRoot, (servers) => {
    delete servers[name];
    return { write: true, result: undefined };
  });
  if (!r.ok) {
    ctx.err.write(`chatcli: ${t("mcp.cannotEdit", { file: r.file, error: r.error })}\n`);
    return 1;
  }
  ctx.out.write(`${t("mcp.removed", { name, scope: found[0]!, file: r.file })}\n`);
  return 0;
}

function commonFields(p: ReturnType<typeof parseOptions>): Record<string, unknown> {
  const timeoutMs = positiveInt(p, "timeout-ms");
  const toolTimeoutMs = positiveInt(p, "tool-timeout-ms");
  const includeTools = listOption(p, "include-tools");
  const excludeTools = listOption(p, "exclude-tools");
  return {
    ...(p.flags.has("disabled") ? { enabled: false } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(toolTimeoutMs ? { toolTimeoutMs } : {}),
    ...(includeTools ? { includeTools } : {}),
    ...(excludeTools ? { excludeTools } : {}),
  };
}

function oauthFields(p: ReturnType<typeof parseOptions>): Record<string, unknown> | undefined {
  const clientId = one(p, "client-id");
  const clientSecret = one(p, "client-secret");
  const scopes = listOption(p, "oauth-scopes");
  const port = one(p, "callback-port");
  let callbackPort: number | undefined;
  if (port !== undefined) {
    callbackPort = Number(port);
    if (!Number.isInteger(callbackPort) || callbackPort < 0 || callbackPort > 65535) throw new UsageError(t("mcp.badNumber", { option: "--callback-port", value: port }));
  }
  const o = { ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}), ...(scopes ? { scopes } : {}), ...(callbackPort !== undefined ? { callbackPort } : {}) };
  return Object.keys(o).length ? o : undefined;
}
