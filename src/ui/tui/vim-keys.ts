/**
 * Vim keys for the prompt editor, as a pure function of (text, cursor, mode) and one key: normal and insert modes;
 * motions h j k l w b e 0 $; i a A I o O into insert mode; x, dd, cw; u (undo of the last change, an insert
 * session counting as one). Offsets are UTF-16 indexes into the prompt text. Keys it does not know in normal mode
 * are swallowed (they never type into the prompt); Ctrl combinations are left to the app's keymap.
 */

export type VimMode = "normal" | "insert";

export interface VimState {
  mode: VimMode;
  /** An operator waiting for its motion (`d`, `c`). */
  pending: string;
  undo: Array<{ text: string; cursor: number }>;
}

export interface Buffer {
  text: string;
  cursor: number;
}

export interface VimResult extends Buffer {
  /** The key was taken by vim mode (the editor must not see it). */
  handled: boolean;
}

const UNDO_LIMIT = 100;

export function initialVimState(mode: VimMode = "insert"): VimState {
  return { mode, pending: "", undo: [] };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  return nl < 0 ? text.length : nl;
}

/** The last character of the line (normal mode never sits on the newline), or the line start when empty. */
function lastCol(text: string, at: number): number {
  const s = lineStart(text, at);
  return Math.max(s, lineEnd(text, at) - 1);
}

type CharClass = 0 | 1 | 2;
function cls(ch: string | undefined): CharClass {
  if (ch === undefined || /\s/.test(ch)) return 0;
  return /\w/.test(ch) ? 1 : 2;
}

function wordForward(text: string, at: number): number {
  let i = at;
  const c = cls(text[i]);
  if (c !== 0) while (i < text.length && cls(text[i]) === c) i++;
  while (i < text.length && cls(text[i]) === 0) i++;
  return Math.min(i, Math.max(0, text.length - 1));
}

function wordBack(text: string, at: number): number {
  let i = at - 1;
  while (i > 0 && cls(text[i]) === 0) i--;
  const c = cls(text[i]);
  while (i > 0 && cls(text[i - 1]) === c && c !== 0) i--;
  return Math.max(0, i);
}

function wordEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && cls(text[i]) === 0) i++;
  const c = cls(text[i]);
  while (i + 1 < text.length && cls(text[i + 1]) === c) i++;
  return Math.min(i, Math.max(0, text.length - 1));
}

function vertical(text: string, at: number, dir: 1 | -1): number {
  const s = lineStart(text, at);
  const col = at - s;
  if (dir === -1) {
    if (s === 0) return at;
    const prevStart = lineStart(text, s - 1);
    return Math.min(prevStart + col, lastCol(text, prevStart));
  }
  const e = lineEnd(text, at);
  if (e >= text.length) return at;
  return Math.min(e + 1 + col, lastCol(text, e + 1));
}

function pushUndo(state: VimState, b: Buffer): void {
  state.undo.push({ text: b.text, cursor: b.cursor });
  if (state.undo.length > UNDO_LIMIT) state.undo.shift();
}

/** Esc in insert mode: back to normal, the cursor one left (as vim does), within the line. */
export function leaveInsert(state: VimState, b: Buffer): Buffer {
  state.mode = "normal";
  state.pending = "";
  const cursor = b.cursor > lineStart(b.text, b.cursor) ? b.cursor - 1 : b.cursor;
  return { text: b.text, cursor };
}

function enterInsert(state: VimState, b: Buffer, text: string, cursor: number): VimResult {
  pushUndo(state, b);
  state.mode = "insert";
  return { text, cursor, handled: true };
}

/** One key in normal mode (`key` is the typed character, or a name such as "escape"). */
export function normalKey(state: VimState, b: Buffer, key: string): VimResult {
  const { text, cursor } = b;
  const move = (to: number): VimResult => ({ text, cursor: to, handled: true });
  const pending = state.pending;
  state.pending = "";
  if (pending === "d") {
    if (key !== "d") return move(cursor);
    if (!text) return move(0);
    pushUndo(state, b);
    const s = lineStart(text, cursor);
    const e = lineEnd(text, cursor);
    const next = e < text.length ? text.slice(0, s) + text.slice(e + 1) : text.slice(0, Math.max(0, s - 1));
    const at = Math.min(s, next.length);
    return { text: next, cursor: e < text.length ? at : lineStart(next, at), handled: true };
  }
  if (pending === "c") {
    if (key !== "w" && key !== "e") return move(cursor);
    const c = cls(text[cursor]);
    let end = cursor;
    while (end < text.length && cls(text[end]) === c && text[end] !== "\n") end++;
    return enterInsert(state, b, text.slice(0, cursor) + text.slice(end), cursor);
  }
  switch (key) {
    case "h":
      return move(Math.max(lineStart(text, cursor), cursor - 1));
    case "l":
      return move(Math.min(lastCol(text, cursor), cursor + 1));
    case "j":
      return move(vertical(text, cursor, 1));
    case "k":
      return move(vertical(text, cursor, -1));
    case "w":
      return move(wordForward(text, cursor));
    case "b":
      return move(wordBack(text, cursor));
    case "e":
      return move(wordEnd(text, cursor));
    case "0":
      return move(lineStart(text, cursor));
    case "$":
      return move(lastCol(text, cursor));
    case "i":
      return enterInsert(state, b, text, cursor);
    case "a":
      return enterInsert(state, b, text, Math.min(lineEnd(text, cursor), cursor + (text[cursor] === undefined || text[cursor] === "\n" ? 0 : 1)));
    case "A":
      return enterInsert(state, b, text, lineEnd(text, cursor));
    case "I": {
      let i = lineStart(text, cursor);
      while (i < lineEnd(text, cursor) && /[ \t]/.test(text[i]!)) i++;
      return enterInsert(state, b, text, i);
    }
    case "o": {
      const e = lineEnd(text, cursor);
      return enterInsert(state, b, `${text.slice(0, e)}\n${text.slice(e)}`, e + 1);
    }
    case "O": {
      const s = lineStart(text, cursor);
      return enterInsert(state, b, `${text.slice(0, s)}\n${text.slice(s)}`, s);
    }
    case "x": {
      if (cursor >= text.length || text[cursor] === "\n") return move(cursor);
      pushUndo(state, b);
      const next = text.slice(0, cursor) + text.slice(cursor + 1);
      return { text: next, cursor: Math.min(cursor, lastCol(next, Math.min(cursor, next.length))), handled: true };
    }
    case "d":
    case "c":
      state.pending = key;
      return move(cursor);
    case "u": {
      const prev = state.undo.pop();
      return prev ? { text: prev.text, cursor: Math.min(prev.cursor, prev.text.length), handled: true } : move(cursor);
    }
    default:
      return move(cursor);
  }
}
