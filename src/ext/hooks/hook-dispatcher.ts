/**
 * The one place hooks run. `fire(event, fields)` picks the hooks whose matcher matches, runs them concurrently,
 * reports each failure (`onFailure`: a notice for the user and a log line) and returns the combined outcome.
 * Callers (hooks-runtime.ts, the subagents to come) decide what the outcome means at their moment.
 * Never throws.
 *
 * For the subagents issue: `fire("SubagentStart", { agent_id, agent_type })` before a subagent's first model call
 * (its contexts go into the subagent's first message) and `fire("SubagentStop", { agent_id, agent_type,
 * stop_hook_active, agent_transcript_path })` when it would stop (`decision: "deny"` = keep it going, the reasons
 * fed to it), exactly as Stop is handled for the main agent (hooks-runtime.ts `onStop`).
 */
import type { ConfiguredHook } from "./hook-config.ts";
import { MATCHED_FIELD, type CommonInput, type EventFields, type HookEvent } from "./hook-events.ts";
import { matcherMatches } from "./hook-matcher.ts";
import { combine, interpretRun, interpretValue, type CombinedOutcome, type HookOutcome } from "./hook-outcome.ts";
import { runCommandHook } from "./run-command-hook.ts";
import { runHttpHook } from "./run-http-hook.ts";
import { withTimeout } from "../../util/with-timeout.ts";

export const DEFAULT_TIMEOUT_SEC = 60;

export interface DispatcherOptions {
  /** The hooks that may run (untrusted project hooks are already left out). Read on every fire. */
  hooks: () => readonly ConfiguredHook[];
  common: () => Omit<CommonInput, "hook_event_name">;
  projectRoot: string;
  env: Record<string, string | undefined>;
  onFailure?: (o: HookOutcome) => void;
  onSystemMessage?: (text: string, o: HookOutcome) => void;
  /** Every run, for the log. */
  onRun?: (o: HookOutcome) => void;
}

export class HookDispatcher {
  constructor(private readonly o: DispatcherOptions) {}

  /** The hooks `fire` would run for this event and match value. */
  matching(event: HookEvent, fields: EventFields): ConfiguredHook[] {
    const field = MATCHED_FIELD[event];
    const value = field ? fields[field] : undefined;
    return this.o.hooks().filter((h) => h.event === event && (field === undefined || matcherMatches(h.matcher, typeof value === "string" ? value : undefined, field === "tool_name")));
  }

  has(event: HookEvent): boolean {
    return this.o.hooks().some((h) => h.event === event);
  }

  async fire(event: HookEvent, fields: EventFields, signal?: AbortSignal): Promise<CombinedOutcome> {
    const hooks = this.matching(event, fields);
    if (hooks.length === 0) return combine([]);
    const input = { ...this.o.common(), hook_event_name: event, ...fields };
    const outcomes = await Promise.all(hooks.map((h) => this.runOne(h, input, signal)));
    for (const o of outcomes) {
      this.o.onRun?.(o);
      if (o.status === "failed") this.o.onFailure?.(o);
      if (o.systemMessage) this.o.onSystemMessage?.(o.systemMessage, o);
    }
    return combine(outcomes);
  }

  private async runOne(h: ConfiguredHook, input: Record<string, unknown>, signal?: AbortSignal): Promise<HookOutcome> {
    const spec = h.spec;
    const timeoutSec = spec.type === "function" ? DEFAULT_TIMEOUT_SEC : spec.timeout ?? DEFAULT_TIMEOUT_SEC;
    const json = JSON.stringify(input);
    if (spec.type === "command") {
      const env = { ...this.o.env, CLAUDE_PROJECT_DIR: this.o.projectRoot, CHATCLI_PROJECT_DIR: this.o.projectRoot, CHATCLI_HOOK_EVENT: h.event };
      const run = await runCommandHook({ command: spec.command, input: json, cwd: this.o.projectRoot, env, timeoutMs: timeoutSec * 1000, ...(signal ? { signal } : {}) });
      return interpretRun(h, { ...run, timeoutSec });
    }
    if (spec.type === "http") {
      const r = await runHttpHook(spec, json, this.o.env, timeoutSec * 1000, signal);
      const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
      const startError = r.error && !r.timedOut ? r.error : undefined;
      return interpretRun(h, {
        exitCode: ok ? 0 : r.status === undefined ? null : 1,
        stdout: ok ? r.body : "",
        stderr: ok ? "" : `HTTP ${r.status ?? "error"} ${r.body.slice(0, 200)}`,
        timedOut: r.timedOut,
        ...(startError ? { startError: `POST ${spec.url}: ${startError}` } : {}),
        durationMs: r.durationMs,
        timeoutSec,
      });
    }
    const started = Date.now();
    try {
      const value = await withTimeout(spec.run(input), timeoutSec * 1000, `timed out after ${timeoutSec}s`);
      return interpretValue(h, value, Date.now() - started);
    } catch (err) {
      const failure = (err as Error)?.message ?? String(err);
      return { hook: h, status: "failed", failure, durationMs: Date.now() - started, ...(spec.failClosed ? { decision: "deny" as const, reason: `plugin ${spec.plugin} failed: ${failure}` } : {}) };
    }
  }
}
