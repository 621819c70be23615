/**
 * The full-screen transcript: a sticky ScrollBox holding committed items and, under them, the live area.
 * Bounded renderables: only the newest RICH_WINDOW committed items are real renderables (Markdown with
 * highlighted code, tool groups); older ones are frozen into large TextRenderable pages of styled text
 * (PAGE_LINES lines each), so an append costs the same whatever the transcript length. Freezing waits while the
 * user is scrolled up, so nothing moves under their eyes.
 */
import {
  BoxRenderable,
  MarkdownRenderable,
  ScrollBoxRenderable,
  StyledText,
  TextRenderable,
  type CliRenderer,
  type Renderable,
  type SyntaxStyle,
  type TextChunk,
} from "@opentui/core";
import type { TranscriptItem, ViewState } from "./view-model.ts";
import { chunk, itemChunks, thinkingChunks, toolChunks, type RenderFlags } from "./item-chunks.ts";
import { colors } from "./theme.ts";

const RICH_WINDOW = 40;
const PAGE_LINES = 200;

interface Page {
  text: TextRenderable;
  chunks: TextChunk[];
  lines: number;
}

export class TranscriptView {
  readonly scroll: ScrollBoxRenderable;
  private readonly committed: BoxRenderable;
  private readonly live: LiveArea;
  private pages: Page[] = [];
  private rich: { r: Renderable; item: TranscriptItem }[] = [];
  private rendered = 0;
  private epoch = -1;
  private flags: RenderFlags = { mode: "full", showThinking: true, labels: {} };

  constructor(
    private readonly renderer: CliRenderer,
    private readonly syntaxStyle: SyntaxStyle,
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

  /** Number of renderables holding committed items (pages + rich); bounded. */
  get committedRenderables(): number {
    return this.pages.length + this.rich.length;
  }

  isAtBottom(): boolean {
    const s = this.scroll;
    return s.scrollTop + s.viewport.height >= s.scrollHeight - 1;
  }

  sync(state: ViewState, flags: RenderFlags): void {
    this.flags = flags;
    if (state.epoch !== this.epoch) this.reset(state.epoch);
    for (let i = this.rendered; i < state.items.length; i++) this.append(state.items[i]!);
    this.rendered = state.items.length;
    if (this.isAtBottom()) this.freeze();
    this.live.sync(state, flags);
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
    for (const x of this.rich) x.r.destroyRecursively();
    this.pages = [];
    this.rich = [];
    this.rendered = 0;
    this.epoch = epoch;
  }

  private append(item: TranscriptItem): void {
    const r = this.renderItem(item);
    if (!r) return;
    this.committed.add(r);
    this.rich.push({ r, item });
  }

  private renderItem(item: TranscriptItem): Renderable | null {
    if (item.kind === "markdown") {
      return new MarkdownRenderable(this.renderer, {
        content: item.text,
        syntaxStyle: this.syntaxStyle,
        streaming: false,
        width: "100%",
        marginBottom: 1,
      });
    }
    const chunks = trimFinalNewline(itemChunks(item, this.flags));
    if (!chunks.length) return null;
    return new TextRenderable(this.renderer, { content: new StyledText(chunks), width: "100%", marginBottom: 1 });
  }

  private freeze(): void {
    while (this.rich.length > RICH_WINDOW) {
      const { r, item } = this.rich.shift()!;
      this.committed.remove(r);
      r.destroyRecursively();
      const chunks = itemChunks(item, this.flags);
      if (!chunks.length) continue;
      let page = this.pages[this.pages.length - 1];
      if (!page || page.lines >= PAGE_LINES) {
        page = { text: new TextRenderable(this.renderer, { content: "", width: "100%" }), chunks: [], lines: 0 };
        this.committed.add(page.text, this.pages.length);
        this.pages.push(page);
      }
      page.chunks.push(...chunks, chunk("\n"));
      page.lines += chunks.reduce((n, c) => n + countNewlines(c.text), 0) + 1;
      page.text.content = new StyledText(page.chunks);
    }
  }
}

/** The moving part: live thinking, the streaming answer tail, the running tool batch. */
export class LiveArea {
  readonly box: BoxRenderable;
  private readonly thinking: TextRenderable;
  private readonly tail: MarkdownRenderable;
  private readonly tools: TextRenderable;
  private lastTail = "";
  private lastThinking = "";
  private lastTools: unknown = null;

  constructor(renderer: CliRenderer, syntaxStyle: SyntaxStyle) {
    this.box = new BoxRenderable(renderer, { id: "live", flexDirection: "column", width: "100%", flexShrink: 0 });
    this.thinking = new TextRenderable(renderer, { content: "", width: "100%", visible: false, fg: colors.dim });
    this.tail = new MarkdownRenderable(renderer, { content: "", syntaxStyle, streaming: true, width: "100%", visible: false });
    this.tools = new TextRenderable(renderer, { content: "", width: "100%", visible: false });
    this.box.add(this.thinking);
    this.box.add(this.tail);
    this.box.add(this.tools);
  }

  /** Height in rows of what is live now (used by inline mode to size the footer). */
  get lineEstimate(): number {
    const t = this.lastTail ? this.lastTail.split("\n").length : 0;
    const th = this.lastThinking ? Math.min(6, this.lastThinking.split("\n").length) : 0;
    return t + th + (this.tools.visible ? 4 : 0);
  }

  sync(state: ViewState, flags: RenderFlags): void {
    const { live } = state;
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
      this.tail.visible = live.tail.length > 0;
      this.tail.content = live.tail;
    }
    if (live.tools !== this.lastTools) {
      this.lastTools = live.tools;
      this.tools.visible = live.tools !== null;
      if (live.tools) this.tools.content = new StyledText(trimFinalNewline(toolChunks(live.tools.calls, { ...flags, mode: "full" }, state.labels[live.tools.batchId])));
    }
  }
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
