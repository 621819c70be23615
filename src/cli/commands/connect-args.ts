/**
 * `chatcli connect` arguments, the server URL and where the token comes from (docs/server.md "chatcli connect").
 * URL default http://127.0.0.1:7433; `host:port`, http(s):// and ws(s):// forms are accepted (the WebSocket path
 * /ws is derived). Token: `--token`, then CHATCLI_SERVER_TOKEN, then — only for a loopback host —
 * `$CHATCLI_HOME/server/<port>.token`, the file a local `chatcli serve` writes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatcliHome } from "../../config/paths.ts";
import { permissionModeSchema, type PermissionMode } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import { UsageError } from "../args.ts";

export const DEFAULT_SERVER_URL = "http://127.0.0.1:7433";

export interface ConnectArgs {
  url: string;
  token?: string;
  session?: string;
  list: boolean;
  help: boolean;
  provider?: string;
  model?: string;
  permissionMode?: PermissionMode;
  /** PEM file of the CA / self-signed certificate to trust (https/wss). */
  caCert?: string;
  insecureTls: boolean;
  inline: boolean;
}

export function parseConnectArgs(argv: string[]): ConnectArgs {
  const a: ConnectArgs = { url: DEFAULT_SERVER_URL, list: false, help: false, insecureTls: false, inline: false };
  let positional = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const [flag, inline] = word.startsWith("--") && word.includes("=") ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)] : [word, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(t("connect.missingValue", { flag }));
      return v;
    };
    if (flag === "--list" || flag === "-l") a.list = true;
    else if (flag === "--help" || flag === "-h") a.help = true;
    else if (flag === "--token") a.token = value();
    else if (flag === "--session" || flag === "-s") a.session = value();
    else if (flag === "--provider") a.provider = value();
    else if (flag === "--model" || flag === "-m") a.model = value();
    else if (flag === "--permission-mode") a.permissionMode = mode(value());
    else if (flag === "--ca-cert") a.caCert = value();
    else if (flag === "--insecure-tls") a.insecureTls = true;
    else if (flag === "--inline") a.inline = true;
    else if (!word.startsWith("-") && !positional) {
      positional = true;
      a.url = word;
    } else throw new UsageError(t("connect.unknownFlag", { flag: word }));
  }
  return a;
}

function mode(v: string): PermissionMode {
  const m = permissionModeSchema.safeParse(v);
  if (!m.success) throw new UsageError(t("connect.badMode", { modes: permissionModeSchema.options.join(", ") }));
  return m.data;
}

export interface ServerUrl {
  /** http(s)://host:port, no path. */
  base: string;
  /** host:port as shown in the status line. */
  where: string;
  port: number;
  loopback: boolean;
}

/** The server's base URL from what the person typed; a UsageError when it is not a server address. */
export function parseServerUrl(input: string): ServerUrl {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new UsageError(t("connect.badUrl", { url: input }));
  }
  const scheme = { "http:": "http", "ws:": "http", "https:": "https", "wss:": "https" }[u.protocol];
  if (!scheme || !u.hostname) throw new UsageError(t("connect.badUrl", { url: input }));
  // No port written: 7433, whatever the scheme (URL() drops :80 / :443, so the port is read from the text itself).
  const written = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^/:?#]*):(\d+)/i.exec(withScheme)?.[1];
  const port = written ? Number(written) : 7433;
  const host = u.hostname;
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return { base: `${scheme}://${hostPart}:${port}`, where: `${hostPart}:${port}`, port, loopback: isLoopback(host) };
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The token to send, and where it came from (for the 401 message). Read again at every reconnect (a restarted server writes a new one). */
export function resolveToken(args: Pick<ConnectArgs, "token">, url: ServerUrl, env: Record<string, string | undefined>): { token?: string; source: "flag" | "env" | "file" | "none"; file: string } {
  const file = tokenFile(url.port, env);
  if (args.token) return { token: args.token, source: "flag", file };
  const fromEnv = env.CHATCLI_SERVER_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: "env", file };
  if (!url.loopback) return { source: "none", file };
  try {
    const token = readFileSync(file, "utf8").trim();
    return token ? { token, source: "file", file } : { source: "none", file };
  } catch {
    return { source: "none", file };
  }
}

export function tokenFile(port: number, env: Record<string, string | undefined>): string {
  return join(chatcliHome(env), "server", `${port}.token`);
}
