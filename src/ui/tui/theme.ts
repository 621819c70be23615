/** Colours and the syntax style shared by every TUI component. */
import { RGBA, SyntaxStyle, type CliRenderer } from "@opentui/core";

export const colors = {
  text: "#d8d8e0",
  dim: "#80808c",
  accent: "#7aa2f7",
  user: "#9ece6a",
  warn: "#e0af68",
  error: "#f7768e",
  tool: "#bb9af7",
  border: "#4a4a5a",
  code: "#c0caf5",
  heading: "#7dcfff",
  bg: "#101018",
} as const;

export const rgba = (hex: string): RGBA => RGBA.fromHex(hex);

export function createSyntaxStyle(renderer: CliRenderer): SyntaxStyle {
  const heading = { fg: colors.heading, bold: true };
  return SyntaxStyle.fromStyles(
    {
      default: { fg: colors.text },
      keyword: { fg: "#bb9af7", bold: true },
      string: { fg: "#9ece6a" },
      comment: { fg: colors.dim, italic: true },
      number: { fg: "#ff9e64" },
      function: { fg: "#7aa2f7" },
      type: { fg: "#2ac3de" },
      "markup.heading.1": { ...heading, underline: true },
      "markup.heading.2": heading,
      "markup.heading.3": heading,
      "markup.heading.4": heading,
      "markup.heading.5": heading,
      "markup.heading.6": heading,
      "markup.strong": { bold: true },
      "markup.italic": { italic: true },
      "markup.raw": { fg: "#e0af68" },
      "markup.list": { fg: colors.accent },
      "markup.link.url": { fg: colors.accent, underline: true },
      "markup.link.label": { fg: colors.accent },
      "markup.link": { fg: colors.accent },
      conceal: { fg: colors.dim },
    },
    renderer.nativeScene,
  );
}
