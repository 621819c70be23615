/**
 * `chatcli hooks list | test EVENT [--tool NAME --input JSON] | trust`: what would run, what each hook decides,
 * without the agent. Exit codes: 0 done, 2 usage (unknown event, --input not JSON).
 * `test` runs the hooks for real (they are the user's commands); untrusted project hooks are listed, not run.
 */
import type { Config } from "../../config/load-config.ts";
import { findTool, builtinTools } from "../../tool/registry.ts";
import { t } from "../../i18n/i18n.ts";
import { describeHook, type ConfiguredHook } from "./hook-config.ts";
import { HookDispatcher } from "./hook-dispatcher.ts";
import { failureForPeople } from "./hook-outcome.ts";
import { HOOK_EVENTS, claudePermissionMode, isHookEvent, type HookEvent } from "./hook-events.ts";
import { trustProject, trustState, isEmpty } from "./project-trust.ts";
import { projectExtensions, readSettingsHooks } from "./wire-extensions.ts";

interface Out {
  write(s: string): unknown;
}

export interface HooksCommand {
  action: "list" | "test" | "trust";
  event?: string;
  tool?: string;
  input?: string;
}

export async function hooksCommand(cfg: Config, cmd: HooksCommand, out: Out, err: Out): Promise<number> {
  const settings = readSettingsHooks(cfg);
  for (const w of settings.warnings) err.write(`chatcli: ${t("hooks.configWarning", { warning: w })}\n`);
  const x = projectExtensions(cfg, settings.projectRaw);
  const state = trustState(cfg.home, cfg.projectRoot, x);
  if (cmd.action === "trust") {
    if (isEmpty(x)) {
      out.write(`${t("hooks.cli.nothingToTrust", { project: cfg.projectRoot })}\n`);
      return 0;
    }
    trustProject(cfg.home, cfg.projectRoot, x);
    out.write(`${t("hooks.cli.trusted", { project: cfg.projectRoot })}\n`);
    for (const h of settings.project) out.write(`  ${line(h)}\n`);
    for (const p of x.plugins) out.write(`  plugin: ${p.path}\n`);
    return 0;
  }
  const projectRuns = state === "trusted";
  if (cmd.action === "list") {
    const all = [...settings.user, ...settings.project];
    if (settings.disabled) out.write(`${t("hooks.cli.disabled")}\n`);
    if (all.length === 0) {
      out.write(`${t("hooks.cli.none")}\n`);
      return 0;
    }
    for (const event of HOOK_EVENTS) {
      const hs = all.filter((h) => h.event === event);
      if (!hs.length) continue;
      out.write(`${event}\n`);
      for (const h of hs) out.write(`  ${line(h)}  (${sourceLabel(h, projectRuns)})\n`);
    }
    return 0;
  }
  if (!cmd.event || !isHookEvent(cmd.event)) {
    err.write(`chatcli: ${t("hooks.cli.badEvent", { event: cmd.event ?? "", events: HOOK_EVENTS.join(", ") })}\n`);
    return 2;
  }
  let input: Record<string, unknown> = {};
  if (cmd.input !== undefined) {
    try {
      const v = JSON.parse(cmd.input) as unknown;
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
      input = v as Record<string, unknown>;
    } catch (e) {
      err.write(`chatcli: ${t("hooks.cli.badInput", { error: (e as Error).message })}\n`);
      return 2;
    }
  }
  const hooks = [...settings.user, ...(projectRuns ? settings.project : [])];
  const skipped = projectRuns ? [] : settings.project.filter((h) => h.event === cmd.event);
  const fields = eventFields(cmd.event, cmd.tool, input);
  const dispatcher = new HookDispatcher({
    hooks: () => hooks,
    common: () => ({ session_id: "hooks-test", transcript_path: "", cwd: cfg.cwd, permission_mode: claudePermissionMode(cfg.permissionMode) }),
    projectRoot: cfg.projectRoot,
    env: cfg.env,
  });
  const matching = dispatcher.matching(cmd.event, fields);
  for (const h of skipped) out.write(`${t("hooks.cli.skippedUntrusted", { hook: line(h) })}\n`);
  if (matching.length === 0) {
    out.write(`${t("hooks.cli.noneMatch", { event: cmd.event })}\n`);
    return 0;
  }
  const r = await dispatcher.fire(cmd.event, fields);
  for (const o of r.outcomes) {
    out.write(`${line(o.hook)}\n`);
    const parts = [
      o.exitCode !== undefined ? `exit ${o.exitCode ?? "-"}` : undefined,
      o.status === "failed" ? `${t("hooks.cli.failure")}: ${failureForPeople(o)}` : undefined,
      o.decision ? `${t("hooks.cli.decision")}: ${o.decision}` : undefined,
      o.reason ? `${t("hooks.cli.reason")}: ${o.reason}` : undefined,
      o.updatedInput ? `updatedInput: ${JSON.stringify(o.updatedInput)}` : undefined,
      o.additionalContext ? `additionalContext: ${o.additionalContext}` : undefined,
      `${o.durationMs} ms`,
    ].filter(Boolean);
    for (const p of parts) out.write(`  ${p}\n`);
  }
  out.write(`${t("hooks.cli.combined", { decision: r.decision ?? t("hooks.cli.noDecision") })}\n`);
  return 0;
}

function eventFields(event: HookEvent, tool: string | undefined, input: Record<string, unknown>): Record<string, unknown> {
  switch (event) {
    case "PreToolUse":
    case "PermissionRequest":
    case "PostToolUse":
    case "PostToolUseFailure": {
      const name = tool ? (findTool(tool, builtinTools())?.name ?? tool) : "exec";
      const base = { tool_name: name, tool_input: input, tool_use_id: "toolu_test" };
      if (event === "PostToolUse") return { ...base, tool_response: { output: "" } };
      if (event === "PostToolUseFailure") return { ...base, error: "", is_interrupt: false };
      return base;
    }
    case "UserPromptSubmit":
      return { prompt: "", ...input };
    case "SessionStart":
      return { source: "startup", ...input };
    case "SessionEnd":
      return { reason: "other", ...input };
    case "PreCompact":
      return { trigger: "manual", custom_instructions: "", ...input };
    case "Notification":
      return { message: "test", notification_type: "permission_prompt", ...input };
    case "Stop":
      return { stop_hook_active: false, ...input };
    case "SubagentStart":
    case "SubagentStop":
      return { agent_id: "test", agent_type: "general", ...input };
  }
}

function line(h: ConfiguredHook): string {
  return `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${describeHook(h)}${h.spec.failClosed ? " (failClosed)" : ""}`;
}

function sourceLabel(h: ConfiguredHook, projectRuns: boolean): string {
  if (h.source !== "project") return t("hooks.cli.user");
  return projectRuns ? t("hooks.cli.projectTrusted") : t("hooks.cli.projectUntrusted");
}
