/**
 * `chatcli connect [URL]`: the full TUI as a client of a running `chatcli serve` (issue 22, docs/server.md).
 * Loaded with `await import()` by main.ts only for this subcommand. `--list` prints the server's sessions and
 * exits; `--session ID` attaches to a live session or resumes a saved one; otherwise a new session is created —
 * in the client's directory when the server is on this machine (loopback), else in the server's own directory.
 * Exit codes: 0 done, 1 the server could not be reached / refused us, 2 usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError } from "../../config/load-config.ts";
import { findProjectRoot } from "../../config/paths.ts";
import { t } from "../../i18n/i18n.ts";
import type { SessionInfo } from "../../server/protocol.ts";
import { RPC_ERROR } from "../../server/protocol.ts";
import { RemoteSession, VersionMismatch, type ConnectionState } from "../../server/remote-session.ts";
import { ChannelClosed, RpcClient, RpcError } from "../../server/rpc-client.ts";
import { openWsChannel, probeServer, type ServerTarget } from "../../server/ws-channel.ts";
import { Logger } from "../../util/logger.ts";
import { VERSION, versionString } from "../../version.ts";
import { UsageError } from "../args.ts";
import { parseConnectArgs, parseServerUrl, resolveToken, type ConnectArgs, type ServerUrl } from "./connect-args.ts";
import { parseSubcommandArgs, type Out } from "./subcommand.ts";


export async function connectCommand(argv: string[], out: Out, err: Out, env: Record<string, string | undefined> = process.env): Promise<number> {
  const parsed = parseSubcommandArgs(() => {
    const a = parseConnectArgs(argv);
    return { ...a, serverUrl: a.help ? undefined : parseServerUrl(a.url) };
  }, (e) => e instanceof UsageError, { help: "connect.help", runHelp: "connect.runHelp" }, out, err);
  if (typeof parsed === "number") return parsed;
  const args: ConnectArgs = parsed;
  const url = parsed.serverUrl!;
  if (args.caCert && !existsSync(args.caCert)) {
    err.write(`chatcli: ${t("connect.noCaFile", { file: args.caCert })}\n`);
    return 2;
  }
  const ca = args.caCert ? readFileSync(args.caCert, "utf8") : undefined;
  // Read at every (re)connect: a restarted local server writes a new token file.
  const target = (): ServerTarget => ({ base: url.base, ...tokenOf(args, url, env), ...(ca ? { ca } : {}), ...(args.insecureTls ? { insecureTls: true } : {}) });
  const probe = await probeServer(target());
  if (!probe.ok) {
    err.write(`chatcli: ${probeMessage(probe, args, url, env)}\n`);
    return 1;
  }
  if (args.list) return listSessions(target(), url, out, err);
  return runRemoteTui(args, url, target, env, err);
}

function tokenOf(args: ConnectArgs, url: ServerUrl, env: Record<string, string | undefined>): { token?: string } {
  const r = resolveToken(args, url, env);
  return r.token ? { token: r.token } : {};
}

function probeMessage(p: Exclude<Awaited<ReturnType<typeof probeServer>>, { ok: true }>, args: ConnectArgs, url: ServerUrl, env: Record<string, string | undefined>): string {
  switch (p.kind) {
    case "refused":
      return t("connect.refused", { url: url.base, detail: p.detail });
    case "unauthorized": {
      const tok = resolveToken(args, url, env);
      const from = tok.source === "flag" ? "--token" : tok.source === "env" ? "CHATCLI_SERVER_TOKEN" : tok.source === "file" ? tok.file : t("connect.tokenNone");
      return t("connect.unauthorized", { url: url.base, from, file: tok.file });
    }
    case "tls":
      return t("connect.tls", { url: url.base, detail: p.detail });
    case "http":
      return t("connect.notAServer", { url: url.base, detail: p.detail });
  }
}

/** One short connection: initialize, session/list, print, close. */
async function listSessions(target: ServerTarget, url: ServerUrl, out: Out, err: Out): Promise<number> {
  let client: RpcClient | undefined;
  try {
    client = new RpcClient(await openWsChannel(target), () => undefined);
    const { SERVER_PROTOCOL_VERSION } = await import("../../server/protocol.ts");
    await client.request("initialize", { protocolVersion: SERVER_PROTOCOL_VERSION, clientInfo: { name: "chatcli-connect", version: VERSION } });
    const { sessions } = await client.request("session/list", {});
    out.write(formatSessionList(sessions));
    return 0;
  } catch (e) {
    err.write(`chatcli: ${failureMessage(e, url)}\n`);
    return 1;
  } finally {
    client?.close();
  }
}

export function formatSessionList(sessions: SessionInfo[]): string {
  if (!sessions.length) return `${t("connect.list.none")}\n`;
  const rows = sessions.map((s) => [s.sessionId, s.live ? (s.running ? t("connect.list.running") : t("connect.list.live")) : t("connect.list.saved"), stamp(s.updatedAt), `${s.provider}:${s.model}`, s.cwd, s.title || "—"]);
  const head = [t("connect.list.id"), t("connect.list.state"), t("connect.list.updated"), t("connect.list.model"), t("connect.list.cwd"), t("connect.list.name")];
  const widths = head.map((h, i) => Math.max(Bun.stringWidth(h), ...rows.map((r) => Bun.stringWidth(r[i]!))));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(widths[i]! - Bun.stringWidth(c)))).join("  ");
  return `${[head, ...rows].map(line).join("\n")}\n`;
}

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function failureMessage(e: unknown, url: ServerUrl): string {
  if (e instanceof VersionMismatch) return t("connect.versionMismatch", { detail: e.message });
  if (e instanceof RpcError && e.code === RPC_ERROR.sessionNotFound) return t("connect.noSuchSession", { detail: e.message });
  if (e instanceof RpcError && e.code === RPC_ERROR.sessionStartFailed) return t("connect.startFailed", { detail: e.message });
  if (e instanceof RpcError) return t("connect.serverError", { detail: e.message });
  if (e instanceof ChannelClosed) return t("connect.lost", { url: url.base, detail: e.message });
  return t("connect.wsFailed", { url: url.base, detail: e instanceof Error ? e.message : String(e) });
}

async function runRemoteTui(args: ConnectArgs, url: ServerUrl, target: () => ServerTarget, env: Record<string, string | undefined>, err: Out): Promise<number> {
  let cfg: ReturnType<typeof loadConfig>;
  try {
    cfg = loadConfig({ cwd: process.cwd(), env, flags: {} });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    err.write(`chatcli: ${e.message}\n`);
    return 2;
  }
  if (!process.stdout.isTTY) {
    err.write(`chatcli: ${t("connect.needsTty")}\n`);
    return 2;
  }
  const logger = new Logger(join(cfg.home, "logs"));
  let remote: RemoteSession;
  try {
    remote = await RemoteSession.open({
      connect: () => openWsChannel(target()),
      ...(args.session ? { sessionId: args.session } : {}),
      // A server on this machine works where the person is; a remote one in its own directory.
      create: { ...(url.loopback ? { cwd: process.cwd() } : {}), ...(args.provider ? { provider: args.provider } : {}), ...(args.model ? { model: args.model } : {}), ...(args.permissionMode ? { permissionMode: args.permissionMode } : {}) },
      clientVersion: VERSION,
      log: (line) => logger.info(`connect: ${line}`),
    });
  } catch (e) {
    err.write(`chatcli: ${failureMessage(e, url)}\n`);
    return 1;
  }
  const info = remote.info;
  const label = (s: ConnectionState): string => (s.state === "connected" ? t("connect.status.connected", { where: url.where }) : s.state === "reconnecting" ? t("connect.status.reconnecting") : t("connect.status.closed"));
  const { runTui, displayModeFromEnv } = await import("../../ui/tui/run-tui.ts");
  try {
    return await runTui({
      session: remote,
      provider: info.provider,
      model: info.model,
      cwd: info.cwd,
      inline: args.inline || cfg.settings.ui?.screen === "inline",
      permissionMode: info.permissionMode ?? "default",
      // The same prompt history as a local session in that project when the server is on this machine.
      historyFile: join(cfg.home, "history", `${Bun.hash(url.loopback ? findProjectRoot(info.cwd) : `${url.where}${info.cwd}`).toString(36)}.jsonl`),
      displayMode: displayModeFromEnv(cfg.settings.ui?.mode ?? "full", cfg.env),
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
      checkpoints: remote.checkpoints,
      listModels: () => remote.listModels(),
      connection: {
        subscribe: (listener: (label: string) => void) => {
          listener(label(remote.connection));
          return remote.onConnection((s) => listener(label(s)));
        },
      },
      ...(cfg.settings.editor?.vim ? { vim: true } : {}),
      ...(cfg.settings.ui?.theme ? { theme: cfg.settings.ui.theme } : {}),
      version: versionString(),
      logFile: logger.file,
    });
  } finally {
    remote.close();
  }
}
