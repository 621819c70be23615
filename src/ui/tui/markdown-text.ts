/**
 * Markdown → styled text chunks, synchronously, in one pass per line. Used for the streaming tail and for every
 * committed answer block (full-screen pages and inline scrollback), so a block looks the same before and after
 * it is committed. Why not MarkdownRenderable: one per block costs a marked parse, a Yoga subtree and a
 * tree-sitter worker round trip per update; for a 5,000-line answer that alone broke the CPU budget (see
 * docs/performance.md). Markers are hidden; headings, lists, quotes, rules, tables, links, inline code,
 * bold/italic/strike and fenced code (with a small keyword highlighter) are styled.
 */
import { TextAttributes, type TextChunk } from "@opentui/core";
import { chunk } from "./styled-chunk.ts";
import { colors } from "./theme.ts";
import { highlightCodeLine } from "./code-highlight.ts";

const INLINE_CODE = "#e0af68";
const FENCE = /^(\s{0,3})(`{3,}|~{3,})\s*([\w+#.-]*)/;
const TABLE_ROW = /^\s{0,3}\|.*\|\s*$/;
const TABLE_SEP = /^\s{0,3}\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Chunks for a markdown text; every line ends with "\n". */
export function markdownChunks(text: string): TextChunk[] {
  const out: TextChunk[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let fence: { marker: string; lang: string } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[2]!.startsWith(fence.marker) && !f[3]) fence = null;
      else {
        out.push(chunk("  "));
        highlightCodeLine(line, fence.lang, out);
        out.push(chunk("\n"));
      }
      continue;
    }
    if (f) {
      fence = { marker: f[2]!, lang: f[3]!.toLowerCase() };
      if (fence.lang) out.push(chunk(`  ${fence.lang}\n`, colors.dim, TextAttributes.DIM));
      continue;
    }
    if (TABLE_ROW.test(line) && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!)) {
      let end = i + 2;
      while (end < lines.length && TABLE_ROW.test(lines[end]!)) end++;
      table(lines[i]!, lines.slice(i + 2, end), out);
      i = end - 1;
      continue;
    }
    blockLine(line, out);
  }
  return out;
}

function blockLine(line: string, out: TextChunk[]): void {
  const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (h) {
    const attrs = TextAttributes.BOLD | (h[1]!.length === 1 ? TextAttributes.UNDERLINE : 0);
    inline(h[2]!, out, colors.heading, attrs);
    out.push(chunk("\n"));
    return;
  }
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
    out.push(chunk("─".repeat(40) + "\n", colors.border));
    return;
  }
  const q = /^(\s{0,3}>\s?)+/.exec(line);
  if (q) {
    const depth = (q[0].match(/>/g) ?? []).length;
    out.push(chunk("│ ".repeat(depth), colors.dim));
    inline(line.slice(q[0].length), out, colors.dim, TextAttributes.ITALIC);
    out.push(chunk("\n"));
    return;
  }
  const li = /^(\s*)([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (li) {
    const bullet = /\d/.test(li[2]!) ? li[2]! : "•";
    out.push(chunk(li[1]! + bullet + " ", colors.accent));
    if (li[3]) out.push(chunk(/x/i.test(li[3]) ? "☑ " : "☐ ", colors.accent));
    inline(li[4]!, out);
    out.push(chunk("\n"));
    return;
  }
  inline(line, out);
  out.push(chunk("\n"));
}

function cells(row: string): string[] {
  const s = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  return s.split(/(?<!\\)\|/).map((c) => c.trim());
}

function table(header: string, rows: string[], out: TextChunk[]): void {
  const head = cells(header);
  const body = rows.map(cells);
  const n = Math.max(head.length, ...body.map((r) => r.length));
  const styled = (c: string, base?: string, attrs = 0) => {
    const parts: TextChunk[] = [];
    inline(c, parts, base, attrs);
    return { parts, width: parts.reduce((w, p) => w + p.text.length, 0) };
  };
  const grid = [head, ...body].map((r, ri) => Array.from({ length: n }, (_, ci) => styled(r[ci] ?? "", ri === 0 ? colors.heading : undefined, ri === 0 ? TextAttributes.BOLD : 0)));
  const widths = Array.from({ length: n }, (_, ci) => Math.max(...grid.map((r) => r[ci]!.width)));
  grid.forEach((r, ri) => {
    r.forEach((c, ci) => {
      if (ci) out.push(chunk(" │ ", colors.border));
      out.push(...c.parts);
      if (ci < n - 1) out.push(chunk(" ".repeat(widths[ci]! - c.width)));
    });
    out.push(chunk("\n"));
    if (ri === 0) out.push(chunk(widths.map((w) => "─".repeat(w)).join("─┼─") + "\n", colors.border));
  });
}

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|~~(?=\S)([\s\S]*?\S)~~|\*(?=[^\s*])([^*]*?[^\s*])\*|(?<![\w\\])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)|!?\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>|\\([\\`*_{}[\]()#+\-.!|>~])/g;

/** Inline markdown of one line into `out`; `base`/`attrs` style the plain runs (nested styles add up). */
export function inline(text: string, out: TextChunk[], base: string = colors.text, attrs = 0): void {
  let last = 0;
  const plain = (s: string) => {
    if (s) out.push(chunk(s, base, attrs));
  };
  INLINE.lastIndex = 0;
  for (let m = INLINE.exec(text); m; m = INLINE.exec(text)) {
    plain(text.slice(last, m.index));
    last = m.index + m[0].length;
    const re = INLINE.lastIndex;
    if (m[2] !== undefined) out.push(chunk(m[2].replace(/^ (.*) $/, "$1"), INLINE_CODE, attrs));
    else if (m[3] !== undefined) inline(m[3], out, base, attrs | TextAttributes.BOLD);
    else if (m[4] !== undefined) inline(m[4], out, base, attrs | TextAttributes.BOLD);
    else if (m[5] !== undefined) inline(m[5], out, base, attrs | TextAttributes.STRIKETHROUGH);
    else if (m[6] !== undefined) inline(m[6], out, base, attrs | TextAttributes.ITALIC);
    else if (m[7] !== undefined) inline(m[7], out, base, attrs | TextAttributes.ITALIC);
    else if (m[9] !== undefined) {
      const label = m[8] || m[9];
      out.push(chunk(label, colors.accent, attrs | TextAttributes.UNDERLINE));
      if (m[8] && m[8] !== m[9] && m[9]) out.push(chunk(` (${m[9]})`, colors.dim, TextAttributes.DIM));
    } else if (m[10] !== undefined) out.push(chunk(m[10], colors.accent, attrs | TextAttributes.UNDERLINE));
    else if (m[11] !== undefined) plain(m[11]);
    INLINE.lastIndex = re;
  }
  plain(text.slice(last));
}
