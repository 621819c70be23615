/**
 * Moves the transcript's rows with a terminal scroll region instead of repainting them (issue 24).
 *
 * OpenTUI's encoder compares each cell of the new frame with its copy of what the terminal shows (the renderer's
 * `currentRenderBuffer`) and writes the cells that differ. When the transcript scrolls by k rows every one of its
 * cells differs, so a frame repaints the whole region (~8 KB at 160×45) although only k rows are new. This
 * post-process step runs after the frame is painted and before it is encoded: it finds the shift k that makes
 * most of the region's rows equal to rows already on screen, tells the terminal to move them (DECSTBM limited to
 * the region, then index / reverse index at its edge, then the full-screen region back), and shifts the encoder's
 * copy the same way. The encoder then writes only the rows that are really new. Correctness never depends on the
 * guess: after the move the copy is again exactly what the terminal shows (moved rows; vacated rows blank), so
 * any cell that still differs is repainted as before.
 *
 * OpenTUI 0.8.1 has no public API for this: the bytes go through the renderer's native session (`write`, the same
 * ordered queue as frames, so they land right before the frame they belong to) and the copy is changed through
 * `withBuffers`. When either is missing or refuses, nothing is moved and the frame repaints as before. A scroll
 * hint to the encoder (or a public ordered raw write) in OpenTUI would make this unnecessary.
 * `CHATCLI_SCROLL_REGIONS=0` turns it off for terminals that mis-handle scroll regions; TERM=dumb never uses it.
 */
import type { CliRenderer, OptimizedBuffer } from "@opentui/core";

/** Screen rows [top, top + height) move as a block; columns [left, left + width) are compared to find the shift. */
export interface ScrollRegionRect {
  top: number;
  height: number;
  left: number;
  width: number;
  /** Changes whenever the region's content may have (text, scrolling); a frame with the same version is skipped. */
  version?: string;
}

/** A buffer's planes, read once per frame (OpenTUI's accessors check their scope on every read). */
interface Planes {
  width: number;
  height: number;
  char: Uint32Array;
  fg: Uint16Array;
  bg: Uint16Array;
  attributes: Uint32Array;
}

function planes(p: Planes): Planes {
  return { width: p.width, height: p.height, char: p.char, fg: p.fg, bg: p.bg, attributes: p.attributes };
}

interface RawWriter {
  write(bytes: Uint8Array): boolean;
}

/** Matching rows a move must gain over not moving, so a near-static screen is never shuffled for nothing. */
const MIN_GAIN = 2;
/** Blank cells in a row shorter than this are rewritten rather than skipped (see shiftRows). */
const BLANK_RUN = 12;
/** Unchanged cells between changed ones that are rewritten rather than skipped (see fillGaps). */
const MAX_GAP = 16;
/** A cell's char >>> 30 for the second (or later) cell of a wide grapheme (OpenTUI's grapheme + continuation bits). */
const WIDE_TAIL = 3;
/** Cells of the encoder's copy that can equal no drawn cell: the renderer's own "never drawn" value. */
const NEVER_DRAWN = 0x0a00;

export function scrollRegionsEnabled(env: Record<string, string | undefined> = process.env): boolean {
  const v = env.CHATCLI_SCROLL_REGIONS?.trim().toLowerCase();
  if (v === "0" || v === "false" || v === "off" || v === "no") return false;
  const term = env.TERM ?? "";
  return term !== "" && term !== "dumb";
}

export class ScrollRegionMover {
  /** Moves done and rows they saved from a repaint (for logs and benches). */
  moves = 0;
  rowsMoved = 0;
  gapsFilled = 0;
  private readonly enc = new TextEncoder();
  /** The region's row hashes of the last frame, which the encoder's copy holds now. */
  private prev: { key: string; hashes: number[] } | null = null;
  private seen = "";
  private readonly fn = (next: OptimizedBuffer): void => this.onFrame(next);

  constructor(
    private readonly renderer: CliRenderer,
    private readonly region: () => ScrollRegionRect | null,
    private readonly out: RawWriter | null = nativeWriter(renderer),
  ) {}

  install(): void {
    if (this.out) this.renderer.addPostProcessFn(this.fn);
  }

  dispose(): void {
    this.renderer.removePostProcessFn(this.fn);
  }

  private onFrame(next: OptimizedBuffer): void {
    const rect = this.region();
    if (!rect) return;
    // Most frames change only the status line or the prompt (spinner, key echo): nothing to move or merge.
    const seen = `${rect.version ?? Math.random()}:${rect.top}:${rect.height}:${rect.left}:${rect.width}:${this.renderer.width}x${this.renderer.height}`;
    if (seen === this.seen) return;
    this.seen = seen;
    try {
      const n = planes(next.buffers as Planes);
      this.renderer.currentRenderBuffer.withBuffers((c) => this.apply(rect, n, planes(c)));
    } catch {
      // A buffer that cannot be borrowed now (resize, suspend): this frame repaints as usual.
      this.prev = null;
    }
  }

  private apply(rect: ScrollRegionRect, n: Planes, c: Planes): void {
    if (n.width !== c.width || n.height !== c.height) {
      this.prev = null;
      return;
    }
    this.move(rect, n, c);
    this.gapsFilled += fillGaps(n, c);
  }

  private move(rect: ScrollRegionRect, n: Planes, c: Planes): void {
    const top = Math.max(0, rect.top);
    const bottom = Math.min(n.height, rect.top + rect.height);
    const h = bottom - top;
    const left = Math.max(0, rect.left);
    const right = Math.min(n.width, rect.left + rect.width);
    const key = `${n.width}x${n.height}:${top}-${bottom}:${left}-${right}`;
    if (h < 4 || right <= left) {
      this.prev = null;
      return;
    }
    const hn = new Array<number>(h);
    const blank = new Array<boolean>(h);
    for (let r = 0; r < h; r++) {
      hn[r] = rowHash(n, top + r, left, right);
      blank[r] = isBlankRow(n, top + r, left, right);
    }
    // After a frame the encoder's copy is that frame, so last frame's hashes are the copy's (no second pass).
    const hc = this.prev?.key === key ? this.prev.hashes : Array.from({ length: h }, (_, r) => rowHash(c, top + r, left, right));
    this.prev = { key, hashes: hn };
    const best = bestShift(hn, hc, blank);
    if (best === 0) return;
    if (!this.write(top, bottom, best)) return;
    shiftRows(c, n, top, bottom, best);
    this.moves++;
    this.rowsMoved += h - Math.abs(best);
  }

  /** DECSTBM to the region, index at its bottom (or reverse index at its top) |k| times, full screen again. */
  private write(top: number, bottom: number, k: number): boolean {
    const edge = k > 0 ? `\x1b[${bottom};1H${"\x1bD".repeat(k)}` : `\x1b[${top + 1};1H${"\x1bM".repeat(-k)}`;
    // Cursor hidden (the frame shows it again where it belongs) and SGR reset: the rows a move opens take the
    // current background.
    const seq = `\x1b[?25l\x1b[0m\x1b[${top + 1};${bottom}r${edge}\x1b[r`;
    try {
      return this.out?.write(this.enc.encode(seq)) ?? false;
    } catch {
      return false;
    }
  }
}

/**
 * The renderer's ordered native output (frames, controls and this share one queue). Not public in OpenTUI 0.8.1:
 * looked up at run time, and null (no moves) when it is not there.
 */
function nativeWriter(renderer: CliRenderer): RawWriter | null {
  const session: unknown = Reflect.get(renderer, "nativeSession");
  if (typeof session !== "object" || session === null) return null;
  const write: unknown = Reflect.get(session, "write");
  if (typeof write !== "function") return null;
  return { write: (bytes) => Boolean(Reflect.apply(write, session, [bytes])) };
}

/**
 * The shift k (rows the content moved up; negative: down) that puts the most non-blank rows of the new frame
 * where the terminal already has them, if it beats not moving by MIN_GAIN rows; else 0.
 */
function bestShift(hn: number[], hc: number[], blank: boolean[]): number {
  const h = hn.length;
  const matches = (k: number): number => {
    let m = 0;
    for (let r = Math.max(0, -k); r < Math.min(h, h - k); r++) if (!blank[r] && hn[r] === hc[r + k]) m++;
    return m;
  };
  const still = matches(0);
  if (still === h) return 0;
  let best = 0;
  let bestGain = MIN_GAIN - 1;
  const consider = (k: number) => {
    const gain = matches(k) - still;
    if (gain > bestGain) {
      bestGain = gain;
      best = k;
    }
  };
  for (let k = 1; k < h; k++) {
    consider(k);
    consider(-k);
  }
  return best;
}

function rowHash(p: Planes, y: number, from: number, to: number): number {
  const { char, attributes, fg, bg } = p;
  let h = 0x811c9dc5;
  for (let i = y * p.width + from, end = y * p.width + to; i < end; i++) {
    const j = i * 4;
    h = Math.imul(h ^ char[i]!, 16777619);
    h = Math.imul(h ^ attributes[i]!, 16777619);
    h = Math.imul(h ^ (fg[j]! | (fg[j + 1]! << 16)), 16777619);
    h = Math.imul(h ^ (fg[j + 2]! | (fg[j + 3]! << 16)), 16777619);
    h = Math.imul(h ^ (bg[j]! | (bg[j + 1]! << 16)), 16777619);
    h = Math.imul(h ^ (bg[j + 2]! | (bg[j + 3]! << 16)), 16777619);
  }
  return h >>> 0;
}

/** A cell the terminal shows as an empty default-background cell: a space (or nothing), no attributes, no bg. */
function isBlankCell(p: Planes, i: number): boolean {
  const ch = p.char[i]!;
  return (ch === 0x20 || ch === 0) && p.attributes[i] === 0 && p.bg[i * 4 + 3] === 0;
}

function isBlankRow(p: Planes, y: number, from: number, to: number): boolean {
  for (let x = from; x < to; x++) if (!isBlankCell(p, y * p.width + x)) return false;
  return true;
}

/**
 * Shifts the encoder's copy `c` of rows [top, bottom) by k as the terminal just did. Vacated rows are blank on
 * screen: a long blank run the new frame `n` also draws blank takes its value (nothing to write); any other cell
 * is marked never drawn, so the encoder writes it.
 */
function shiftRows(c: Planes, n: Planes, top: number, bottom: number, k: number): void {
  const w = c.width;
  const move = (dst: number, src: number) => {
    c.char.copyWithin(dst * w, src * w, (src + 1) * w);
    c.attributes.copyWithin(dst * w, src * w, (src + 1) * w);
    c.fg.copyWithin(dst * w * 4, src * w * 4, (src + 1) * w * 4);
    c.bg.copyWithin(dst * w * 4, src * w * 4, (src + 1) * w * 4);
  };
  const clear = (y: number) => {
    // A blank run the new frame also leaves blank is skipped by the encoder, but it restarts its run after it
    // (cursor move + colours, ~20 bytes): a short gap (between words) is cheaper written as spaces.
    let x = 0;
    while (x < w) {
      let end = x;
      while (end < w && isBlankCell(n, y * w + end)) end++;
      // Leading and trailing blanks never sit between two runs: skipping them costs nothing.
      const keep = end - x >= BLANK_RUN || x === 0 || end === w;
      for (let i = y * w + x; i < y * w + Math.max(end, x + 1); i++) {
        if (keep) copyCell(c, n, i);
        else markChanged(c, n, i);
      }
      x = Math.max(end, x + 1);
    }
  };
  if (k > 0) {
    for (let y = top; y < bottom - k; y++) move(y, y + k);
    for (let y = bottom - k; y < bottom; y++) clear(y);
  } else {
    const d = -k;
    for (let y = bottom - 1; y >= top + d; y--) move(y, y - d);
    for (let y = top; y < top + d; y++) clear(y);
  }
}

function copyCell(c: Planes, n: Planes, i: number): void {
  c.char[i] = n.char[i]!;
  c.attributes[i] = n.attributes[i]!;
  for (let j = 0; j < 4; j++) {
    c.fg[i * 4 + j] = n.fg[i * 4 + j]!;
    c.bg[i * 4 + j] = n.bg[i * 4 + j]!;
  }
}

/** The encoder's copy at cell i can equal no drawn cell, so the encoder writes cell i. */
function markChanged(c: Planes, n: Planes, i: number): void {
  c.char[i] = n.char[i] === NEVER_DRAWN ? NEVER_DRAWN + 1 : NEVER_DRAWN;
}

function sameCell(n: Planes, c: Planes, i: number): boolean {
  if (n.char[i] !== c.char[i] || n.attributes[i] !== c.attributes[i]) return false;
  const nf = n.fg;
  const cf = c.fg;
  const nb = n.bg;
  const cb = c.bg;
  const j = i * 4;
  return nf[j] === cf[j] && nf[j + 1] === cf[j + 1] && nf[j + 2] === cf[j + 2] && nf[j + 3] === cf[j + 3] &&
    nb[j] === cb[j] && nb[j + 1] === cb[j + 1] && nb[j + 2] === cb[j + 2] && nb[j + 3] === cb[j + 3];
}

/**
 * The encoder ends its run at every unchanged cell and starts the next changed one with a cursor move and the
 * colours again (~20 bytes): a new line whose spaces happen to match the old one's costs that per word. A short
 * gap of unchanged cells between changed ones is cheaper rewritten, so it is marked changed. Never the second
 * cell of a wide character (the encoder writes those together with their first cell). Returns cells marked.
 */
function fillGaps(n: Planes, c: Planes): number {
  const w = n.width;
  let marked = 0;
  for (let y = 0; y < n.height; y++) {
    let lastChanged = -1;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (sameCell(n, c, i)) continue;
      const gap = x - lastChanged - 1;
      if (lastChanged >= 0 && gap > 0 && gap <= MAX_GAP) {
        for (let g = i - gap; g < i; g++) {
          if (n.char[g]! >>> 30 === WIDE_TAIL) continue;
          markChanged(c, n, g);
          marked++;
        }
      }
      lastChanged = x;
    }
  }
  return marked;
}
