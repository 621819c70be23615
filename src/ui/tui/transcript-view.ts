/**
 * The full-screen transcript: a sticky ScrollBox holding committed items and, under them, the live area.
 * Bounded renderables: committed items are styled text appended to pages (one TextRenderable per PAGE_LINES
 * lines); only the last page is ever re-encoded, so an append costs the same whatever the transcript length and
 * memory grows with the text, not with the number of items. Committed markdown is rendered to styled text once
 * (markdown-text.ts), the same styler the streaming tail uses, so a block does not change look when it commits.
 * A committed page above the last one never changes, so nothing moves under a user who scrolled up.
 *
 * Compact mode is the one exception (issue 9, as the seed's compact view does): a label usually lands after its
 * group was drawn (it is generated while the next answer streams), so its standalone line is folded into the
 * group's header instead, and consecutive tool groups with nothing visible between them merge into one header
 * showing the first batch's label. Only the chunks of that group are replaced and only its page re-encoded.
 */
import {
  BoxRenderable,
  ScrollBoxRenderable,
  StyledText,
  TextRenderable,
  type CliRenderer,
  type SyntaxStyle,
  type TextChunk,
} from "@opentui/core";
import type { ToolCallView, TranscriptItem, ViewState } from "./view-model.ts";
import { chunk, itemChunks, thinkingChunks, toolChunks, type RenderFlags } from "./item-chunks.ts";
import { markdownChunks } from "./markdown-text.ts";
import { colors, ink } from "./theme.ts";
import type { ScrollRegionRect } from "./scroll-region.ts";

const PAGE_LINES = 200;

interface Page {
  text: TextRenderable;
  chunks: TextChunk[];
  lines: number;
}

/** A compact-mode tool group already on a page: where its chunks are, so a label or a merge can redraw them. */
interface DrawnGroup {
  page: Page;
  start: number;
  end: number;
  calls: ToolCallView[];
  /** The batches merged into this group, in order, with the label each one has so far. */
  batches: { batchId: string; label?: string }[];
}

export class TranscriptView {
  readonly scroll: ScrollBoxRenderable;
  private readonly committed: BoxRenderable;
  private readonly live: LiveArea;
  private pages: Page[] = [];
  private rendered = 0;
  private epoch = -1;
  /** Compact mode: batchId → its drawn group; `lastGroup` is set while the group is the last visible item. */
  private groups = new Map<string, DrawnGroup>();
  private lastGroup: DrawnGroup | null = null;
  private dirty = new Set<Page>();
  private syncs = 0;

  constructor(
    private readonly renderer: CliRenderer,
    syntaxStyle: SyntaxStyle,
  ) {
    this.scroll = new ScrollBoxRenderable(renderer, {
      id: "transcript",
      flexGrow: 1,
      flexShrink: 1,
      stickyScroll: true,
      stickyStart: "bottom",
      viewportCulling: true,
      paddingLeft: 1,
      paddingRight: 1,
    });
    this.committed = new BoxRenderable(renderer, { id: "committed", flexDirection: "column", width: "100%" });
    this.live = new LiveArea(renderer, syntaxStyle);
    this.scroll.add(this.committed);
    this.scroll.add(this.live.box);
  }

  /** Number of renderables holding committed items (pages); grows with the text, one per PAGE_LINES lines. */
  get committedRenderables(): number {
    return this.pages.length;
  }

  isAtBottom(): boolean {
    const s = this.scroll;
    return s.scrollTop + s.viewport.height >= s.scrollHeight - 1;
  }

  sync(state: ViewState, flags: RenderFlags): void {
    this.syncs++;
    if (state.epoch !== this.epoch) this.reset(state.epoch);
    if (this.rendered < state.items.length) {
      let page: Page | null = null;
      for (let i = this.rendered; i < state.items.length; i++) page = this.append(state.items[i]!, flags) ?? page;
      // One re-encode per sync, however many items arrived since the last frame.
      if (page) this.dirty.add(page);
      for (const p of this.dirty) setPageContent(p);
      this.dirty.clear();
      this.rendered = state.items.length;
    }
    this.live.gapAbove = this.pages.length > 0;
    this.live.sync(state, flags);
  }

  /**
   * The screen rows the transcript owns and the columns its text uses (no padding, no scroll bar), for
   * scroll-region.ts: those rows only ever move as a block.
   */
  regionRect(): ScrollRegionRect {
    const s = this.scroll;
    // Anything that can change what the rows show: a sync (new text, a new epoch) or a scroll.
    const version = `${this.syncs}:${s.scrollTop}:${s.scrollHeight}`;
    return { top: s.screenY, height: s.height, left: s.screenX + 1, width: Math.max(0, s.width - 3), version };
  }

  pageBy(fraction: number): void {
    this.scroll.scrollBy(fraction, "viewport");
  }

  toTop(): void {
    this.scroll.scrollTo(0);
  }

  toBottom(): void {
    this.scroll.scrollTo(Infinity);
  }

  private reset(epoch: number): void {
    for (const p of this.pages) p.text.destroyRecursively();
    this.pages = [];
    this.rendered = 0;
    this.epoch = epoch;
    this.groups.clear();
    this.lastGroup = null;
    this.dirty.clear();
  }

  /** Adds an item's chunks to the last page (opening a new one when full); returns the page it went to. */
  private append(item: TranscriptItem, flags: RenderFlags): Page | null {
    if (flags.mode === "compact" && this.foldIntoGroup(item, flags)) return null;
    const chunks = itemChunks(item, flags);
    if (!chunks.length) return null;
    this.lastGroup = null;
    let page = this.pages[this.pages.length - 1];
    if (!page || page.lines >= PAGE_LINES) {
      if (page) setPageContent(page);
      page = { text: new TextRenderable(this.renderer, { content: "", width: "100%" }), chunks: [], lines: 0 };
      this.committed.add(page.text);
      this.pages.push(page);
    }
    // Items end with "\n" and are separated by a blank line (a page after the first starts with it).
    if (page.chunks.length || this.pages.length > 1) {
      page.chunks.push(chunk("\n"));
      page.lines++;
    }
    const start = page.chunks.length;
    for (const c of chunks) {
      page.chunks.push(c);
      page.lines += countNewlines(c.text);
    }
    if (flags.mode === "compact" && item.kind === "tools") {
      const g: DrawnGroup = { page, start, end: page.chunks.length, calls: [...item.calls], batches: [{ batchId: item.batchId, ...(item.label ? { label: item.label } : {}) }] };
      this.groups.set(item.batchId, g);
      this.lastGroup = g;
    }
    return page;
  }

  /**
   * Compact mode: a label line for a drawn group becomes that group's header; a tool group right after another
   * (nothing visible between) merges into it. True when the item was absorbed and draws nothing itself.
   */
  private foldIntoGroup(item: TranscriptItem, flags: RenderFlags): boolean {
    if (item.kind === "summary") {
      const g = this.groups.get(item.batchId);
      if (!g) return false;
      const b = g.batches.find((x) => x.batchId === item.batchId)!;
      if (b.label === item.label) return true; // already in the header (the group was committed with it)
      b.label = item.label;
      this.redrawGroup(g, flags);
      return true;
    }
    if (item.kind === "tools") {
      const g = this.lastGroup;
      if (!g || g.page !== this.pages[this.pages.length - 1] || g.end !== g.page.chunks.length || g.page.lines >= PAGE_LINES) return false;
      g.calls.push(...item.calls);
      g.batches.push({ batchId: item.batchId, ...(item.label ? { label: item.label } : {}) });
      this.groups.set(item.batchId, g);
      this.redrawGroup(g, flags);
      return true;
    }
    return false;
  }

  /** Replaces a drawn group's chunks with its header now (the first batch's label that is known, or `Tool × N`). */
  private redrawGroup(g: DrawnGroup, flags: RenderFlags): void {
    const label = g.batches.find((b) => b.label)?.label;
    const next = toolChunks(g.calls, flags, label);
    const old = g.page.chunks.splice(g.start, g.end - g.start, ...next);
    const delta = next.length - old.length;
    g.page.lines += next.reduce((n, c) => n + countNewlines(c.text), 0) - old.reduce((n, c) => n + countNewlines(c.text), 0);
    if (delta) {
      for (const other of new Set(this.groups.values())) {
        if (other === g || other.page !== g.page || other.start < g.end) continue;
        other.start += delta;
        other.end += delta;
      }
    }
    g.end += delta;
    this.dirty.add(g.page);
  }
}

/** The moving part: live thinking, the streaming answer tail, the running tool batch. */
export class LiveArea {
  readonly box: BoxRenderable;
  private readonly thinking: TextRenderable;
  private readonly tail: TextRenderable;
  private readonly tools: TextRenderable;
  private lastTail = "";
  private lastThinking = "";
  private lastTools: unknown = null;
  /** Whether committed items are drawn right above (full screen), so the first live part needs a blank line. */
  gapAbove = false;

  constructor(renderer: CliRenderer, _syntaxStyle: SyntaxStyle) {
    this.box = new BoxRenderable(renderer, { id: "live", flexDirection: "column", width: "100%", flexShrink: 0 });
    this.thinking = new TextRenderable(renderer, { content: "", width: "100%", visible: false, fg: ink(colors.dim) });
    this.tail = new TextRenderable(renderer, { content: "", width: "100%", visible: false });
    this.tools = new TextRenderable(renderer, { content: "", width: "100%", visible: false });
    this.box.add(this.thinking);
    this.box.add(this.tail);
    this.box.add(this.tools);
  }

  /** Height in rows of what is live now (used by inline mode to size the footer). */
  get lineEstimate(): number {
    const t = this.lastTail ? countNewlines(this.lastTail.trimEnd()) + 1 : 0;
    const th = this.lastThinking ? Math.min(6, this.lastThinking.split("\n").length) : 0;
    return t + th + (this.tools.visible ? 4 : 0) + this.gaps;
  }

  private gaps = 0;

  private epoch = -1;

  sync(state: ViewState, flags: RenderFlags): void {
    const { live } = state;
    // A new epoch redraws everything (a /theme palette, Ctrl+T): the live parts too, not only committed items.
    if (state.epoch !== this.epoch) {
      this.epoch = state.epoch;
      this.lastThinking = this.lastTail = "\u0000";
      this.lastTools = Symbol("redraw");
      this.thinking.fg = ink(colors.dim);
    }
    if (live.thinking !== this.lastThinking) {
      this.lastThinking = live.thinking;
      this.thinking.visible = live.thinking.length > 0;
      if (live.thinking) {
        const lines = live.thinking.trimEnd().split("\n");
        const shown = flags.mode === "compact" ? lines.slice(-1) : lines.slice(-6);
        this.thinking.content = new StyledText(trimFinalNewline(thinkingChunks(shown.join("\n"), { ...flags, showThinking: true })));
      }
    }
    if (live.tail !== this.lastTail) {
      this.lastTail = live.tail;
      const text = live.tail.trimEnd();
      this.tail.visible = text.length > 0;
      // The tail is at most one unfinished block (markdown-blocks.ts), so restyling it per frame is cheap.
      if (text) this.tail.content = new StyledText(trimFinalNewline(markdownChunks(text)));
    }
    if (live.tools !== this.lastTools) {
      this.lastTools = live.tools;
      this.tools.visible = live.tools !== null;
      if (live.tools) this.tools.content = new StyledText(trimFinalNewline(toolChunks(live.tools.calls, { ...flags, mode: "full" }, state.labels[live.tools.batchId])));
    }
    // Committed items are separated by a blank line; the live parts keep that spacing (also from the items above),
    // so a block does not jump a row when it commits, under a user who scrolled up or at the bottom.
    let above = this.gapAbove;
    this.gaps = 0;
    for (const part of [this.thinking, this.tail, this.tools]) {
      const margin = part.visible && above ? 1 : 0;
      if (part.marginTop !== margin) part.marginTop = margin;
      this.gaps += margin;
      above ||= part.visible;
    }
  }
}

function setPageContent(page: Page): void {
  page.text.content = new StyledText(trimFinalNewline(page.chunks));
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

function trimFinalNewline(chunks: TextChunk[]): TextChunk[] {
  const last = chunks[chunks.length - 1];
  if (!last?.text.endsWith("\n")) return chunks;
  const out = chunks.slice(0, -1);
  if (last.text.length > 1) out.push({ ...last, text: last.text.slice(0, -1) });
  return out;
}
