/**
 * Colours and the syntax style shared by every TUI component. `colors` is one mutable palette that every
 * component reads when it draws: applyTheme() swaps its values (dark, light, or mono when NO_COLOR is set) and the
 * app redraws. In the mono palette every colour is DEFAULT_FG / DEFAULT_BG: the terminal's own colours (SGR 39/49),
 * so nothing coloured is ever written; ink() turns those names into OpenTUI's default-colour values.
 */
import { RGBA, SyntaxStyle, type CliRenderer } from "@opentui/core";

export type ThemeName = "dark" | "light";
export type PaletteName = ThemeName | "mono";

export const DEFAULT_FG = "default";
export const DEFAULT_BG = "default-bg";

const DARK = {
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
  keyword: "#bb9af7",
  string: "#9ece6a",
  number: "#ff9e64",
  func: "#7aa2f7",
  type: "#2ac3de",
  raw: "#e0af68",
  // Pickers and menus (OpenTUI's Select): item text, the selected item, descriptions.
  menuText: "#ffffff",
  selText: "#ffff00",
  selBg: "#334455",
  desc: "#888888",
  selDesc: "#cccccc",
};
type Palette = { -readonly [K in keyof typeof DARK]: string };

const LIGHT: Palette = {
  text: "#1f2328",
  dim: "#57606a",
  accent: "#0550ae",
  user: "#116329",
  warn: "#7d4e00",
  error: "#a40e26",
  tool: "#6639ba",
  border: "#8c959f",
  code: "#24292f",
  heading: "#0a3069",
  bg: "#f6f8fa",
  keyword: "#8250df",
  string: "#0a3069",
  number: "#953800",
  func: "#6639ba",
  type: "#0550ae",
  raw: "#7d4e00",
  menuText: "#1f2328",
  selText: "#ffffff",
  selBg: "#0550ae",
  desc: "#57606a",
  selDesc: "#eaeef2",
};

const MONO: Palette = Object.fromEntries(Object.keys(DARK).map((k) => [k, k === "bg" ? DEFAULT_BG : DEFAULT_FG])) as Palette;

const PALETTES: Record<PaletteName, Palette> = { dark: { ...DARK }, light: LIGHT, mono: MONO };

export const colors: Palette = { ...DARK };
let current: PaletteName = "dark";

/** NO_COLOR (any non-empty value, https://no-color.org) wins over every theme. */
export function noColor(env: Record<string, string | undefined> = process.env): boolean {
  return (env.NO_COLOR ?? "") !== "";
}

/** Switches the palette every component reads; returns what is in use (mono under NO_COLOR). */
export function applyTheme(theme: ThemeName, env: Record<string, string | undefined> = process.env): PaletteName {
  current = noColor(env) ? "mono" : theme;
  Object.assign(colors, PALETTES[current]);
  return current;
}

export function currentPalette(): PaletteName {
  return current;
}

/** A palette value as OpenTUI takes it: the terminal's default colours for the mono names. */
export function ink(c: string): string | RGBA {
  if (c === DEFAULT_FG) return RGBA.defaultForeground();
  if (c === DEFAULT_BG) return RGBA.defaultBackground();
  return c;
}

/** What a picker or menu is painted with (construction and every open, so /theme reaches it). */
export interface Paintable {
  backgroundColor: string | RGBA | undefined;
}
export interface PaintableSelect extends Paintable {
  focusedBackgroundColor: string | RGBA | undefined;
  textColor: string | RGBA | undefined;
  focusedTextColor: string | RGBA | undefined;
  selectedBackgroundColor: string | RGBA | undefined;
  selectedTextColor: string | RGBA | undefined;
  descriptionColor: string | RGBA | undefined;
  selectedDescriptionColor: string | RGBA | undefined;
}

export function selectColors(): { [K in keyof PaintableSelect]: string | RGBA } {
  return {
    backgroundColor: ink(colors.bg),
    focusedBackgroundColor: ink(colors.bg),
    textColor: ink(colors.menuText),
    focusedTextColor: ink(colors.menuText),
    selectedBackgroundColor: ink(colors.selBg),
    selectedTextColor: ink(colors.selText),
    descriptionColor: ink(colors.desc),
    selectedDescriptionColor: ink(colors.selDesc),
  };
}

export function paintSelect(select: PaintableSelect): void {
  Object.assign(select, selectColors());
}

export const rgba = (hex: string): RGBA => (hex === DEFAULT_FG ? RGBA.defaultForeground() : hex === DEFAULT_BG ? RGBA.defaultBackground() : RGBA.fromHex(hex));

export function createSyntaxStyle(renderer: CliRenderer): SyntaxStyle {
  const heading = { fg: rgba(colors.heading), bold: true };
  return SyntaxStyle.fromStyles(
    {
      default: { fg: rgba(colors.text) },
      keyword: { fg: rgba(colors.keyword), bold: true },
      string: { fg: rgba(colors.string) },
      comment: { fg: rgba(colors.dim), italic: true },
      number: { fg: rgba(colors.number) },
      function: { fg: rgba(colors.func) },
      type: { fg: rgba(colors.type) },
      "markup.heading.1": { ...heading, underline: true },
      "markup.heading.2": heading,
      "markup.heading.3": heading,
      "markup.heading.4": heading,
      "markup.heading.5": heading,
      "markup.heading.6": heading,
      "markup.strong": { bold: true },
      "markup.italic": { italic: true },
      "markup.raw": { fg: rgba(colors.raw) },
      "markup.list": { fg: rgba(colors.accent) },
      "markup.link.url": { fg: rgba(colors.accent), underline: true },
      "markup.link.label": { fg: rgba(colors.accent) },
      "markup.link": { fg: rgba(colors.accent) },
      conceal: { fg: rgba(colors.dim) },
    },
    renderer.nativeScene,
  );
}
