/**
 * Inline (split-footer) mode: commits finished transcript items to the terminal's native scrollback, in order.
 * Every item, markdown included, is styled text rendered once (markdown-text.ts: the same look as the live tail
 * and the full-screen pages; no per-block MarkdownRenderable surface). Commits stay chained (the replay reset
 * after a rewind is queued with them) so nothing overtakes an earlier item.
 *
 * Resizes: the terminal reflows what is already on screen (tmux, xterm, …), so a narrower width wraps the full-width
 * footer rows into the native scrollback and a wider one leaves old footer rows under the new footer; neither can
 * be taken back row by row. After a size change settles (RESIZE_SETTLE_MS without another one) the committer clears
 * the screen and the saved lines and replays every committed item at the new width (the same reset a rewind uses).
 * The cost: shell lines from before chatcli started leave the scrollback at the first resize. A replay writes the
 * newest items that fit REPLAY_MAX_ROWS (terminals keep a bounded history anyway; one line says how many older items
 * were left out) and yields to the event loop every REPLAY_SLICE_MS, so keys and frames go on during a long one.
 */
import { StyledText, TextRenderable, type CliRenderer, type SyntaxStyle, type TextChunk } from "@opentui/core";
import type { TranscriptItem } from "./view-model.ts";
import { itemChunks, type RenderFlags } from "./item-chunks.ts";
import { t } from "../../i18n/i18n.ts";

/** How long a size must hold before the scrollback is replayed at it (a window drag sends many sizes). */
export const RESIZE_SETTLE_MS = 120;
/** Rows a replay writes at most (tmux keeps 2,000 lines of history by default, most terminals 1,000–10,000). */
export const REPLAY_MAX_ROWS = 5000;
const REPLAY_SLICE_MS = 12;

export class ScrollbackCommitter {
  private chain: Promise<void> = Promise.resolve();
  private rendered = 0;
  private epoch = 0;
  private items: readonly TranscriptItem[] = [];
  private flags: RenderFlags | null = null;
  private resizeTimer: ReturnType<CliRenderer["clock"]["setTimeout"]> | null = null;
  private replayedAt: string;
  private disposed = false;
  /** Bumped by every reset: a replay still running for an older one stops. */
  private replayGen = 0;

  constructor(
    private readonly renderer: CliRenderer,
    _syntaxStyle: SyntaxStyle,
    private readonly log: (msg: string) => void,
  ) {
    this.replayedAt = this.size();
    renderer.on("resize", this.onResize);
  }

  /** Stops listening for resizes (the app is going away). */
  dispose(): void {
    this.disposed = true;
    this.renderer.off("resize", this.onResize);
    if (this.resizeTimer !== null) this.renderer.clock.clearTimeout(this.resizeTimer);
    this.resizeTimer = null;
  }

  /** Resolves when every commit queued so far reached the scrollback. */
  get idle(): Promise<void> {
    return this.chain;
  }

  sync(items: readonly TranscriptItem[], epoch: number, flags: RenderFlags): void {
    this.items = items;
    this.flags = { ...flags };
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.rendered = 0;
      this.replayGen++;
      this.enqueue(async () => this.renderer.resetSplitFooterForReplay({ clearSavedLines: true }));
    }
    for (let i = this.rendered; i < items.length; i++) {
      const item = items[i]!;
      const f = { ...flags };
      this.enqueue(() => this.commit(item, f));
    }
    this.rendered = items.length;
  }

  private size(): string {
    return `${this.renderer.terminalWidth}x${this.renderer.terminalHeight}`;
  }

  private onResize = (): void => {
    if (this.resizeTimer !== null) this.renderer.clock.clearTimeout(this.resizeTimer);
    this.resizeTimer = this.renderer.clock.setTimeout(() => {
      this.resizeTimer = null;
      this.replayAfterResize();
    }, RESIZE_SETTLE_MS);
  };

  private replayAfterResize(): void {
    if (this.disposed || this.renderer.isDestroyed) return;
    const size = this.size();
    if (size === this.replayedAt) return;
    this.replayedAt = size;
    const flags = this.flags;
    const items = this.items.slice(0, this.rendered);
    const gen = ++this.replayGen;
    this.log(`inline resize to ${size}: replaying ${items.length} item(s)`);
    this.enqueue(async () => this.renderer.resetSplitFooterForReplay({ clearSavedLines: true }));
    if (flags) this.enqueue(() => this.replay(items, flags, gen));
  }

  /** The newest items that fit REPLAY_MAX_ROWS at the current width, oldest first, in slices. */
  private async replay(items: readonly TranscriptItem[], flags: RenderFlags, gen: number): Promise<void> {
    const width = Math.max(1, this.renderer.terminalWidth);
    const picked: TextChunk[][] = [];
    let rows = 0;
    let first = items.length;
    while (first > 0 && rows < REPLAY_MAX_ROWS) {
      const chunks = withoutFinalNewline(itemChunks(items[first - 1]!, flags));
      rows += rowEstimate(chunks, width) + 1;
      picked.push(chunks);
      first--;
    }
    picked.reverse();
    if (first > 0) picked.unshift(itemChunks({ kind: "notice", level: "info", text: t("tui.replayTrimmed", { count: first }) }, flags));
    let sliceStart = performance.now();
    for (const chunks of picked) {
      if (gen !== this.replayGen || this.disposed) return;
      this.write(chunks);
      if (performance.now() - sliceStart < REPLAY_SLICE_MS) continue;
      await new Promise((r) => setTimeout(r, 0));
      sliceStart = performance.now();
    }
  }

  private enqueue(job: () => Promise<void> | void): void {
    this.chain = this.chain.then(job).catch((e: unknown) => this.log(`scrollback commit failed: ${String(e)}`));
  }

  private commit(item: TranscriptItem, flags: RenderFlags): void {
    this.write(withoutFinalNewline(itemChunks(item, flags)));
  }

  private write(chunks: TextChunk[]): void {
    if (this.renderer.isDestroyed || !chunks.length) return;
    this.renderer.writeToScrollback((ctx) => {
      const root = new TextRenderable(ctx.renderContext, { content: new StyledText(chunks), width: ctx.width });
      // The snapshot is one row high unless told: give it the wrapped line count (known before layout).
      return { root, height: Math.max(1, root.virtualLineCount), startOnNewLine: true, trailingNewline: true };
    });
    this.blank();
  }

  private blank(): void {
    this.renderer.writeToScrollback((ctx) => ({
      root: new TextRenderable(ctx.renderContext, { content: " ", width: ctx.width }),
      startOnNewLine: true,
      trailingNewline: true,
    }));
  }
}

/** Rows the chunks take at `width` (wrapping by characters: an estimate, enough for a budget). */
function rowEstimate(chunks: TextChunk[], width: number): number {
  let rows = 0;
  for (const line of chunks.map((c) => c.text).join("").split("\n")) rows += Math.max(1, Math.ceil(line.length / width));
  return rows;
}

function withoutFinalNewline(chunks: TextChunk[]): TextChunk[] {
  const last = chunks[chunks.length - 1];
  if (!last?.text.endsWith("\n")) return chunks;
  const out = chunks.slice(0, -1);
  if (last.text.length > 1) out.push({ ...last, text: last.text.slice(0, -1) });
  return out;
}
