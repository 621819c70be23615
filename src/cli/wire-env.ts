/** Small pieces of the session wiring read from the environment and settings (wire-session.ts). */
import { join } from "node:path";
import type { Config } from "../config/load-config.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { knownContextWindow } from "../llm/context-windows.ts";
import { listProviderDefinitions } from "../llm/registry.ts";
import type { UsageTracker } from "../llm/usage.ts";
import { summarizerFromConfig, type ToolUseSummarizer } from "../agent/summaries.ts";
import { createRedactor } from "../store/redact.ts";
import { Logger } from "../util/logger.ts";
import type { ResolvedModel } from "./resolve-model.ts";

/** Every provider's key variables (the registry's list and user-defined compatible servers' `keyEnv`). */
export function providerKeyNames(cfg: Config): string[] {
  const fromRegistry = listProviderDefinitions().flatMap((d) => d.envKeys);
  const fromSettings = (cfg.settings.providers?.openaiCompatible ?? []).flatMap((p) => (p.keyEnv ? [p.keyEnv] : []));
  return [...fromRegistry, ...fromSettings];
}

/** No override, no setting, and neither the server nor the model table knows the window (issue 8). */
export function windowIsAssumed(cfg: Config, resolved: ResolvedModel): boolean {
  if (Number(cfg.env.CHATCLI_CONTEXT_WINDOW) > 0 || cfg.settings.contextWindow) return false;
  return resolved.providerId === "OLLAMA" ? !resolved.info?.contextWindow : knownContextWindow(resolved.model) === undefined;
}

export function newSessionId(): string {
  const d = new Date();
  const stamp = `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, "0")}${String(d.getDate()).padStart(2, "0")}-${String(d.getHours()).padStart(2, "0")}${String(d.getMinutes()).padStart(2, "0")}${String(d.getSeconds()).padStart(2, "0")}`;
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

export function maxTurnsFromEnv(env: Record<string, string | undefined>): number {
  const v = Number(env.CHATCLI_AGENT_PLUGIN_MAX_TURNS);
  if (!Number.isFinite(v) || v <= 0) return 50;
  return Math.min(200, Math.floor(v));
}

export function earlyExitFromEnv(env: Record<string, string | undefined>): number {
  if (env.CHATCLI_AGENT_EARLY_EXIT === "0" || env.CHATCLI_AGENT_EARLY_EXIT === "false") return 0;
  const v = Number(env.CHATCLI_AGENT_EARLY_EXIT_TURNS);
  if (!Number.isFinite(v) || v <= 0) return 3;
  return Math.max(2, Math.min(10, Math.floor(v)));
}

/** A logger under <home>/logs that scrubs the session's secrets. */
export function scrubbedLogger(cfg: Config): Logger {
  const logger = new Logger(join(cfg.home, "logs"));
  logger.addScrubber(createRedactor(cfg.env));
  return logger;
}

/** The fast-model labeller (never the main model); its tokens are recorded under the purpose tool_use_summary. */
export function wireSummaries(cfg: Config, usage: UsageTracker, publish: (e: AgentEvent) => void): ToolUseSummarizer | undefined {
  const logger = scrubbedLogger(cfg);
  const r = summarizerFromConfig({
    env: cfg.env,
    settings: cfg.settings,
    publish,
    onUsage: (u, purpose, model, providerId) => usage.record(purpose, providerId, model, u),
    log: (m) => logger.info(m),
  });
  if (!r.summarizer && r.reason !== "no fastModel configured" && r.reason !== "disabled") logger.warn(`tool-use summaries off: ${r.reason}`);
  return r.summarizer;
}
