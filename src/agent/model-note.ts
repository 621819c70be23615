/**
 * Text the agent adds to a tool's result for the model only ("[the user approved running this command again…]",
 * "Do not retry…"). The result keeps one text (what the model reads); `details.modelNote` records how many
 * characters at its start and end are such notes, so a UI shows the tool's own output without them
 * (ui/shared/tool-error-line.ts) and never has to read the text to find them.
 */
import type { ToolRunResult } from "./tool-host.ts";

export interface ModelNoteSpan {
  before: number;
  after: number;
}

export function modelNoteOf(details: Record<string, unknown> | undefined): ModelNoteSpan {
  const n = details?.modelNote as Partial<ModelNoteSpan> | undefined;
  return { before: typeof n?.before === "number" ? n.before : 0, after: typeof n?.after === "number" ? n.after : 0 };
}

/** `note` joined to the result's text with a newline, before or after it, and counted in `details.modelNote`. */
export function withModelNote(r: ToolRunResult, note: string, at: "before" | "after"): ToolRunResult {
  const span = modelNoteOf(r.details);
  const added = note.length + 1;
  const text = at === "before" ? `${note}\n${r.text}` : `${r.text}\n${note}`;
  const modelNote = at === "before" ? { ...span, before: span.before + added } : { ...span, after: span.after + added };
  return { ...r, text, details: { ...(r.details ?? {}), modelNote } };
}
