/**
 * Inline (split-footer) mode: commits finished transcript items to the terminal's native scrollback, in order.
 * Every item, markdown included, is styled text rendered once (markdown-text.ts: the same look as the live tail
 * and the full-screen pages; no per-block MarkdownRenderable surface). Commits stay chained (the replay reset
 * after a rewind is queued with them) so nothing overtakes an earlier item.
 */
import { StyledText, TextRenderable, type CliRenderer, type SyntaxStyle, type TextChunk } from "@opentui/core";
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
