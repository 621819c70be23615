/** The prompt's completion popup: which completions to offer, how the list is drawn, and its keys. */
import type { KeyEvent, TextChunk } from "@opentui/core";
import { complete, type CompletionResult, type SlashCommand } from "./completion.ts";
import { chunk } from "./item-chunks.ts";
import { colors } from "./theme.ts";
import type { TuiInternals } from "./tui-internals.ts";

/** The completions for `text`, or null (also when the one completion is what is already typed). */
export function completionFor(text: string, commands: readonly SlashCommand[], files: () => readonly string[]): CompletionResult | null {
  const c = complete(text, commands, files);
  return c && !(c.items.length === 1 && c.items[0]!.insert === text.slice(c.start)) ? c : null;
}

/** At most 8 rows around the selected one. */
export function completionChunks(c: CompletionResult, index: number): TextChunk[] {
  const max = 8;
  const start = Math.max(0, Math.min(index - max + 1, c.items.length - max));
  return c.items.slice(start, start + max).flatMap((it, i) => {
    const sel = start + i === index;
    return [
      chunk((sel ? "▶ " : "  ") + it.label, sel ? colors.accent : colors.text),
      chunk(it.description ? `  ${it.description}\n` : "\n", colors.dim),
    ];
  });
}

/** Up/Down move, Tab/Enter accept; false when the key is not the popup's. */
export function completionKey(app: TuiInternals, k: KeyEvent): boolean {
  const c = app.input.completion!;
  if (k.name === "up" || k.name === "down") {
    const n = c.items.length;
    app.input.completionIndex = (app.input.completionIndex + (k.name === "up" ? n - 1 : 1)) % n;
    app.syncCompletion();
    return true;
  }
  if (k.name === "tab" || (k.name === "return" && !k.shift && !k.meta)) {
    const item = c.items[app.input.completionIndex];
    if (!item) return false;
    const text = app.prompt.plainText;
    const next = text.slice(0, c.start) + item.insert + (item.insert.startsWith("@") ? " " : "");
    app.input.completion = null;
    app.syncCompletion();
    if (k.name === "return" && item.insert.startsWith("/")) {
      app.setPrompt(next);
      app.onSubmit();
    } else app.setPrompt(item.insert.startsWith("/") ? next + " " : next);
    return true;
  }
  return false;
}
