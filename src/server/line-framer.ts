/**
 * Newline-delimited framing for `serve --stdio`: a frame ends at byte 0x0A and nowhere else. U+2028/U+2029 (and
 * a lone \r) are ordinary characters inside a frame: splitting on them (as a JS `split(/\r?\n|\u2028/)` or a
 * readline would) cuts a JSON string in half. Works on bytes: 0x0A never occurs inside a UTF-8 sequence.
 * A frame longer than `maxBytes` is reported once as `oversize` and skipped up to its newline (never buffered).
 */
export type Frame = { kind: "line"; text: string } | { kind: "oversize"; bytes: number };

export class LineFramer {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Inside an oversize frame: drop bytes until the next newline. */
  private skipping = false;
  private readonly decoder = new TextDecoder("utf-8");

  constructor(
    private readonly maxBytes: number,
    private readonly onFrame: (f: Frame) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.endFrame();
      start = nl + 1;
    }
  }

  /** End of input: a last frame without its newline still counts. */
  end(): void {
    if (this.size > 0 || this.skipping) this.endFrame();
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.size += bytes.length;
    if (this.skipping) return;
    if (this.size > this.maxBytes) {
      this.skipping = true;
      this.parts = [];
      return;
    }
    this.parts.push(bytes.slice());
  }

  private endFrame(): void {
    const size = this.size;
    const parts = this.parts;
    const skipped = this.skipping;
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    if (skipped) return this.onFrame({ kind: "oversize", bytes: size });
    const joined = parts.length === 1 ? parts[0]! : concat(parts, size);
    const text = this.decoder.decode(joined);
    if (text.trim() === "") return; // blank lines between frames are allowed
    this.onFrame({ kind: "line", text });
  }
}

/** One outbound frame: JSON with U+2028/U+2029 escaped too, so even a client that splits on them reads it whole. */
export function encodeFrame(message: unknown): string {
  return `${JSON.stringify(message).replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))}\n`;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
