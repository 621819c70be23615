/**
 * Builds a Session for the chosen provider/model with the system prompt, tools and pipeline.
 * The one place (with main.ts) that knows every layer.
 */
import { platform } from "node:os";
import type { Config } from "../config/load-config.ts";
import { BootstrapLoader, basePrompt, composeSystemPrompt } from "../agent/prompt.ts";
import { Session, type SessionOptions } from "../agent/session.ts";
import type { PermissionMode } from "../protocol/events.ts";
import type { ResolvedModel } from "./resolve-model.ts";
import { contextWindowFor } from "./resolve-model.ts";

export interface WireOptions {
  cfg: Config;
  resolved: ResolvedModel;
  permissionMode: PermissionMode;
  maxTurns?: number;
  interactive: boolean;
}

export function wireSession(o: WireOptions): Session {
  const { cfg, resolved } = o;
  const loader = new BootstrapLoader(cfg.projectRoot, cfg.home);
  const contextWindow = contextWindowFor(cfg, resolved.info, resolved.providerId);
  const opts: SessionOptions = {
    sessionId: newSessionId(),
    providerId: resolved.providerId,
    model: resolved.model,
    provider: resolved.provider,
    cwd: cfg.cwd,
    nativeTools: resolved.info?.supportsTools ?? false,
    contextWindow,
    permissionMode: o.permissionMode,
    maxTurns: o.maxTurns ?? maxTurnsFromEnv(cfg.env),
    earlyExitTurns: earlyExitFromEnv(cfg.env),
    systemPrompt: ({ tools }) =>
      composeSystemPrompt({
        base: basePrompt({ cwd: cfg.cwd, projectRoot: cfg.projectRoot, platform: platform(), date: new Date().toISOString().slice(0, 10), hasTools: tools.length > 0 }),
        bootstrap: loader.load(),
      }),
  };
  return new Session(opts);
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
