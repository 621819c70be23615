/** `/theme light|dark|auto`: switches the palette and redraws; `/theme` alone says which is in use. */
import { t } from "../../i18n/i18n.ts";
import { applyTheme, currentPalette } from "./theme.ts";
import { detectedAtStart } from "./theme-detect.ts";
import type { CliRenderer } from "@opentui/core";
import type { TuiInternals } from "./tui-internals.ts";

export function runThemeCommand(app: TuiInternals, args: string): { text: string; level: "info" | "warn" } {
  const arg = args.trim().toLowerCase();
  if (arg && arg !== "light" && arg !== "dark" && arg !== "auto") return { text: t("theme.usage"), level: "warn" };
  if (!arg) return { text: t("theme.set", { theme: currentPalette(), detected: "" }), level: "info" };
  const detected = arg === "auto" ? detectedAtStart() : undefined;
  const palette = applyTheme(detected ? detected.theme : (arg as "light" | "dark"));
  app.restyle();
  const bg = detected && detected.source !== "default" ? t("theme.detected", { bg: detected.theme }) : "";
  return { text: t("theme.set", { theme: palette, detected: bg }), level: "info" };
}

/**
 * With `auto`, a terminal that reports a change of its background (OpenTUI's `theme_mode` event: a late OSC 11
 * answer, or a light/dark switch the terminal announces) changes the palette too. Returns the unsubscribe.
 */
export function followTerminalTheme(renderer: CliRenderer, setting: "light" | "dark" | "auto", app: Pick<TuiInternals, "restyle">): () => void {
  if (setting !== "auto") return () => undefined;
  const listener = (mode: string) => {
    if (mode !== "light" && mode !== "dark") return;
    const before = currentPalette();
    if (applyTheme(mode) !== before) app.restyle();
  };
  renderer.on("theme_mode", listener);
  return () => renderer.off("theme_mode", listener);
}
