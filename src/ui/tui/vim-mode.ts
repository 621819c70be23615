/**
 * Vim mode in the TUI: routes keys to vim-keys.ts while it is on (settings `"editor": {"vim": true}`, `/vim`) and
 * writes the result back into the prompt. Insert mode types as usual; Esc there goes to normal mode (it does not
 * interrupt); in normal mode Esc, Enter, arrows and Ctrl keys keep their usual meaning.
 */
import type { KeyEvent } from "@opentui/core";
import { t } from "../../i18n/i18n.ts";
import type { TuiInternals } from "./tui-internals.ts";
import { initialVimState, leaveInsert, normalKey } from "./vim-keys.ts";

/** True when vim mode took the key. */
export function handleVimKey(app: TuiInternals, k: KeyEvent): boolean {
  const vim = app.input.vim;
  if (!vim || k.ctrl) return false;
  const text = app.prompt.plainText;
  const buffer = { text, cursor: indexAtCells(text, app.prompt.cursorOffset) };
  // Esc and the next key close together arrive as one ESC-prefixed key (Alt+key): Esc, then the key.
  const seq = k.sequence ?? "";
  const altChar = seq.length === 2 && seq[0] === "\x1b" && seq[1]! >= " " ? seq[1] : undefined;
  if (seq === "\x1b\r" && vim.mode === "insert") {
    apply(app, leaveInsert(vim, buffer));
    vim.mode = "insert";
    app.onSubmit();
    return true;
  }
  if (altChar) {
    const r = normalKey(vim, vim.mode === "insert" ? leaveInsert(vim, buffer) : buffer, altChar);
    apply(app, r);
    return true;
  }
  if (k.meta) return false;
  if (vim.mode === "insert") {
    if (k.name !== "escape" || k.shift || app.input.completion) return false;
    apply(app, leaveInsert(vim, buffer));
    return true;
  }
  if (k.name === "return") {
    vim.mode = "insert"; // a sent prompt starts the next one in insert mode, as shells' vi mode does
    vim.pending = "";
    app.syncStatus();
    return false;
  }
  // Backspace moves left in normal mode (as in vim) instead of deleting.
  const ch = k.name === "backspace" ? "h" : k.sequence && k.sequence.length === 1 && k.sequence >= " " ? k.sequence : undefined;
  if (!ch) return false;
  const r = normalKey(vim, buffer, ch);
  apply(app, r);
  return r.handled;
}

function apply(app: TuiInternals, b: { text: string; cursor: number }): void {
  if (b.text !== app.prompt.plainText) app.prompt.setText(b.text);
  app.prompt.cursorOffset = cellsAt(b.text, b.cursor);
  app.syncStatus();
  app.renderer.requestRender();
}

/** `/vim`: on (insert mode) or off; the answer for the transcript. */
export function toggleVim(app: TuiInternals): string {
  app.input.vim = app.input.vim ? null : initialVimState("insert");
  app.syncStatus();
  return t(app.input.vim ? "vim.on" : "vim.off");
}

/** The status line's mode label, when vim mode is on. */
export function vimLabel(app: Pick<TuiInternals, "input">): string | undefined {
  const vim = app.input.vim;
  if (!vim) return undefined;
  return t(vim.mode === "normal" ? "vim.normal" : "vim.insert");
}

// The editor's cursor offset counts display cells (a CJK character is 2, a newline 1); vim-keys.ts counts UTF-16
// units. These two convert.
function charCells(ch: string): number {
  return ch === "\n" ? 1 : Bun.stringWidth(ch);
}

export function cellsAt(text: string, index: number): number {
  let cells = 0;
  for (let i = 0; i < index && i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    cells += charCells(ch);
    i += ch.length;
  }
  return cells;
}

export function indexAtCells(text: string, cells: number): number {
  let acc = 0;
  let i = 0;
  while (i < text.length && acc < cells) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    acc += charCells(ch);
    i += ch.length;
  }
  return i;
}
