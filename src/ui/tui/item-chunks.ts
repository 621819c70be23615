/**
 * Turns transcript items into styled text chunks. Used for every committed item that is not live markdown:
 * tool groups, notices, user messages, thinking, and committed markdown (src/ui/tui/markdown-text.ts).
 */
import { TextAttributes, type TextChunk } from "@opentui/core";
import type { DisplayMode, ToolCallView, TranscriptItem } from "./view-model.ts";
import { colors } from "./theme.ts";
import { chunk } from "./styled-chunk.ts";
import { markdownChunks } from "./markdown-text.ts";
import { t } from "../../i18n/i18n.ts";
import { headAtBoundary } from "../../util/text.ts";

export { chunk };

export interface RenderFlags {
  mode: DisplayMode;
  showThinking: boolean;
  labels: Record<string, string>;
}

/** Chunks for one item, ending with a newline. Markdown items get the light styler. */
export function itemChunks(item: TranscriptItem, f: RenderFlags): TextChunk[] {
  switch (item.kind) {
    case "user":
      return [chunk("› ", colors.user, TextAttributes.BOLD), chunk(item.text.replace(/\n/g, "\n  ") + "\n", colors.user)];
    case "markdown":
      return markdownChunks(item.text);
    case "thinking":
      return thinkingChunks(item.text, f);
    case "tools":
      // Only the label the group was committed with: a later one is its own `summary` line (summary-labels.ts).
      return toolChunks(item.calls, f, item.label);
    case "summary":
      // Compact mode shows the label in the group header instead, when the group was committed with it.
      return f.mode === "compact" && item.inHeader ? [] : [chunk(`● ${item.label}\n`, colors.dim, TextAttributes.DIM)];
    case "notice": {
      const c = item.level === "error" ? colors.error : item.level === "warn" ? colors.warn : colors.dim;
      const mark = item.level === "error" ? "✗ " : item.level === "warn" ? "! " : "· ";
      // Continuation lines are indented under the first line's text, past the mark (/help's rows line up).
      return [chunk(mark + item.text.split("\n").join("\n  ") + "\n", c)];
    }
  }
}

/** `showThinking` decides alone (the app starts it expanded in full mode, collapsed in compact; Ctrl+T flips it). */
export function thinkingChunks(text: string, f: RenderFlags): TextChunk[] {
  const lines = text.trim().split("\n");
  if (!f.showThinking) {
    return [chunk(`${lines.length === 1 ? t("item.thinkingOne") : t("item.thinkingMany", { count: lines.length })}\n`, colors.dim, TextAttributes.DIM | TextAttributes.ITALIC)];
  }
  return [chunk("✻ " + lines.join("\n  ") + "\n", colors.dim, TextAttributes.DIM | TextAttributes.ITALIC)];
}

/** Lines of a `!` command's output the transcript shows (the rest is counted on a line above them). */
const FULL_OUTPUT_LINES = 200;

/** A batch of calls, grouped by consecutive tool name: `Read × 3`. */
export function toolChunks(calls: readonly ToolCallView[], f: RenderFlags, label?: string): TextChunk[] {
  const out: TextChunk[] = [];
  if (f.mode === "compact" && label) {
    // The label replaces the `Tool × N` headers of the whole batch.
    const running = calls.some((c) => c.status === "running");
    const failed = calls.some((c) => c.status === "error");
    out.push(chunk(running ? "○ " : "● ", failed ? colors.error : running ? colors.warn : colors.tool), chunk(label + "\n", colors.tool, TextAttributes.BOLD));
    return out;
  }
  const groups: ToolCallView[][] = [];
  for (const c of calls) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.name === c.name) last.push(c);
    else groups.push([c]);
  }
  groups.forEach((g) => {
    const running = g.some((c) => c.status === "running");
    const failed = g.some((c) => c.status === "error");
    const dot = running ? "○ " : "● ";
    const name = capitalize(g[0]!.name);
    const head = g.length > 1 ? `${name} × ${g.length}` : `${name} ${titleWithoutName(g[0]!)}`;
    out.push(chunk(dot, failed ? colors.error : running ? colors.warn : colors.tool), chunk(head + "\n", colors.tool, TextAttributes.BOLD));
    if (f.mode === "compact" && !g.some((c) => c.full)) return;
    for (const c of g) {
      if (g.length > 1) out.push(chunk(`  ⎿ ${c.title}\n`, colors.text));
      const preview = previewLines(c, c.full ? FULL_OUTPUT_LINES : c.status === "running" ? 6 : 3);
      if (preview) out.push(chunk(preview, c.status === "error" ? colors.error : colors.dim));
    }
  });
  return out;
}

/**
 * The last `max` lines of a call's output, with how many lines come before them (those the view state no
 * longer keeps included). Scans from the end: the output is up to 64 KB and this runs every frame.
 */
function previewLines(c: ToolCallView, max: number): string {
  const output = c.output.trimEnd();
  if (!output.trim()) return "";
  let start = output.length;
  let shown = 0;
  while (shown < max && start > 0) {
    start = output.lastIndexOf("\n", start - 1);
    shown++;
    if (start < 0) break;
  }
  const shownText = start < 0 ? output : output.slice(start + 1);
  const before = start < 0 ? 0 : countLines(output.slice(0, start + 1));
  const hidden = before + (c.droppedLines ?? 0);
  const more = hidden > 0 ? `    ${t("item.moreLines", { count: hidden })}\n` : "";
  const lines = shownText.split("\n");
  return more + lines.map((l) => "    " + (l.length > 200 ? headAtBoundary(l, 200) + "…" : l)).join("\n") + "\n";
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** Titles often start with the tool's own name ("exec ls"): the header already shows it. */
export function titleWithoutName(c: Pick<ToolCallView, "name" | "title">): string {
  return c.title.startsWith(`${c.name} `) ? c.title.slice(c.name.length + 1) : c.title;
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}
