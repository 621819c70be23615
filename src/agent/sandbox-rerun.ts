/**
 * After a sandboxed exec failed because of the sandbox (exec puts `details.sandboxFailure`): ask the user whether
 * to run it again outside the sandbox. The question goes straight to the approval round trip, never through the
 * permission policy, so no rule and no mode (bypass included) answers it; headless without a terminal answers
 * `deny`, which is reported. "always" counts as once: nothing is remembered.
 */
import { t } from "../i18n/i18n.ts";
import type { ToolRunContext, ToolRunResult } from "./tool-host.ts";
import { withModelNote } from "./model-note.ts";

/** The `tool` of the re-run question (approval.requested): exec, but outside the sandbox. */
export const SANDBOX_RERUN_TOOL = "exec-unsandboxed";

export function sandboxFailureOf(r: ToolRunResult): { kind: string; evidence: string } | undefined {
  const f = r.details?.sandboxFailure;
  if (!f || typeof f !== "object") return undefined;
  const { kind, evidence } = f as Record<string, unknown>;
  return typeof kind === "string" && typeof evidence === "string" ? { kind, evidence } : undefined;
}

export async function offerRerunOutsideSandbox(first: ToolRunResult, command: string, ctx: ToolRunContext, rerun: () => Promise<ToolRunResult>): Promise<ToolRunResult> {
  const failure = sandboxFailureOf(first);
  if (!failure || ctx.signal.aborted) return first;
  const answer = await ctx.requestApproval({
    tool: SANDBOX_RERUN_TOOL,
    action: command,
    reason: t(failure.kind === "network" ? "sandbox.rerunNetwork" : "sandbox.rerunFilesystem", { evidence: failure.evidence }),
    noAlways: true,
  });
  if ((answer === "once" || answer === "always") && !ctx.signal.aborted) {
    const again = await rerun();
    const noted = withModelNote(again, "[the user approved running this command again outside the sandbox; this is that run's result]", "before");
    return { ...noted, details: { ...noted.details, rerunOutsideSandbox: true } };
  }
  const noted = withModelNote(
    first,
    "[sandbox] The user was asked whether to run it again outside the sandbox and declined (or nobody could be asked). Do not retry the same command; find a way that works inside the sandbox, or ask the user.",
    "after",
  );
  return { ...noted, details: { ...noted.details, rerunOutsideSandbox: false, action: command } };
}
