/**
 * Entry point: parse args, load config, pick a mode, wire the layers. Exit codes: 0 success,
 * 1 runtime failure (provider down, model missing), 2 bad usage or invalid configuration, 3 the budget limit
 * (`--max-budget-usd`) stopped the run, 130 interrupted.
 * The TUI is imported lazily so headless runs never load OpenTUI.
 */
import "./llm/providers/index.ts";
import { join } from "node:path";
import { parseArgs, UsageError, type CliCommand } from "./cli/args.ts";
import { McpConfigError } from "./mcp/load-servers.ts";
import type { McpManager } from "./mcp/runtime/mcp-manager.ts";
import { askToApproveProjectServers, createMcpSlash, MCP_SLASH_COMMAND } from "./cli/mcp-slash.ts";
import { modelsCommand } from "./cli/commands/models.ts";
import { providersCommand } from "./cli/commands/providers.ts";
import { listModelChoices, statsText } from "./cli/interactive-commands.ts";
import { authCommand } from "./cli/commands/auth.ts";
import { registerOpenAiCompatibleFromSettings } from "./llm/providers/openai-compatible.ts";
import { describeLlmError } from "./cli/describe-error.ts";
import { CliFailure, resolveModel } from "./cli/resolve-model.ts";
import { wireSession } from "./cli/wire-session.ts";
import { resolveResume, sessionsCommand } from "./cli/commands/sessions.ts";
import { MEMORY_SLASH_COMMAND, memoryCommand, memorySlash } from "./cli/commands/memory.ts";
import { memoryForgetFlow, memoryPickerFlow } from "./cli/commands/memory-picker.ts";
import { startMemoryWorker } from "./cli/wire-memory.ts";
import { createSlashCommands, type SlashHandler } from "./cli/slash-commands.ts";
import { withWatchCommand } from "./cli/watch-slash.ts";
import { createDailyCommands, plainHelpText } from "./cli/daily-commands.ts";
import { withSubagentCommands } from "./cli/subagent-commands.ts";
import { createNotifier, notifyConfig } from "./ui/shared/notifier.ts";
import { transcriptEvents, withReplay } from "./store/session-replay.ts";
import { describingErrors } from "./cli/describe-errors.ts";
import { getProviderDefinition, resolveBaseUrl } from "./llm/registry.ts";
import { ConfigError, loadConfig, type Config } from "./config/load-config.ts";
import { detectLang, setLang } from "./i18n/i18n.ts";
import { t } from "./i18n/i18n.ts";
import { Logger } from "./util/logger.ts";
import { createRedactor } from "./store/redact.ts";
import { PolicyFileError } from "./tool/permission.ts";
import { VERSION, versionString } from "./version.ts";
import { updateCommand } from "./cli/commands/update.ts";
import { exitWhenFlushed } from "./cli/exit-when-flushed.ts";
import { applyRewindFlag, mcpFlags, oneshot, startMcpHeadless } from "./cli/run-oneshot.ts";
import { installFatalHandlers, isBrokenPipe, reportFatal } from "./cli/fatal.ts";
import { agentsCommand } from "./cli/commands/agents.ts";
import { applyExtStart, configForAgentFlag } from "./cli/ext-wiring.ts";
import { extSlashCommands, handleExtSlash } from "./ext/ext-slash.ts";
import type { ExtRuntime } from "./ext/ext-runtime.ts";

import { chatcliHome } from "./config/paths.ts";
import { probeSandbox } from "./sandbox/probe.ts";
import { sandboxNotice, sandboxStatusLabel } from "./sandbox/describe.ts";
import { statusCommandText } from "./cli/status-command.ts";
import type { SandboxRuntime } from "./sandbox/sandbox.ts";
import { extSlashCommand, extSlashList } from "./ext/plugins/plugins-slash.ts";
import { startingExtensionsOnSubscribe } from "./ext/hooks/start-on-subscribe.ts";
import { registerPluginProviders } from "./ext/plugins/plugin-host.ts";

/** How long after start the TUI runs the sandbox probe (after its first frame; see sandboxStateForTui). */
const TUI_PROBE_DELAY_MS = 400;

export async function main(argv: string[]): Promise<number> {
  const startedAt = Date.now();
  // Early, so usage errors are in the user's language too; settings.language may override it below.
  setLang(detectLang(process.env));
  let cmd: CliCommand;
  try {
    cmd = parseArgs(argv, versionString());
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`chatcli: ${err.message}\n${t("cli.runHelp")}\n`);
      return 2;
    }
    throw err;
  }
  if (cmd.kind === "printed") return 0;
  if (cmd.kind === "mcp") return (await import("./cli/commands/mcp.ts")).mcpCommand(cmd.argv, process.stdout, process.stderr);
  if (cmd.kind === "serve") return (await import("./cli/commands/serve.ts")).serveCommand(cmd.argv, process.stdout, process.stderr);
  if (cmd.kind === "acp") return (await import("./cli/commands/acp.ts")).acpCommand(cmd.argv, process.stdout, process.stderr);
  // `watch --analyze` (issue 23): one snapshot, then this process goes on as `-p <diagnosis request>` with that watch.
  let analyzeWatch: import("./cli/commands/watch-analyze.ts").AnalyzePlan["watch"] | undefined;
  if (cmd.kind === "watch" && cmd.argv.includes("--analyze") && !cmd.argv.some((a) => a === "--help" || a === "-h")) {
    const plan = await (await import("./cli/commands/watch-analyze.ts")).planAnalyze(cmd.argv, process.stderr);
    if (typeof plan === "number") return plan;
    analyzeWatch = plan.watch;
    try {
      cmd = parseArgs(plan.argv, versionString());
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`chatcli: ${err.message}\n${t("watch.runHelp")}\n`);
      return 2;
    }
    if (cmd.kind !== "oneshot") return cmd.kind === "printed" ? 0 : 2;
  }
  if (cmd.kind === "connect") return (await import("./cli/commands/connect.ts")).connectCommand(cmd.argv, process.stdout, process.stderr);
  if (cmd.kind === "watch") return (await import("./cli/commands/watch.ts")).watchCommand(cmd.argv, process.stdout, process.stderr);

  let cfg: Config;
  try {
    cfg = loadConfig({ cwd: process.cwd(), env: process.env, flags: cmd.flags });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`chatcli: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (analyzeWatch) cfg = { ...cfg, settings: { ...cfg.settings, k8s: { ...cfg.settings.k8s, watch: analyzeWatch } } };
  setLang(cfg.settings.language && !cfg.env.CHATCLI_LANG ? cfg.settings.language : detectLang(cfg.env));
  for (const w of cfg.warnings) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  const logger = new Logger(join(cfg.home, "logs"));
  logger.addScrubber(createRedactor(cfg.env));
  registerOpenAiCompatibleFromSettings(cfg.settings.providers?.openaiCompatible ?? []);
  // The sandbox probe (a bwrap run) overlaps the model look-up where stream-json announces its answer; the TUI starts
  // it once its first frame is up (sandboxStateForTui); elsewhere the first exec starts it (src/sandbox/sandbox.ts),
  // and every exec awaits it.
  if (cfg.sandbox.mode !== "off" && cmd.kind === "oneshot" && cmd.outputFormat === "stream-json") void probeSandbox(process.platform, cfg.env);

  try {
    switch (cmd.kind) {
      case "models":
        return await modelsCommand(cfg, cmd.json, process.stdout);
      case "oneshot":
        return await oneshot(cfg, cmd, startedAt, logger);
      case "interactive":
        return await interactive(cfg, cmd, logger);
      case "providers":
        return await providersCommand(cfg, cmd.json, process.stdout);
      case "auth":
        return await authCommand(cfg, cmd.action, cmd.provider, process.stdout);
      case "update":
        if (cmd.flags.offline) {
          process.stderr.write(`chatcli: ${t("offline.update")}\n`);
          return 2;
        }
        return await updateCommand({ env: process.env, currentVersion: VERSION, execPath: process.execPath, check: cmd.check, version: cmd.version, fetch, out: process.stdout, err: process.stderr });
      case "sessions":
        return sessionsCommand(cfg, cmd.action, cmd.file, process.stdout, process.stderr);
      case "hooks":
        return await (await import("./ext/hooks/hooks-command.ts")).hooksCommand(cfg, cmd, process.stdout, process.stderr);
      case "agents":
        return await agentsCommand(cfg, cmd.action, cmd.force, process.stdout, process.stderr);
      case "memory":
        return await memoryCommand(cfg, cmd.memory, process.stdout, process.stderr, process.stdin.isTTY ? askLine : undefined);
    }
  } catch (err) {
    if (err instanceof CliFailure) {
      process.stderr.write(`chatcli: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof UsageError || err instanceof PolicyFileError || err instanceof McpConfigError) {
      process.stderr.write(`chatcli: ${err.message}\n`);
      return 2;
    }
    if (isBrokenPipe(err)) return 0; // stdout closed by the reader (`| head`): not a failure
    logger.error(`unexpected: ${(err as Error)?.stack ?? String(err)}`);
    process.stderr.write(`chatcli: ${t("error.unexpected", { message: (err as Error)?.message ?? String(err), log: logger.file })}\n`);
    return 1;
  }
}

/** One line from the terminal (the memory command's confirmation). */
async function askLine(question: string): Promise<string> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

async function interactive(cfg: Config, cmd: Extract<CliCommand, { kind: "interactive" }>, logger: Logger): Promise<number> {
  // Start loading OpenTUI (the largest module graph) while the model info round trips are in flight.
  if (!cmd.noTui && process.stdout.isTTY) import("./ui/tui/run-tui.ts").catch(() => undefined);
  await registerPluginProviders(cfg.home, cfg.provider);
  cfg = await configForAgentFlag(cfg, cmd.flags);
  const resolved = await resolveModel(cfg);
  const resume = resolveResume(cfg, cmd);
  const wired = wireSession({ cfg, resolved, permissionMode: cmd.flags.permissionMode ?? cfg.permissionMode, interactive: true, ...(resume ? { resume } : {}), mcp: mcpFlags(cmd.flags) });
  const session = wired.session;
  // After the first frame, like the extensions: the worker's listener joins the session behind the UI's (joining
  // before it, a custom command's completion typed right after a turn did not show). A session that ends sooner
  // starts it at exit, so what it said is still extracted.
  const startWorker = () => wired.memory && !wired.memory.workerStarted && startMemoryWorker(wired.memory, cfg, session, (u, model, providerId) => wired.usage.record("memory", providerId, model, u), (m) => logger.info(m));
  if (cmd.noTui || !process.stdout.isTTY) startWorker();
  else void afterFirstFrame().then(startWorker);
  const slash = wired.recorder ? createSlashCommands({ session, store: wired.store, recorder: wired.recorder, contexts: wired.contexts, projectRoot: cfg.projectRoot }) : undefined;
  const daily = withWatchCommand(withSubagentCommands(createDailyCommands({ session, checkpoints: wired.checkpoints, todos: wired.todos, initGuard: wired.initGuard, projectRoot: cfg.projectRoot }), wired.subagents, session, resume?.viewEvents, resume?.children), wired.k8s);
  // settings `k8s.watch` (issue 23): the watcher starts after the first frame (the first request awaits it anyway).
  if (wired.k8s.configured) void (cmd.noTui || !process.stdout.isTTY ? wired.k8s.start() : afterFirstFrame().then(() => wired.k8s.start()));
  // Bell / OSC when a long turn ends or an approval waits (settings `notify`); only to a terminal.
  const notify = createNotifier({ config: notifyConfig(cfg.settings.notify), out: process.stdout, env: cfg.env });
  if (notify) session.subscribe(notify);
  // The TUI's first frame does not wait for discovery (its commands and notices arrive later); plain mode does.
  const plainOut = cmd.noTui || !process.stdout.isTTY;
  // (`--agent` was looked up already, and its persona must be on before the first request.)
  const extStart = plainOut || cmd.flags.agent ? applyExtStart(wired.skills, cmd.flags) : afterFirstFrame().then(() => applyExtStart(wired.skills, cmd.flags));
  if (plainOut) for (const w of (await extStart).warnings) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  const mcpSlash = wired.mcp ? createMcpSlash(wired.mcp, session) : undefined;
  let replay = resume ? transcriptEvents(resume, { contextWindow: session.contextWindow }) : [];
  if (cmd.rewind !== undefined) {
    // Issue 7: rewind before the TUI starts; it then shows the restored conversation with the prompt put back.
    const r = await applyRewindFlag(wired, cmd.rewind);
    if (!r) return 1;
    const restored = resume ? transcriptEvents({ ...resume, viewEvents: [], history: [...session.messages] }, { contextWindow: session.contextWindow }) : [];
    replay = [...restored, ...r.notes.map((text) => ({ type: "notice" as const, level: "info" as const, text })), r.event];
  }
  // With no model chosen, say which installed one is used (as the one-shot does on stderr).
  if (resolved.notice) {
    if (cmd.noTui || !process.stdout.isTTY) process.stderr.write(`chatcli: ${resolved.notice}\n`);
    else replay = [...replay, { type: "notice" as const, level: "info" as const, text: resolved.notice }];
  }
  if (wired.mcpWarnings.length && !cmd.noTui && process.stdout.isTTY) replay = [...replay, ...wired.mcpWarnings.map((text) => ({ type: "notice" as const, level: "warn" as const, text }))];
  try {
    return await runInteractive(cfg, cmd, logger, resolved, session, wired.usage, { replay, checkpoints: wired.checkpoints, sandbox: wired.sandbox, daily, ...(slash ? { slash } : {}), ...(wired.ext ? { ext: wired.ext } : {}), skills: wired.skills, extStart, ...(wired.mcp && mcpSlash ? { mcp: { manager: wired.mcp, slash: mcpSlash } } : {}), mcpWarnings: wired.mcpWarnings, ...(wired.memory ? { memory: wired.memory } : {}) });
  } finally {
    await wired.ext?.runtime.end("prompt_input_exit");
    startWorker();
    await wired.memory?.flush();
    await wired.mcp?.dispose();
    wired.dispose();
  }
}

async function runInteractive(
  cfg: Config,
  cmd: Extract<CliCommand, { kind: "interactive" }>,
  logger: Logger,
  resolved: Awaited<ReturnType<typeof resolveModel>>,
  session: import("./agent/session/session.ts").Session,
  usage: import("./llm/usage.ts").UsageTracker,
  extras: { replay: import("./protocol/events.ts").AgentEvent[]; slash?: SlashHandler; daily?: SlashHandler & { picker?(): import("./ui/tui/tui-app-options.ts").PickerFlow | undefined }; checkpoints?: import("./agent/checkpoints.ts").CheckpointStore; sandbox?: SandboxRuntime; ext?: import("./ext/hooks/wire-extensions.ts").Extensions; skills?: ExtRuntime; extStart?: Promise<{ events: import("./protocol/events.ts").AgentEvent[] }>; mcp?: { manager: McpManager; slash: ReturnType<typeof createMcpSlash> }; mcpWarnings?: string[]; memory?: import("./memory/runtime.ts").MemoryRuntime } = { replay: [] },
): Promise<number> {
  // Provider errors read the same in every mode: where it looked and what to do (describe-error.ts).
  const describe = (e: import("./protocol/llm.ts").LlmError): string => {
    const binding = session.model;
    const def = getProviderDefinition(binding.providerId);
    return describeLlmError(e, { provider: binding.providerId, model: binding.model, baseUrl: def ? resolveBaseUrl(def, cfg.env) : resolved.baseUrl });
  };
  // The commands both UIs hand over (the TUI handles its own first: /help, /model, /rewind, …).
  const onSlashCommand = async (name: string, args: string): Promise<string> => {
    const mine = extras.slash?.handle(name, args) ?? extras.daily?.handle(name, args) ?? extras.mcp?.slash.handle(name, args);
    if (mine) return mine;
    const fromExt = extSlashCommand(extras.ext, name, args);
    if (fromExt) return fromExt;
    const fromSkills = extras.skills ? handleExtSlash(extras.skills, name, args) : undefined;
    if (fromSkills) return fromSkills;
    if (name === "memory") return memorySlash(cfg, extras.memory, args);
    if (name === "mcp") return t("mcp.none");
    if (name === "stats") return statsText(usage, session.contextTokens(), session.contextWindow);
    if (name === "help") return plainHelpText([...(extras.slash?.commands ?? []), ...(extras.daily?.commands ?? []), ...extSlashList(extras.ext), ...(extras.mcp?.slash.commands ?? [MCP_SLASH_COMMAND]), MEMORY_SLASH_COMMAND]);
    if (name === "status") return statusCommandText({ provider: session.model.providerId, model: session.model.model, mode: session.mode, sandbox: extras.sandbox });
    return t("slash.unknownCommand", { name });
  };
  if (cmd.noTui || !process.stdout.isTTY) {
    void extras.sandbox?.ready().then((s) => {
      if (s.state === "unavailable") process.stderr.write(`chatcli: ${sandboxNotice(s, extras.sandbox!.network).text}\n`);
    });
    const { runPlain } = await import("./ui/tui/plain-output.ts");
    session.start();
    if (extras.mcp) startMcpHeadless({ mcp: extras.mcp.manager });
    for (const w of extras.mcpWarnings ?? []) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
    // Input markers only for a person at a terminal: not into a pipe or a file, not for a piped script.
    return runPlain(describingErrors(session, describe), process.stdin, process.stdout, { interactive: process.stdin.isTTY === true && process.stdout.isTTY === true, onSlashCommand });
  }
  const { runTui, displayModeFromEnv } = await import("./ui/tui/run-tui.ts");
  // MCP servers start in the background once the first frame is up; a project's unapproved ones are asked about then.
  const mcp = extras.mcp?.manager;
  const mcpAfterFirstFrame = mcp
    ? () => {
        mcp.startAll();
        void askToApproveProjectServers(mcp, session).catch(() => undefined);
      }
    : undefined;
  return runTui({
    session: describingErrors(startingExtensionsOnSubscribe(extras.replay.length ? withReplay(session, extras.replay) : session, extras.ext, cmd.resume !== undefined || cmd.continue ? "resume" : "startup"), describe),
    ...(extras.checkpoints ? { checkpoints: extras.checkpoints } : {}),
    // "/session" is already a built-in name in the TUI's completion list.
    extraCommands: [...(extras.slash?.commands.filter((c) => c.name !== "session") ?? []), ...extSlashList(extras.ext), ...(extras.daily?.commands ?? []), ...(extras.mcp?.slash.commands ?? [MCP_SLASH_COMMAND]), MEMORY_SLASH_COMMAND],
    ...(cfg.maxBudgetUsd !== undefined ? { budgetUsd: cfg.maxBudgetUsd } : {}),
    ...(extras.skills && extras.extStart ? { lateExtras: lateExtras(extras.skills, extras.extStart) } : {}),
    ...(extras.mcp ? { dynamicCommands: () => extras.mcp!.slash.dynamicCommands() } : {}),
    ...(mcpAfterFirstFrame ? { afterFirstFrame: mcpAfterFirstFrame } : {}),
    provider: resolved.providerId,
    model: resolved.model,
    version: versionString(),
    cwd: cfg.cwd,
    inline: cmd.inline || cfg.settings.ui?.screen === "inline",
    permissionMode: session.mode,
    // No sandbox can run: said once when the probe answers (the status line keeps saying it); never awaited here.
    ...(extras.sandbox ? { sandboxState: sandboxStateForTui(extras.sandbox) } : {}),
    historyFile: join(cfg.home, "history", `${Bun.hash(cfg.projectRoot).toString(36)}.jsonl`),
    logFile: logger.file,
    // CHATCLI_CODER_UI=full|compact wins over settings' ui.mode.
    displayMode: displayModeFromEnv(cfg.settings.ui?.mode ?? "full", cfg.env),
    contextWindow: session.contextWindow,
    // What /stats reports before the first turn: the system prompt + tools (+ a resumed history).
    contextTokens: session.contextTokens(),
    listModels: () => listModelChoices(cfg),
    onSlashCommand,
    ...(cfg.settings.editor?.vim ? { vim: true } : {}),
    ...(cfg.settings.ui?.theme ? { theme: cfg.settings.ui.theme } : {}),
    onPickerCommand: async (name, args) => (name === "agents" && !args.trim() ? extras.daily?.picker?.() : name !== "memory" ? undefined : !args.trim() ? memoryPickerFlow(cfg, extras.memory) : memoryForgetFlow(cfg, extras.memory, args)),
  });
}

/** A little after the TUI's first frame: work that must not compete with start-up waits for it. */
function afterFirstFrame(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, TUI_PROBE_DELAY_MS));
}

/** Skills', personas' and custom commands' slash commands and start-up events, once discovered (issue 18). */
function lateExtras(ext: ExtRuntime, start: Promise<{ events: import("./protocol/events.ts").AgentEvent[] }>) {
  return start.then((s) => ({ commands: extSlashCommands(ext), events: s.events }));
}

/**
 * The TUI's sandbox label and notice. The probe starts a little after the first frame: its process would compete
 * with start-up on a small machine, and nothing needs its answer before a command runs (an exec starts it at once).
 */
function sandboxStateForTui(sandbox: SandboxRuntime): Promise<{ label?: string; notice?: { level: "info" | "warn"; text: string } }> {
  const afterFirstFrame = new Promise<void>((resolve) => setTimeout(resolve, TUI_PROBE_DELAY_MS));
  return afterFirstFrame.then(() => sandbox.ready()).then((s) => {
    const label = sandboxStatusLabel(s);
    return { ...(label ? { label } : {}), ...(s.state === "unavailable" ? { notice: sandboxNotice(s, sandbox.network) } : {}) };
  });
}

if (import.meta.main) {
  // Never a stack trace on the terminal: one line on stderr, the stack in the log (src/cli/fatal.ts).
  const fatalLogger = new Logger(join(chatcliHome(process.env), "logs"));
  installFatalHandlers({ logger: fatalLogger, stderr: process.stderr, exit: (code) => process.exit(code) });
  main(process.argv.slice(2)).then(
    (code) => exitWhenFlushed(code),
    (err: unknown) => process.exit(reportFatal(err, { logger: fatalLogger, stderr: process.stderr })),
  );
}
