import { describe, expect, test } from "bun:test";
import { encodeFrame, LineFramer, type Frame } from "../../src/server/line-framer.ts";

const enc = (s: string) => new TextEncoder().encode(s);

function frames(chunks: Uint8Array[], max = 1024): Frame[] {
  const out: Frame[] = [];
  const f = new LineFramer(max, (x) => out.push(x));
  for (const c of chunks) f.push(c);
  f.end();
  return out;
}

describe("LineFramer", () => {
  test("splits on \\n only: U+2028, U+2029 and a lone \\r stay inside the frame", () => {
    const a = JSON.stringify({ text: "a\u2028b\u2029c\rd" });
    expect(frames([enc(`${a}\n{"x":1}\n`)])).toEqual([{ kind: "line", text: a }, { kind: "line", text: '{"x":1}' }]);
  });

  test("a frame split across chunks, even inside a multi-byte character, is joined", () => {
    const bytes = enc('{"t":"é\u2028ü"}\n');
    const out = frames([bytes.subarray(0, 8), bytes.subarray(8, 9), bytes.subarray(9)]);
    expect(out).toEqual([{ kind: "line", text: '{"t":"é\u2028ü"}' }]);
  });

  test("a last frame without its newline counts at the end; blank lines are skipped", () => {
    expect(frames([enc('\n\n{"a":1}\n  \n{"b":2}')])).toEqual([{ kind: "line", text: '{"a":1}' }, { kind: "line", text: '{"b":2}' }]);
  });

  test("an oversize frame is reported once, skipped to its newline, and the next frame is read", () => {
    const big = "x".repeat(50);
    const out = frames([enc(big.slice(0, 20)), enc(`${big.slice(20)}\n{"ok":true}\n`)], 30);
    expect(out).toEqual([{ kind: "oversize", bytes: 50 }, { kind: "line", text: '{"ok":true}' }]);
  });

  test("encodeFrame escapes U+2028/U+2029 and ends with one newline", () => {
    const line = encodeFrame({ s: "a\u2028b\u2029" });
    expect(line).toBe('{"s":"a\\u2028b\\u2029"}\n');
    expect(JSON.parse(line)).toEqual({ s: "a\u2028b\u2029" });
  });
});
