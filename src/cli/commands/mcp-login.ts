/** `chatcli mcp login NAME` (OAuth 2.1 in the browser, tokens stored 0600) and `chatcli mcp logout NAME`. */
import { t } from "../../i18n/i18n.ts";
import { findServer } from "../../mcp/config-files.ts";
import { isStdioServer, mcpServersSchema, type RemoteServerConfig } from "../../mcp/server-config.ts";
import { UsageError } from "../args.ts";
import { parseOptions, positiveInt } from "./mcp-args.ts";
import type { McpCliContext } from "./mcp-context.ts";

const LOGIN_TIMEOUT_MS = 300_000;

export async function mcpLogin(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, [{ name: "no-browser" }, { name: "timeout-ms", value: true }]);
  const [name, ...more] = p.positionals;
  if (!name || more.length) throw new UsageError(t("mcp.loginUsage"));
  const config = remoteEntry(ctx, name);
  if (!config) return 1;
  const { loginToServer } = await import("../../mcp/oauth/login.ts");
  const { openBrowser } = await import("../../mcp/oauth/open-browser.ts");
  const { oauthFile } = await import("../../mcp/oauth/token-store.ts");
  const ctrl = new AbortController();
  const onSigint = () => ctrl.abort();
  process.on("SIGINT", onSigint);
  try {
    const how = await loginToServer({
      home: ctx.home,
      serverName: name,
      config,
      timeoutMs: positiveInt(p, "timeout-ms") ?? LOGIN_TIMEOUT_MS,
      signal: ctrl.signal,
      onAuthorizationUrl: (url) => {
        ctx.out.write(`${t("mcp.login.openUrl", { name, url: url.toString() })}\n`);
        if (!p.flags.has("no-browser")) openBrowser(url.toString(), ctx.env);
      },
    });
    ctx.out.write(`${t(how === "refreshed" ? "mcp.login.refreshed" : "mcp.login.done", { name, file: oauthFile(ctx.home, name) })}\n`);
    return 0;
  } catch (err) {
    ctx.err.write(`chatcli: ${t("mcp.login.failed", { name, message: (err as Error).message })}\n`);
    return ctrl.signal.aborted ? 130 : 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

export async function mcpLogout(ctx: McpCliContext, words: string[]): Promise<number> {
  const p = parseOptions(words, []);
  const [name, ...more] = p.positionals;
  if (!name || more.length) throw new UsageError(t("mcp.logoutUsage"));
  if (!mcpServersSchema.keyType.safeParse(name).success) throw new UsageError(t("mcp.badName", { name }));
  const { deleteOAuthState } = await import("../../mcp/oauth/token-store.ts");
  const removed = deleteOAuthState(ctx.home, name);
  ctx.out.write(`${t(removed ? "mcp.logout.done" : "mcp.logout.none", { name })}\n`);
  return 0;
}

/** The remote entry a name means, or undefined after saying why on stderr. */
function remoteEntry(ctx: McpCliContext, name: string): RemoteServerConfig | undefined {
  const server = findServer(ctx.home, ctx.projectRoot, name);
  if (!server) {
    ctx.err.write(`chatcli: ${t("mcp.notFound", { name })}\n`);
    return undefined;
  }
  if (!server.entry) {
    ctx.err.write(`chatcli: ${t("mcp.invalidEntry", { name, file: server.file, error: server.error ?? "" })}\n`);
    return undefined;
  }
  if (isStdioServer(server.entry)) {
    ctx.err.write(`chatcli: ${t("mcp.login.notRemote", { name })}\n`);
    return undefined;
  }
  return server.entry as RemoteServerConfig;
}
