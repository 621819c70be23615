/** One styled run of text for StyledText, with cached colours. */
import { RGBA, type TextChunk } from "@opentui/core";

const rgbaCache = new Map<string, RGBA>();
function color(hex: string): RGBA {
  let c = rgbaCache.get(hex);
  if (!c) {
    c = RGBA.fromHex(hex);
    rgbaCache.set(hex, c);
  }
  return c;
}

export function chunk(text: string, fgHex?: string, attributes?: number): TextChunk {
  const c: TextChunk = { __isChunk: true, text };
  if (fgHex) c.fg = color(fgHex);
  if (attributes) c.attributes = attributes;
  return c;
}
