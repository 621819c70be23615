/**
 * The line a person sees for a failed tool call whose result text is addressed to the model ("Do not retry the
 * same call…"): chosen from the result's errorCode and details, never by reading its text. Undefined when the
 * result is the tool's own output and reads fine as it is (a command's output, "File not found: x").
 */
import { t } from "../../i18n/i18n.ts";
import { modelNoteOf } from "../../agent/model-note.ts";

export interface FailedToolCall {
  name: string;
  errorCode?: string;
  details?: Record<string, unknown>;
}

export function toolErrorLine(e: FailedToolCall): string | undefined {
  const d = e.details ?? {};
  const target = typeof d.action === "string" && d.action !== "" ? d.action : undefined;
  const action = target ? `${e.name} ${target}` : e.name;
  if (d.rerunOutsideSandbox === false) {
    const f = d.sandboxFailure as { evidence?: unknown } | undefined;
    const evidence = typeof f?.evidence === "string" ? f.evidence : "";
    return evidence ? t("toolError.sandboxDeclinedWhy", { action, evidence }) : t("toolError.sandboxDeclined", { action });
  }
  switch (e.errorCode) {
    case "permission_denied":
      // deniedBecause: the policy's reason, already in the person's language (tool-host-impl.ts).
      if (d.deniedBy === "policy" && typeof d.deniedBecause === "string" && d.deniedBecause) return t("toolError.blockedWhy", { action, reason: d.deniedBecause });
      if (d.deniedBy === "policy") return t("toolError.blocked", { action });
      if (d.deniedBy === "interrupted") return t("toolError.interrupted", { action });
      return t("toolError.denied", { action });
    case "tool_not_allowed":
      return t("toolError.notAllowed", { name: e.name, by: typeof d.restrictedBy === "string" ? d.restrictedBy : "" });
    case "not_executed":
      return t("toolError.notExecuted", { action });
    case "unknown_tool":
      return t("toolError.unknownTool", { name: e.name });
    case "invalid_args":
      return t("toolError.invalidArgs", { name: e.name });
    default:
      return undefined;
  }
}

/**
 * A tool's result as a person should read it: the human line for a model-addressed error, else the result
 * without the notes the agent added for the model (details.modelNote), plus a line for what chatcli did
 * around it (protected files put back, a run outside the sandbox).
 */
export function toolResultForPeople(e: FailedToolCall & { isError: boolean; result: string }): string {
  const line = e.isError ? toolErrorLine(e) : undefined;
  if (line) return line;
  const { before, after } = modelNoteOf(e.details);
  let text = before || after ? e.result.slice(before, Math.max(before, e.result.length - after)) : e.result;
  const restored = e.details?.restoredProtected;
  if (Array.isArray(restored) && restored.length) text += `\n${t("toolNote.restoredProtected", { files: restored.join(", ") })}`;
  if (e.details?.rerunOutsideSandbox === true) text = `${t("toolNote.rerunOutside")}\n${text}`;
  return text;
}
