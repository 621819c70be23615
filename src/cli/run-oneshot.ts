/** `chatcli -p "…"`: one headless run (src/ui/headless/run-headless.ts) over a wired session. */
import type { Config } from "../config/load-config.ts";
import { UsageError, type CliCommand, type CommonFlags } from "./args.ts";
import { CliFailure, resolveModel } from "./resolve-model.ts";
import { wireSession, type WiredSession } from "./wire-session.ts";
import { resolveResume } from "./commands/sessions.ts";
import { startMemoryWorker } from "./wire-memory.ts";
import { offlineModel } from "./offline-model.ts";
import { describeLlmError } from "./describe-error.ts";
import { rewindFlag, type RewindFlagResult } from "../agent/checkpoints/rewind-flag.ts";
import { t } from "../i18n/i18n.ts";
import { runHeadless } from "../ui/headless/run-headless.ts";
import type { Logger } from "../util/logger.ts";
import { readPipedStdin } from "./read-stdin.ts";
import { applyExtStart, configForAgentFlag, headlessPrompt, startExtDiscovery } from "./ext-wiring.ts";
import { SANDBOX_RERUN_TOOL } from "../agent/sandbox-rerun.ts";
import type { SandboxStatus } from "../sandbox/types.ts";
import { sandboxNotice } from "../sandbox/describe.ts";
import { prefetchUserPlugins, registerPluginProviders } from "../ext/plugins/plugin-host.ts";

/** How long `-p "…"` waits for the first byte of piped stdin before going on without it. */
const STDIN_FIRST_BYTE_MS = 3_000;

export async function oneshot(cfg: Config, cmd: Extract<CliCommand, { kind: "oneshot" }>, startedAt: number, logger: Logger): Promise<number> {
  let prompt = cmd.prompt;
  // `-p "!cmd"` runs the command (no model call); piped input is not appended to a command line.
  const shell = prompt.trimStart().startsWith("!");
  if (shell && prompt.trim() === "!") throw new UsageError(t("shell.empty"));
  if (!process.stdin.isTTY && !shell) {
    // A prompt was given: an open stdin pipe that stays silent must not hang the run (src/cli/read-stdin.ts).
    const wait = prompt.trim() ? { firstByteTimeoutMs: STDIN_FIRST_BYTE_MS, onTimeout: () => process.stderr.write(`chatcli: ${t("stdin.noInput", { seconds: STDIN_FIRST_BYTE_MS / 1000 })}\n`) } : {};
    const piped = await readPipedStdin(Bun.stdin.stream(), wait);
    if (piped.trim()) prompt = prompt.trim() ? `${prompt}\n\n${piped}` : piped;
  }
  if (!prompt.trim()) throw new UsageError(t("usage.promptEmpty"));
  prefetchUserPlugins(cfg.home);
  await registerPluginProviders(cfg.home, cfg.provider);
  startExtDiscovery(cfg);
  cfg = await configForAgentFlag(cfg, cmd.flags);
  const resolved = await resolveModel(cfg).catch((err: unknown) => {
    if (shell && err instanceof CliFailure) return offlineModel(cfg, err.message);
    throw err;
  });
  if (resolved.notice) process.stderr.write(`chatcli: ${resolved.notice}\n`);
  const denied: string[] = [];
  const resume = resolveResume(cfg, cmd);
  for (const w of resume?.warnings ?? []) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  const wired = wireSession({
    cfg,
    resolved,
    ...(resume ? { resume } : {}),
    permissionMode: cmd.flags.permissionMode ?? cfg.permissionMode,
    ...(cmd.maxTurns ? { maxTurns: cmd.maxTurns } : {}),
    interactive: false,
    summaries: cmd.outputFormat === "stream-json",
    mcp: mcpFlags(cmd.flags),
    onUnansweredApproval: (action, _reason, tool) => {
      denied.push(action);
      // On stderr in every format: stdout may be a json consumer, but a person reads stderr. accept-edits only
      // helps a file edit asked in default mode; exec and safety-immune asks need bypass (or an allow rule).
      const mode = cmd.flags.permissionMode ?? cfg.permissionMode;
      const editHint = (tool === "write" || tool === "edit") && mode === "default";
      const key = tool === SANDBOX_RERUN_TOOL ? "cli.sandboxRerunDenied" : editHint ? "cli.permissionDenied" : "cli.permissionDeniedBypass";
      process.stderr.write(`chatcli: ${t(key, { action })}\n`);
    },
  });
  const session = wired.session;
  for (const w of (await applyExtStart(wired.skills, cmd.flags)).warnings) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  prompt = headlessPrompt(wired.skills, prompt);
  startMcpHeadless(wired);
  if (wired.memory) startMemoryWorker(wired.memory, cfg, session, (u, model, providerId) => wired.usage.record("memory", providerId, model, u), (m) => logger.info(m));
  if (cmd.rewind !== undefined) {
    const r = await applyRewindFlag(wired, cmd.rewind);
    if (!r) return 1;
    process.stderr.write(`chatcli: ${t("cli.rewound", { checkpoint: cmd.rewind, label: r.checkpoint.label, notes: r.notes.join(" ") })}\n`);
  }
  const onSigint = () => session.submit({ type: "interrupt" });
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  const result = await runHeadless({
    session,
    prompt,
    format: cmd.outputFormat,
    stdout: process.stdout,
    stderr: process.stderr,
    startedAt,
    // Never holding up the run. stream-json always gets the sandbox state (its end waits for the probe, started
    // early); text mode says it, warning when none can run, once the first exec has probed (no exec, no probe).
    afterStart: () => {
      // `--agent`: stream-json consumers see the persona like a `/agent` switch.
      if (cmd.flags.agent) session.publish({ type: "persona.changed", name: cmd.flags.agent });
      const announce = (s: SandboxStatus) => session.publish({ type: "notice", ...sandboxNotice(s, wired.sandbox.network) });
      if (cmd.outputFormat === "stream-json") return wired.sandbox.ready().then(announce);
      wired.sandbox.onSettled(announce);
      return undefined;
    },
    afterIdle: async () => wired.summaries?.whenIdle(),
    describeError: (e) => (e.error ? describeLlmError(e.error, { provider: resolved.providerId, model: resolved.model, baseUrl: resolved.baseUrl }) : e.message),
  });
  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigint);
  await wired.ext?.runtime.end("other");
  await wired.memory?.flush();
  await wired.mcp?.dispose();
  wired.dispose();
  if (result.errorMessage) logger.error(result.errorMessage);
  return result.exitCode;
}

export function mcpFlags(flags: CommonFlags): { configFiles: string[]; strict: boolean } {
  return { configFiles: flags.mcpConfig ?? [], strict: flags.strictMcpConfig === true };
}

/** Headless: MCP servers start at once; project servers not approved are skipped with one line naming them. */
export function startMcpHeadless(wired: Pick<WiredSession, "mcp"> & { mcpWarnings?: string[] }): void {
  for (const w of wired.mcpWarnings ?? []) process.stderr.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  if (!wired.mcp) return;
  const pending = wired.mcp.unapproved().map((s) => s.name);
  if (pending.length) process.stderr.write(`chatcli: ${t("mcp.unapprovedSkipped", { names: pending.join(", ") })}\n`);
  wired.mcp.startAll();
}

/** `--rewind N` before the first turn. On failure says why on stderr and disposes the session: the caller exits 1. */
export async function applyRewindFlag(wired: WiredSession, n: number): Promise<RewindFlagResult | null> {
  const r = await rewindFlag(wired.session, wired.checkpoints, n);
  if (typeof r !== "string") return r;
  process.stderr.write(`chatcli: ${r}\n`);
  wired.dispose();
  return null;
}
