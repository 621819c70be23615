/**
 * Inline (split-footer) mode: commits finished transcript items to the terminal's native scrollback, in order.
 * Markdown goes through a scrollback surface (settle() waits for code highlighting); the rest is styled text.
 * Commits are chained so an async markdown commit never lets a later item overtake it.
 */
import { MarkdownRenderable, StyledText, TextRenderable, type CliRenderer, type SyntaxStyle } from "@opentui/core";
import type { TranscriptItem } from "./view-model.ts";
import { itemChunks, type RenderFlags } from "./item-chunks.ts";

export class ScrollbackCommitter {
  private chain: Promise<void> = Promise.resolve();
  private rendered = 0;
  private epoch = 0;

  constructor(
    private readonly renderer: CliRenderer,
    private readonly syntaxStyle: SyntaxStyle,
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
    if (item.kind === "markdown") {
      const s = this.renderer.createScrollbackSurface({ startOnNewLine: true });
      try {
        s.root.add(new MarkdownRenderable(s.renderContext, { content: item.text, syntaxStyle: this.syntaxStyle, width: "100%" }));
        await s.settle();
        if (!s.isDestroyed && s.height > 0) s.commitRows(0, s.height, { trailingNewline: true });
      } finally {
        if (!s.isDestroyed) s.destroy();
      }
      this.blank();
      return;
    }
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
