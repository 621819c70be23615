/**
 * What the tool host asks of user hooks (implemented by src/ext/hooks; absent = no hooks). The permission policy
 * stays the one decider; hooks can only tighten it, with one exception Claude Code users rely on:
 *   1. PreToolUse (`before`) runs after the arguments are prepared, before the policy. `deny` (or exit 2) denies
 *      the call with the hook's reason for the model; `updatedInput` replaces the arguments (prepared and
 *      validated again, and the policy decides on the new ones); `ask` turns a policy `allow` into a question.
 *   2. The policy decides. Its `deny` (rules, dangerous commands, plan mode) is final whatever a hook said.
 *   3. A policy `ask` that only comes from the mode's default (source `default` / `mode`) may be answered by a
 *      hook's `allow` (PreToolUse, else PermissionRequest) without prompting. An ask from a protected path, a
 *      dangerous-maybe or safety-immune command, an ask rule or the sandbox is never skipped by a hook.
 *   4. PermissionRequest (`permissionRequest`) runs just before the person would be asked: `deny` denies,
 *      `allow` approves (within rule 3).
 *   5. After the tool ran: PostToolUse (success) or PostToolUseFailure (an error result) — `after` returns notes
 *      for the model (a `decision: block` reason, additionalContext, exit 2's stderr), added to the result.
 * Calls that never ran (unknown tool, bad arguments, denied) fire neither PostToolUse nor PostToolUseFailure.
 */
import type { ToolRunResult } from "./tool-host.ts";

export interface HookedCall {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  /** Absolute path of the file a file tool touches (sent as Claude Code's `tool_input.file_path`). */
  absPath?: string;
}

export interface PreToolVerdict {
  decision?: "allow" | "deny" | "ask";
  reason?: string;
  updatedInput?: Record<string, unknown>;
  /** additionalContext for the model, added to the call's result. */
  contexts: string[];
}

export interface ToolCallHooks {
  before(call: HookedCall, signal: AbortSignal): Promise<PreToolVerdict>;
  permissionRequest(call: HookedCall, reason: string, signal: AbortSignal): Promise<{ decision?: "allow" | "deny"; reason?: string; updatedInput?: Record<string, unknown> }>;
  after(call: HookedCall, result: ToolRunResult, signal: AbortSignal): Promise<string[]>;
}
