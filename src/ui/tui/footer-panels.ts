/** What the footer panels above the prompt show (queue, todo + subagents) and how tall the inline footer is. */
import { StyledText } from "@opentui/core";
import { t } from "../../i18n/i18n.ts";
import { chunk } from "./item-chunks.ts";
import { colors } from "./theme.ts";
import { todoChunks, todoRows, todoVisible } from "./todo-panel.ts";
import { subagentsChunks, subagentsRows } from "./subagents-panel.ts";
import type { ViewState } from "./view-model.ts";

/** The type-ahead queue (null: hidden). */
export function queueContent(s: ViewState): StyledText | null {
  if (!s.queue.length) return null;
  const lines = s.queue.map((q, i) => `  ${i + 1}. ${q.split("\n")[0]!.slice(0, 120)}`);
  return new StyledText([chunk(`${t(s.queuePaused ? "tui.queuedPaused" : "tui.queued", { count: s.queue.length })}\n`, colors.accent), chunk(lines.join("\n"), colors.dim)]);
}

/** The running subagents and the todo list (null: hidden). */
export function todoContent(s: ViewState, now: number): StyledText | null {
  const agents = subagentsChunks(s, now);
  if (!todoVisible(s) && agents.length === 0) return null;
  return new StyledText([...agents, ...(todoVisible(s) ? todoChunks(s.todos ?? [], s.displayMode === "compact") : [])]);
}

export interface FooterRows {
  queueVisible: boolean;
  approvalVisible: boolean;
  completionItems: number | undefined;
  rewindRows: number;
  pickerRows: number;
  promptLines: number;
  liveLines: number | undefined;
  terminalHeight: number;
}

/** Inline mode: the footer's height for what it shows now (at least 4 rows, never the whole terminal). */
export function footerHeightFor(s: ViewState, f: FooterRows): number {
  const extra =
    (f.queueVisible ? Math.min(s.queue.length, 5) + 1 : 0) +
    todoRows(s) +
    subagentsRows(s) +
    (f.approvalVisible ? 12 : 0) +
    Math.min(f.completionItems ?? 0, 8) +
    f.rewindRows +
    f.pickerRows;
  const promptRows = Math.min(8, Math.max(1, f.promptLines)) + 2;
  const liveRows = f.liveLines === undefined ? 0 : Math.min(12, f.liveLines);
  return Math.max(4, Math.min(f.terminalHeight - 2, promptRows + 1 + extra + liveRows + (liveRows ? 1 : 0)));
}
