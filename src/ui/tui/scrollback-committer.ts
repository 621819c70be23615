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
 * The cost: shell lines from before chatcli started leave the scrollback at the first resize.
 */
import { StyledText, TextRenderable, type CliRenderer, type SyntaxStyle, type TextChunk } from "@opentui/core";
import type { TranscriptItem } from "./view-model.ts";
import { itemChunks, type RenderFlags } from "./item-chunks.ts";

/** How long a size must hold before the scrollback is replayed at it (a window drag sends many sizes). */
export const RESIZE_SETTLE_MS = 120;

export class ScrollbackCommitter {
  private chain: Promise<void> = Promise.resolve();
  private rendered = 0;
  private epoch = 0;
  private items: readonly TranscriptItem[] = [];
  private flags: RenderFlags | null = null;
  private resizeTimer: ReturnType<CliRenderer["clock"]["setTimeout"]> | null = null;
  private replayedAt: string;
  private disposed = false;

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
    this.log(`inline resize to ${size}: replaying ${this.rendered} item(s)`);
    this.enqueue(async () => this.renderer.resetSplitFooterForReplay({ clearSavedLines: true }));
    const flags = this.flags;
    if (!flags) return;
    for (const item of this.items.slice(0, this.rendered)) this.enqueue(() => this.commit(item, flags));
  }

  private enqueue(job: () => Promise<void> | void): void {
    this.chain = this.chain.then(job).catch((e: unknown) => this.log(`scrollback commit failed: ${String(e)}`));
  }

  private commit(item: TranscriptItem, flags: RenderFlags): void {
    if (this.renderer.isDestroyed) return;
    const chunks = withoutFinalNewline(itemChunks(item, flags));
    if (!chunks.length) return;
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

function withoutFinalNewline(chunks: TextChunk[]): TextChunk[] {
  const last = chunks[chunks.length - 1];
  if (!last?.text.endsWith("\n")) return chunks;
  const out = chunks.slice(0, -1);
  if (last.text.length > 1) out.push({ ...last, text: last.text.slice(0, -1) });
  return out;
}
