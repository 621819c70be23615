/**
 * Turns transcript items into styled text chunks. Used for every committed item that is not live markdown:
 * tool groups, notices, user messages, and the frozen pages of old markdown (a light styler, no tree-sitter).
 */
import { RGBA, TextAttributes, type TextChunk } from "@opentui/core";
import type { DisplayMode, ToolCallView, TranscriptItem } from "./view-model.ts";
import { colors } from "./theme.ts";

const rgbaCache = new Map<string, RGBA>();
function color(hex: string): RGBA {
  let c = rgbaCache.get(hex);
  if (!c) {
    c = RGBA.fromHex(hex);
    rgbaCache.set(hex, c);
  }
  return c;
}

export function chunk(text: string, fgHex?: string, attributes?: number): TextChunk {
  const c: TextChunk = { __isChunk: true, text };
  if (fgHex) c.fg = color(fgHex);
  if (attributes) c.attributes = attributes;
  return c;
}

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
      return styledMarkdown(item.text);
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
      return [chunk(mark + item.text + "\n", c)];
    }
  }
}

export function thinkingChunks(text: string, f: RenderFlags): TextChunk[] {
  const lines = text.trim().split("\n");
  if (f.mode === "compact" || !f.showThinking) {
    return [chunk(`✻ Thinking (${lines.length} line${lines.length === 1 ? "" : "s"}, ctrl+t to show)\n`, colors.dim, TextAttributes.DIM | TextAttributes.ITALIC)];
  }
  return [chunk("✻ " + lines.join("\n  ") + "\n", colors.dim, TextAttributes.DIM | TextAttributes.ITALIC)];
}

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
    const head = g.length > 1 ? `${name} × ${g.length}` : `${name} ${g[0]!.title}`;
    out.push(chunk(dot, failed ? colors.error : running ? colors.warn : colors.tool), chunk(head + "\n", colors.tool, TextAttributes.BOLD));
    if (f.mode === "compact") return;
    for (const c of g) {
      if (g.length > 1) out.push(chunk(`  ⎿ ${c.title}\n`, colors.text));
      const preview = previewLines(c.output, c.status === "running" ? 6 : 3);
      if (preview) out.push(chunk(preview, c.status === "error" ? colors.error : colors.dim));
    }
  });
  return out;
}

function previewLines(output: string, max: number): string {
  const lines = output.replace(/\s+$/, "").split("\n").filter((l, i, a) => l !== "" || i < a.length - 1);
  if (!output.trim()) return "";
  const shown = lines.length > max ? lines.slice(-max) : lines;
  const more = lines.length > max ? `    … ${lines.length - max} more lines\n` : "";
  return more + shown.map((l) => "    " + (l.length > 200 ? l.slice(0, 200) + "…" : l)).join("\n") + "\n";
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** A light markdown styler for frozen pages: markers hidden, headings bold, code coloured. */
export function styledMarkdown(text: string): TextChunk[] {
  const out: TextChunk[] = [];
  let inFence = false;
  for (const line of text.split("\n")) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(chunk("  " + line + "\n", colors.code));
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      out.push(chunk(h[2]! + "\n", colors.heading, TextAttributes.BOLD));
      continue;
    }
    const li = /^(\s*)([-*+]|\d+\.)\s+(.*)$/.exec(line);
    if (li) {
      out.push(chunk(li[1]! + (/\d/.test(li[2]!) ? li[2]! : "•") + " ", colors.accent));
      inline(li[3]!, out);
    } else inline(line, out);
    out.push(chunk("\n"));
  }
  return out;
}

function inline(line: string, out: TextChunk[]): void {
  const re = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m.index > last) out.push(chunk(line.slice(last, m.index), colors.text));
    const tok = m[0];
    if (tok.startsWith("`")) out.push(chunk(tok.slice(1, -1), "#e0af68"));
    else out.push(chunk(tok.slice(2, -2), colors.text, TextAttributes.BOLD));
    last = m.index + tok.length;
  }
  if (last < line.length) out.push(chunk(line.slice(last), colors.text));
}
