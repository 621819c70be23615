/**
 * The `hooks` block of settings.json, in Claude Code's shape:
 *   {"PreToolUse": [{"matcher": "write|edit", "hooks": [{"type": "command", "command": "…", "timeout": 10}]}]}
 * plus `{"type": "http", "url": "…", "headers": {…}}` and `"failClosed": true` on any hook. Parsed leniently: a
 * pasted Claude Code block may name events or hook types chatcli does not have (`PermissionDenied`, `prompt`);
 * those are skipped with a warning, never a configuration error. Fields we do not use (statusMessage, once, …)
 * are ignored.
 */
import { z } from "zod";
import { isHookEvent, type HookEvent } from "./hook-events.ts";

export type HookSource = "user" | "project" | "plugin";

export interface CommandHookSpec {
  type: "command";
  command: string;
  /** Seconds. */
  timeout?: number;
  failClosed?: boolean;
}

export interface HttpHookSpec {
  type: "http";
  url: string;
  headers?: Record<string, string>;
  /** Names of environment variables `$NAME` / `${NAME}` in header values may expand (Claude Code's allowedEnvVars). */
  allowedEnvVars?: string[];
  timeout?: number;
  failClosed?: boolean;
}

/** A plugin's hook function (src/ext/plugins): returns the same JSON a command hook prints, or nothing. */
export interface FunctionHookSpec {
  type: "function";
  plugin: string;
  run(input: Record<string, unknown>): Promise<unknown>;
  failClosed?: boolean;
}

export type HookSpec = CommandHookSpec | HttpHookSpec | FunctionHookSpec;

export interface ConfiguredHook {
  event: HookEvent;
  matcher?: string;
  spec: HookSpec;
  source: HookSource;
}

const common = { timeout: z.number().positive().optional(), failClosed: z.boolean().optional() };
const commandSchema = z.object({ type: z.literal("command"), command: z.string().min(1), ...common });
const httpSchema = z.object({
  type: z.literal("http"),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  allowedEnvVars: z.array(z.string()).optional(),
  ...common,
});
const groupSchema = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) });

export interface ParsedHooks {
  hooks: ConfiguredHook[];
  warnings: string[];
}

/** Never throws; what cannot be used is named in `warnings` (English: shown through the hooks.configWarning message). */
export function parseHooksBlock(raw: unknown, source: HookSource): ParsedHooks {
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { hooks, warnings };
  if (typeof raw !== "object" || Array.isArray(raw)) return { hooks, warnings: ["`hooks` must be an object keyed by event name"] };
  for (const [event, groups] of Object.entries(raw as Record<string, unknown>)) {
    if (!isHookEvent(event)) {
      warnings.push(`unknown hook event "${event}" skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warnings.push(`hooks.${event} must be a list of {matcher, hooks}`);
      continue;
    }
    groups.forEach((g, gi) => {
      const group = groupSchema.safeParse(g);
      if (!group.success) return void warnings.push(`hooks.${event}[${gi}] must be {"matcher": "…", "hooks": [ … ]}`);
      group.data.hooks.forEach((h, hi) => {
        const where = `hooks.${event}[${gi}].hooks[${hi}]`;
        const type = (h as { type?: unknown } | null)?.type;
        const parsed = type === "http" ? httpSchema.safeParse(h) : type === "command" ? commandSchema.safeParse(h) : undefined;
        if (!parsed) return void warnings.push(`${where}: hook type ${JSON.stringify(type)} is not supported (command, http) and is skipped`);
        if (!parsed.success) return void warnings.push(`${where}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ")}`);
        hooks.push({ event, ...(group.data.matcher !== undefined ? { matcher: group.data.matcher } : {}), spec: parsed.data as CommandHookSpec | HttpHookSpec, source });
      });
    });
  }
  return { hooks, warnings };
}

/** One line naming a hook for lists, notices and the trust prompt. */
export function describeHook(h: Pick<ConfiguredHook, "spec">): string {
  const s = h.spec;
  if (s.type === "command") return s.command;
  if (s.type === "http") return `POST ${s.url}`;
  return `plugin ${s.plugin}`;
}
