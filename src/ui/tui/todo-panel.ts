/**
 * The todo checklist above the prompt (issue 25): the whole list in full mode, one `☐ 3/7 done` line in compact
 * mode. Shown while the agent works, and while any item is open; a finished list goes away once the turn ends.
 */
import type { TextChunk } from "@opentui/core";
import { TextAttributes } from "@opentui/core";
import { todoProgress, type TodoItem } from "../../protocol/todo.ts";
import { t } from "../../i18n/i18n.ts";
import { chunk } from "./styled-chunk.ts";
import { colors } from "./theme.ts";
import type { ViewState } from "./view-model.ts";

/** Items shown at most in full mode; the rest are counted on one line. */
const MAX_ROWS = 10;

export function todoVisible(s: ViewState): boolean {
  const items = s.todos ?? [];
  return items.length > 0 && (s.status.running || items.some((i) => i.status !== "done"));
}

/** Rows the panel takes (inline mode sizes its footer from this). */
export function todoRows(s: ViewState): number {
  if (!todoVisible(s)) return 0;
  return s.displayMode === "compact" ? 1 : Math.min(s.todos!.length, MAX_ROWS) + 1 + (s.todos!.length > MAX_ROWS ? 1 : 0);
}

export function todoChunks(items: readonly TodoItem[], compact: boolean): TextChunk[] {
  const { done, total } = todoProgress(items);
  if (compact) return [chunk(t("todo.collapsed", { done, total }), colors.accent)];
  // The item in progress stays in view: the window starts just before it when the list is long.
  const current = Math.max(0, items.findIndex((i) => i.status === "in_progress"));
  const start = items.length > MAX_ROWS ? Math.min(Math.max(0, current - 2), items.length - MAX_ROWS) : 0;
  const shown = items.slice(start, start + MAX_ROWS);
  const out: TextChunk[] = [chunk(`${t("todo.header", { done, total })}\n`, colors.accent, TextAttributes.BOLD)];
  shown.forEach((item, k) => {
    const last = k === shown.length - 1 && start + MAX_ROWS >= items.length;
    const end = last ? "" : "\n";
    if (item.status === "done") out.push(chunk(`  ✓ ${item.content}${end}`, colors.dim, TextAttributes.STRIKETHROUGH));
    else if (item.status === "in_progress") out.push(chunk(`  ▸ ${item.content}${end}`, colors.warn, TextAttributes.BOLD));
    else out.push(chunk(`  ○ ${item.content}${end}`, colors.text));
  });
  if (start + MAX_ROWS < items.length) out.push(chunk(`  … +${items.length - start - MAX_ROWS}`, colors.dim));
  return out;
}
