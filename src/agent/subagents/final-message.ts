/**
 * A child's final message as the parent's tool result: bounded, the full text spilled to a file the parent may
 * read when it is longer. Text for the model (English, not in the i18n table).
 */
import { safeHead } from "../../util/text.ts";

export const FINAL_MESSAGE_MAX_CHARS = 12_000;

export type ChildStatus = "completed" | "failed" | "timeout" | "cancelled" | "max_turns";

export interface ChildOutcome {
  agentId: string;
  agent: string;
  description: string;
  status: ChildStatus;
  text: string;
  turns: number;
  error?: string;
}

/** The tool result text: the final message (cut and spilled when long), marked partial unless the child completed. */
export function resultText(o: ChildOutcome, spill: (text: string) => string | undefined, max = FINAL_MESSAGE_MAX_CHARS): string {
  const head = o.status === "completed" ? "" : `[partial result: subagent ${o.agent} (${o.agentId}) ${statusWords(o)}]\n`;
  const body = o.text.trim() || (o.status === "completed" ? "(the subagent finished without a final message)" : "(no final message)");
  if (body.length <= max) return head + body;
  const file = spill(body);
  const where = file ? `\n[cut at ${max} of ${body.length} characters; the full message is in ${file} (use read)]` : `\n[cut at ${max} of ${body.length} characters]`;
  return head + safeHead(body, max) + where;
}

function statusWords(o: ChildOutcome): string {
  switch (o.status) {
    case "timeout":
      return `timed out after ${o.turns} turn(s)`;
    case "cancelled":
      return `was cancelled after ${o.turns} turn(s)`;
    case "max_turns":
      return `stopped at its turn limit (${o.turns} turns)`;
    case "failed":
      return `failed: ${o.error ?? "unknown error"}`;
    default:
      return "completed";
  }
}
