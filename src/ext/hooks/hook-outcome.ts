/**
 * What one hook run means, and how the runs of one event combine.
 *
 * Exit codes (command hooks; HTTP maps 2xx to 0 and anything else to a failure):
 *   0    continue; stdout may be JSON carrying a decision (below); plain stdout is context for the model on
 *        UserPromptSubmit and SessionStart, ignored elsewhere;
 *   2    block: stderr is the reason, fed to the model (or shown to the user where there is no model turn);
 *   126, 127, a shell that would not start: the hook could not start — a failure, never a silent deny;
 *   timeout: a failure (its process group was killed);
 *   any other: a hook failure, shown and logged, not blocking — unless the hook says `"failClosed": true`, when any
 *   failure blocks like exit 2.
 * JSON on exit 0 (Claude Code's shape, and the same keys at the top level): `decision` ("block" | "approve"),
 * `reason`, `continue: false` + `stopReason`, `systemMessage`, `hookSpecificOutput.{permissionDecision,
 * permissionDecisionReason, updatedInput, additionalContext}`, PermissionRequest's `hookSpecificOutput.decision.
 * {behavior, message, updatedInput}`.
 * Combining: deny > ask > allow; every additionalContext is kept; the last updatedInput (in settings order) wins.
 */
import { z } from "zod";
import { msg, render, type Localized } from "../../i18n/i18n.ts";
import type { ConfiguredHook } from "./hook-config.ts";
import type { HookEvent } from "./hook-events.ts";
import type { ProcessRun } from "./run-command-hook.ts";

export type HookDecision = "allow" | "deny" | "ask";

export interface HookOutcome {
  hook: ConfiguredHook;
  status: "ok" | "failed";
  decision?: HookDecision;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  systemMessage?: string;
  /** `continue: false`: the hook asks chatcli to stop; the text is for the user. */
  stop?: string;
  /** English, for the log and the model (failClosed's reason). */
  failure?: string;
  /** The same for a person, in their language (`failureForPeople`). */
  failureText?: Localized;
  exitCode?: number | null;
  durationMs: number;
}

export function failureForPeople(o: HookOutcome): string {
  return o.failureText ? render(o.failureText) : (o.failure ?? "");
}

export interface RawRun extends ProcessRun {
  timeoutSec: number;
}

const decisionWord = z.enum(["block", "approve", "allow", "deny", "ask"]);
const outputSchema = z
  .object({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    systemMessage: z.string().optional(),
    decision: decisionWord.optional(),
    reason: z.string().optional(),
    permissionDecision: decisionWord.optional(),
    permissionDecisionReason: z.string().optional(),
    additionalContext: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    hookSpecificOutput: z
      .object({
        permissionDecision: decisionWord.optional(),
        permissionDecisionReason: z.string().optional(),
        additionalContext: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        decision: z
          .object({ behavior: z.enum(["allow", "deny", "ask"]).optional(), message: z.string().optional(), updatedInput: z.record(z.string(), z.unknown()).optional() })
          .optional(),
      })
      .optional(),
  })
  .loose();
type HookJson = z.infer<typeof outputSchema>;

const PLAIN_STDOUT_IS_CONTEXT = new Set<HookEvent>(["UserPromptSubmit", "SessionStart"]);

export function interpretRun(hook: ConfiguredHook, run: RawRun): HookOutcome {
  const base = { hook, exitCode: run.exitCode, durationMs: run.durationMs };
  const failClosed = hook.spec.failClosed === true;
  const fail = (text: Localized): HookOutcome => {
    const failure = render(text, "en");
    const failed: HookOutcome = { ...base, status: "failed", failure, failureText: text };
    return failClosed ? { ...failed, decision: "deny", reason: `hook failed (failClosed): ${failure}` } : failed;
  };
  const tail = stderrTail(run);
  if (run.startError) return fail(msg("hooks.fail.start", { error: run.startError }));
  if (run.timedOut) return fail(msg("hooks.fail.timeout", { seconds: run.timeoutSec }));
  if (run.exitCode === 126) return fail(msg("hooks.fail.notExecutable", { detail: tail }));
  if (run.exitCode === 127) return fail(msg("hooks.fail.notFound", { detail: tail }));
  if (run.exitCode === 2) return { ...base, status: "ok", decision: "deny", reason: run.stderr.trim() || "blocked by a hook (exit 2)" };
  if (run.exitCode !== 0) return fail(msg("hooks.fail.exit", { code: run.exitCode ?? "?", detail: tail }));
  return { ...base, status: "ok", ...fromStdout(hook.event, run.stdout) };
}

/** A plugin hook's return value (the same JSON keys), or its throw (a failure). */
export function interpretValue(hook: ConfiguredHook, value: unknown, durationMs: number): HookOutcome {
  if (value === undefined || value === null) return { hook, status: "ok", durationMs };
  const parsed = outputSchema.safeParse(value);
  if (!parsed.success) return { hook, status: "ok", durationMs };
  return { hook, status: "ok", durationMs, ...fromJson(parsed.data) };
}

function fromStdout(event: HookEvent, stdout: string): Partial<HookOutcome> {
  const text = stdout.trim();
  if (text.startsWith("{")) {
    try {
      const parsed = outputSchema.safeParse(JSON.parse(text));
      if (parsed.success) return fromJson(parsed.data);
    } catch {
      // not JSON after all: plain text below
    }
  }
  return text && PLAIN_STDOUT_IS_CONTEXT.has(event) ? { additionalContext: text } : {};
}

function fromJson(j: HookJson): Partial<HookOutcome> {
  const hs = j.hookSpecificOutput;
  const word = hs?.permissionDecision ?? hs?.decision?.behavior ?? j.permissionDecision ?? j.decision;
  let decision = word === undefined ? undefined : word === "block" || word === "deny" ? "deny" : word === "ask" ? "ask" : "allow";
  let reason = hs?.permissionDecisionReason ?? hs?.decision?.message ?? j.permissionDecisionReason ?? j.reason;
  let stop: string | undefined;
  if (j.continue === false) {
    stop = j.stopReason ?? "a hook asked to stop";
    decision = "deny";
    reason ??= stop;
  }
  const updatedInput = hs?.updatedInput ?? hs?.decision?.updatedInput ?? j.updatedInput;
  const additionalContext = hs?.additionalContext ?? j.additionalContext;
  return {
    ...(decision ? { decision: decision as HookDecision } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(updatedInput ? { updatedInput } : {}),
    ...(additionalContext ? { additionalContext } : {}),
    ...(j.systemMessage ? { systemMessage: j.systemMessage } : {}),
    ...(stop !== undefined ? { stop } : {}),
  };
}

function stderrTail(run: RawRun): string {
  const line = run.stderr.trim().split("\n").filter(Boolean).at(-1);
  return line ? `: ${line.slice(0, 300)}` : "";
}

export interface CombinedOutcome {
  decision?: HookDecision;
  /** Reasons of the hooks that decided `decision` (deny or ask), in settings order. */
  reasons: string[];
  updatedInput?: Record<string, unknown>;
  contexts: string[];
  stop?: string;
  outcomes: HookOutcome[];
}

export function combine(outcomes: HookOutcome[]): CombinedOutcome {
  const rank = (d: HookDecision | undefined) => (d === "deny" ? 3 : d === "ask" ? 2 : d === "allow" ? 1 : 0);
  const top = outcomes.reduce<HookDecision | undefined>((best, o) => (rank(o.decision) > rank(best) ? o.decision : best), undefined);
  const reasons = outcomes.filter((o) => o.decision === top && top !== "allow" && o.reason).map((o) => o.reason as string);
  const updated = outcomes.filter((o) => o.updatedInput && o.decision !== "deny").at(-1)?.updatedInput;
  const stop = outcomes.find((o) => o.stop !== undefined)?.stop;
  return {
    ...(top ? { decision: top } : {}),
    reasons,
    ...(updated ? { updatedInput: updated } : {}),
    contexts: outcomes.flatMap((o) => (o.additionalContext ? [o.additionalContext] : [])),
    ...(stop !== undefined ? { stop } : {}),
    outcomes,
  };
}
