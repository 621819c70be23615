/**
 * `chatcli serve`: puts sessions on the wire (issue 22, docs/server.md). Loaded with `await import()` by main.ts
 * only for this subcommand. This file is the wiring: it builds each hosted session with wireSession (the same
 * collaborators as the TUI: approvals round-trip to the driving client, autosave, checkpoints) and hands the
 * transports a SessionHost. Exit codes: 0 done, 1 failure, 2 usage.
 */
import { loadConfig } from "../../config/load-config.ts";
import { permissionModeSchema, type PermissionMode } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import { SessionStore } from "../../store/session-store.ts";
import { loadSession, type LoadedSession } from "../../store/session-file.ts";
import { serverSchema } from "../../server/json-schema.ts";
import { RpcFailure, SessionHost, type BuiltSession, type SessionExtras, type SessionFactory } from "../../server/session-host.ts";
import { RPC_ERROR, type SessionInfo } from "../../server/protocol.ts";
import { statSync } from "node:fs";
import { serveStdio } from "../../server/serve-stdio.ts";
import { queueBytesFromEnv } from "../../server/limits.ts";
import { normalizeOrigin } from "../../server/auth.ts";
import { DEFAULT_PORT, probeCommand, serveHttpCommand, type HttpArgs } from "./serve-http-command.ts";
import { VERSION } from "../../version.ts";
import { UsageError, type CommonFlags } from "../args.ts";
import { resolveModel } from "../resolve-model.ts";
import { wireSession } from "../wire-session.ts";
import { registerOpenAiCompatibleFromSettings } from "../../llm/providers/openai-compatible.ts";
import { parseSubcommandArgs, type Out } from "./subcommand.ts";


export interface ServeArgs {
  stdio: boolean;
  printSchema: boolean;
  help: boolean;
  flags: CommonFlags;
  /** The HTTP transport's flags (the default transport). */
  http: HttpArgs;
  /** `--probe [URL]`: check a running server instead of serving (url undefined = the default). */
  probe?: { url?: string };
  /** HTTP-only flags seen (refused with --stdio). */
  httpFlags: string[];
}

export async function serveCommand(argv: string[], out: Out, err: Out): Promise<number> {
  const args = parseSubcommandArgs(() => parseServeArgs(argv), (e) => e instanceof UsageError, { help: "serve.help", runHelp: "serve.runHelp" }, out, err);
  if (typeof args === "number") return args;
  if (args.printSchema) {
    out.write(`${JSON.stringify(serverSchema(), null, 2)}\n`);
    return 0;
  }
  if (args.probe) return probeCommand({ ...args.probe, ...(args.http.tokenFile ? { tokenFile: args.http.tokenFile } : {}), ...(args.http.tlsCert ? { tlsCert: args.http.tlsCert } : {}) }, out, err);
  if (args.stdio && args.httpFlags.length > 0) {
    err.write(`chatcli: ${t("serve.http.stdioFlag", { flag: args.httpFlags[0]! })}\n${t("serve.runHelp")}\n`);
    return 2;
  }
  if (!args.stdio) return serveHttpCommand(args.http, new SessionHost(createFactory(process.cwd(), process.env, args.flags)), err);
  const log = (line: string) => err.write(`${t("serve.log.request", { line })}\n`);
  const host = new SessionHost(createFactory(process.cwd(), process.env, args.flags));
  // SIGTERM/SIGINT: stop reading, then the same path as stdin's end (turns end cleanly, every session saved), and
  // main.ts exits once stdout is flushed.
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  err.write(`${t("serve.log.connected", { client: "stdio" })}\n`);
  const { dropped, outputLost } = await serveStdio({ host, input: Bun.stdin.stream(), output: process.stdout, serverVersion: VERSION, log, warn: (line) => err.write(`${line}\n`), signal: stopping.signal, onShutdown: (count) => err.write(`${t("serve.log.shutdown", { count })}\n`), ...queueLimit(process.env) });
  err.write(`${t("serve.log.disconnected", { client: "stdio" })}\n`);
  process.off("SIGTERM", stop);
  process.off("SIGINT", stop);
  return dropped || outputLost ? 1 : 0;
}

export function parseServeArgs(argv: string[]): ServeArgs {
  const a: ServeArgs = { stdio: false, printSchema: false, help: false, flags: {}, http: { host: "127.0.0.1", port: DEFAULT_PORT, allowRemote: false, insecure: false, allowOrigins: [] }, httpFlags: [] };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const [flag, inline] = word.startsWith("--") && word.includes("=") ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)] : [word, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(t("serve.missingValue", { flag }));
      return v;
    };
    if (HTTP_FLAGS.has(flag) && flag !== "--token-file" && flag !== "--tls-cert") a.httpFlags.push(flag);
    if (flag === "--stdio") a.stdio = true;
    else if (flag === "--host") a.http.host = value();
    else if (flag === "--port") a.http.port = port(value());
    else if (flag === "--allow-remote") a.http.allowRemote = true;
    else if (flag === "--insecure") a.http.insecure = true;
    else if (flag === "--tls-cert") a.http.tlsCert = value();
    else if (flag === "--tls-key") a.http.tlsKey = value();
    else if (flag === "--token-file") a.http.tokenFile = value();
    else if (flag === "--allow-origin") a.http.allowOrigins.push(origin(value()));
    else if (flag === "--probe") {
      const next = inline ?? (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("-") ? argv[++i] : undefined);
      a.probe = next ? { url: next } : {};
    }
    else if (flag === "--print-schema") a.printSchema = true;
    else if (flag === "--help" || flag === "-h") a.help = true;
    else if (flag === "--provider") a.flags.provider = value();
    else if (flag === "--model" || flag === "-m") a.flags.model = value();
    else if (flag === "--permission-mode") a.flags.permissionMode = mode(value());
    else throw new UsageError(t("serve.unknownFlag", { flag: word }));
  }
  return a;
}

const HTTP_FLAGS = new Set(["--host", "--port", "--allow-remote", "--insecure", "--tls-cert", "--tls-key", "--token-file", "--allow-origin"]);

function port(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new UsageError(t("serve.http.badPort"));
  return n;
}

function origin(v: string): string {
  const o = normalizeOrigin(v);
  if (!o) throw new UsageError(t("serve.http.badOrigin", { origin: v }));
  return o;
}

function mode(v: string): PermissionMode {
  const m = permissionModeSchema.safeParse(v);
  if (!m.success) throw new UsageError(t("serve.badMode", { modes: permissionModeSchema.options.join(", ") }));
  return m.data;
}

/** Sessions built as the TUI builds them (interactive: approvals wait for the driving client's answer). */
export function createFactory(serverCwd: string, env: Record<string, string | undefined>, defaults: CommonFlags): SessionFactory {
  const store = () => new SessionStore({ home: loadConfig({ cwd: serverCwd, env, flags: {} }).home, env });
  const build = async (cwd: string, flags: CommonFlags, resume?: LoadedSession, extras?: SessionExtras): Promise<BuiltSession> => {
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new RpcFailure(RPC_ERROR.invalidParams, `not a directory: ${cwd}`);
    // What stops a session from starting (bad settings, provider down, no such model) is the client's to show.
    const started = await (async () => {
      const cfg = loadConfig({ cwd, env, flags });
      registerOpenAiCompatibleFromSettings(cfg.settings.providers?.openaiCompatible ?? []);
      return { cfg, resolved: await resolveModel(cfg) };
    })().catch((e: unknown) => {
      throw new RpcFailure(RPC_ERROR.sessionStartFailed, e instanceof Error ? e.message : String(e));
    });
    const { cfg, resolved } = started;
    const wired = wireSession({ cfg, resolved, permissionMode: flags.permissionMode ?? cfg.permissionMode, interactive: true, ...(resume ? { resume } : {}), ...(extras?.files ? { files: extras.files } : {}), ...(extras?.mcpConfig?.length ? { mcp: { configFiles: extras.mcpConfig, strict: false } } : {}) });
    // Project MCP servers nobody approved are not started (as headless); approved ones start in the background.
    wired.mcp?.startAll();
    const session = wired.session;
    return {
      id: wired.recorder?.id ?? resume?.meta.id ?? "",
      cwd: cfg.cwd,
      core: session,
      provider: () => session.model.providerId,
      model: () => session.model.model,
      mode: () => session.mode,
      ...(resume ? { history: resume.history, title: resume.meta.title ?? "" } : {}),
      checkpoints: wired.checkpoints,
      contextWindow: () => session.contextWindow,
      dispose: async () => {
        await wired.ext?.runtime.end("other");
        await wired.memory?.flush();
        await wired.mcp?.dispose();
        wired.dispose();
      },
    };
  };
  // Bypass from the wire only when the server itself runs with it (src/server/wire-policy.ts): its flag, or the
  // user's own sources (a repository's settings and .env cannot set bypass, load-config.ts).
  const allowBypass = defaults.permissionMode === "bypass" || (() => {
    try {
      return loadConfig({ cwd: serverCwd, env, flags: {} }).permissionMode === "bypass";
    } catch {
      return false;
    }
  })();
  return {
    allowBypass,
    create: (p, extras) => build(p.cwd ?? serverCwd, { ...defaults, ...(p.provider ? { provider: p.provider } : {}), ...(p.model ? { model: p.model } : {}), ...(p.permissionMode ? { permissionMode: p.permissionMode } : {}) }, undefined, extras),
    resume: async (ref, extras) => {
      const found = store().resolve(ref);
      if (!found) return undefined;
      const loaded = loadSession(found.file);
      return build(loaded.meta.cwd || found.projectRoot || serverCwd, { ...defaults, provider: found.provider, model: found.model }, loaded, extras);
    },
    resolveId: (ref) => store().resolve(ref)?.id,
    models: async (cwd) => (await import("../interactive-commands.ts")).listModelChoices(loadConfig({ cwd: cwd ?? serverCwd, env, flags: {} })),
    saved: (): SessionInfo[] =>
      store()
        .list()
        .map((s) => ({ sessionId: s.id, title: s.title, provider: s.provider, model: s.model, cwd: s.projectRoot, live: false, running: false, updatedAt: s.updatedAt, messages: s.messages, clients: 0 })),
  };
}

/** CHATCLI_SERVE_QUEUE_BYTES, as serveStdio's option. */
function queueLimit(env: Record<string, string | undefined>): { maxQueuedBytes?: number } {
  const bytes = queueBytesFromEnv(env);
  return bytes ? { maxQueuedBytes: bytes } : {};
}
