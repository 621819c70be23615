/** One styled run of text for StyledText, with cached colours. */
import { RGBA, type TextChunk } from "@opentui/core";
import { colors } from "./theme.ts";

const rgbaCache = new Map<string, RGBA>();
function color(hex: string): RGBA {
  let c = rgbaCache.get(hex);
  if (!c) {
    // The mono palette's names (theme.ts DEFAULT_FG/DEFAULT_BG): the terminal's own colour, no SGR colour at all.
    c = hex === "default" ? RGBA.defaultForeground() : hex === "default-bg" ? RGBA.defaultBackground() : RGBA.fromHex(hex);
    rgbaCache.set(hex, c);
  }
  return c;
}

/** Without a colour, the palette's text colour (a renderable's own default is white, unreadable on light terminals). */
export function chunk(text: string, fgHex?: string, attributes?: number): TextChunk {
  const c: TextChunk = { __isChunk: true, text };
  c.fg = color(fgHex || colors.text);
  if (attributes) c.attributes = attributes;
  return c;
}
