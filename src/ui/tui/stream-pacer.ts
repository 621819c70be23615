/**
 * How often the transcript may be redrawn while text streams in (issue 24). Up to READ_CPS characters a second
 * (a fast model, already more than anyone reads) every frame may draw it. Faster than that nobody reads the text
 * as it passes, and every redraw costs terminal bytes (over SSH, a slow link, a web terminal): the gap between
 * transcript redraws grows with the rate, up to MAX_GAP_MS. The prompt, the status line and key echo are not
 * paced (the caller syncs them every frame), and the end of a stream is drawn at once (the caller forces a redraw
 * for anything but streamed text). Lines that scroll past between two redraws are never drawn: the renderer only
 * paints what is in the viewport, and everything stays in the transcript for scrolling back.
 * Pure: the caller passes the clock.
 */
export const READ_CPS = 800;
export const MAX_GAP_MS = 333;
const WINDOW_MS = 500;

export class StreamPacer {
  private arrivals: { at: number; chars: number }[] = [];
  private inWindow = 0;
  private lastDraw = -Infinity;

  /** `frameMs`: the renderer's frame time; below READ_CPS no redraw waits longer than the frame coalescing does. */
  constructor(private readonly frameMs: number) {}

  /** Streamed text arrived. */
  arrived(chars: number, now: number): void {
    if (chars <= 0) return;
    const last = this.arrivals[this.arrivals.length - 1];
    if (last?.at === now) last.chars += chars;
    else this.arrivals.push({ at: now, chars });
    this.inWindow += chars;
    this.prune(now);
  }

  /** Characters a second over the last half second. */
  rate(now: number): number {
    this.prune(now);
    return (this.inWindow * 1000) / WINDOW_MS;
  }

  /** The least time between two transcript redraws at the current rate (0: no pacing). */
  gapMs(now: number): number {
    const rate = this.rate(now);
    if (rate <= READ_CPS) return 0;
    return Math.min(MAX_GAP_MS, (this.frameMs * rate) / READ_CPS);
  }

  /** How long the transcript must still wait before its next redraw (0: draw now). */
  waitMs(now: number): number {
    return Math.max(0, this.lastDraw + this.gapMs(now) - now);
  }

  drawn(now: number): void {
    this.lastDraw = now;
  }

  private prune(now: number): void {
    let i = 0;
    while (i < this.arrivals.length && this.arrivals[i]!.at <= now - WINDOW_MS) this.inWindow -= this.arrivals[i++]!.chars;
    if (i) this.arrivals.splice(0, i);
  }
}
