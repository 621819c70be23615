/**
 * Inline (split-footer) mode: commits finished transcript items to the terminal's native scrollback, in order.
 * Every item, markdown included, is styled text rendered once (markdown-text.ts: the same look as the live tail
 * and the full-screen pages; no per-block MarkdownRenderable surface). Commits stay chained (the replay reset
 * after a rewind is queued with them) so nothing overtakes an earlier item.
 */
import { StyledText, TextRenderable, type CliRenderer, type SyntaxStyle } from "@opentui/core";
import type { TranscriptItem } from "./view-model.ts";
import { itemChunks, type RenderFlags } from "./item-chunks.ts";

export class ScrollbackCommitter {
  private chain: Promise<void> = Promise.resolve();
  private rendered = 0;
  private epoch = 0;

  constructor(
    private readonly renderer: CliRenderer,
    _syntaxStyle: SyntaxStyle,
    private readonly log: (msg: string) => void,
  ) {}

  /** Resolves when every commit queued so far reached the scrollback. */
  get idle(): Promise<void> {
    return this.chain;
  }

  sync(items: readonly TranscriptItem[], epoch: number, flags: RenderFlags): void {
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

  private enqueue(job: () => Promise<void> | void): void {
    this.chain = this.chain.then(job).catch((e: unknown) => this.log(`scrollback commit failed: ${String(e)}`));
  }

  private async commit(item: TranscriptItem, flags: RenderFlags): Promise<void> {
    if (this.renderer.isDestroyed) return;
    const chunks = itemChunks(item, flags);
    if (!chunks.length) return;
    this.renderer.writeToScrollback((ctx) => ({
      root: new TextRenderable(ctx.renderContext, { content: new StyledText(chunks), width: ctx.width }),
      startOnNewLine: true,
      trailingNewline: true,
    }));
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
