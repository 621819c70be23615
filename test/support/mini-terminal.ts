/**
 * Just enough of a terminal to check what a renderer wrote: cursor moves (CUP), text (wide characters take two
 * cells), scroll regions (DECSTBM), index / reverse index (ESC D / ESC M) and CSI S / T inside them. Colours,
 * modes and OSC strings are parsed and ignored. `rows()` is the screen as text, one string per row.
 */
export class MiniTerminal {
  private cells: string[][];
  private x = 0;
  private y = 0;
  private top = 0;
  private bottom: number;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.cells = Array.from({ length: height }, () => this.blankRow());
    this.bottom = height - 1;
  }

  write(text: string): void {
    let i = 0;
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === "\x1b") {
        i = this.escape(text, i);
        continue;
      }
      if (ch === "\r") {
        this.x = 0;
        i++;
        continue;
      }
      if (ch === "\n") {
        this.index();
        i++;
        continue;
      }
      const seg = segmenter.segment(text.slice(i, i + 16))[Symbol.iterator]().next().value!.segment;
      this.put(seg);
      i += seg.length;
    }
  }

  rows(): string[] {
    return this.cells.map((r) => r.join(""));
  }

  private blankRow(): string[] {
    return Array.from({ length: this.width }, () => " ");
  }

  private put(g: string): void {
    const w = Math.max(1, Bun.stringWidth(g));
    if (this.x + w > this.width) return;
    const row = this.cells[this.y]!;
    row[this.x] = g;
    for (let k = 1; k < w; k++) row[this.x + k] = "";
    this.x += w;
  }

  private index(): void {
    if (this.y === this.bottom) this.scrollUp(1);
    else if (this.y < this.height - 1) this.y++;
  }

  private reverseIndex(): void {
    if (this.y === this.top) this.scrollDown(1);
    else if (this.y > 0) this.y--;
  }

  private scrollUp(n: number): void {
    for (let k = 0; k < n; k++) {
      this.cells.splice(this.top, 1);
      this.cells.splice(this.bottom, 0, this.blankRow());
    }
  }

  private scrollDown(n: number): void {
    for (let k = 0; k < n; k++) {
      this.cells.splice(this.bottom, 1);
      this.cells.splice(this.top, 0, this.blankRow());
    }
  }

  /** Parses the escape sequence at i; returns the index after it. */
  private escape(s: string, i: number): number {
    const next = s[i + 1];
    if (next === "D") return this.index(), i + 2;
    if (next === "M") return this.reverseIndex(), i + 2;
    if (next === "]" || next === "P" || next === "_") {
      // OSC / DCS / APC: up to BEL or ST.
      let j = i + 2;
      while (j < s.length && s[j] !== "\x07" && !(s[j] === "\x1b" && s[j + 1] === "\\")) j++;
      return s[j] === "\x07" ? j + 1 : j + 2;
    }
    if (next !== "[") return i + 2;
    let j = i + 2;
    while (j < s.length && !/[@-~]/.test(s[j]!)) j++;
    const params = s.slice(i + 2, j);
    const final = s[j]!;
    if (params.startsWith("?") || params.startsWith(">") || params.startsWith("<") || params.startsWith("=")) return j + 1;
    const nums = params.split(";").map((p) => (p === "" ? NaN : Number(p)));
    const n1 = Number.isNaN(nums[0]!) ? 1 : nums[0]!;
    switch (final) {
      case "H":
      case "f":
        this.y = Math.min(this.height - 1, (Number.isNaN(nums[0]!) ? 1 : nums[0]!) - 1);
        this.x = Math.min(this.width - 1, (Number.isNaN(nums[1] ?? NaN) ? 1 : nums[1]!) - 1);
        break;
      case "r":
        this.top = params === "" ? 0 : n1 - 1;
        this.bottom = params === "" || Number.isNaN(nums[1] ?? NaN) ? this.height - 1 : nums[1]! - 1;
        this.x = 0;
        this.y = 0;
        break;
      case "S":
        this.scrollUp(n1);
        break;
      case "T":
        this.scrollDown(n1);
        break;
      default:
        break; // SGR and the rest: no effect on the text
    }
    return j + 1;
  }
}
