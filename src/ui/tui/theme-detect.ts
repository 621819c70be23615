/**
 * Is the terminal's background light or dark? Asked once before the TUI starts (the palette is chosen before the
 * first frame): an OSC 11 query ("what is your background colour?") followed by a DA1 query that every terminal
 * answers, so a terminal that ignores OSC 11 costs one round trip, not the timeout; `timeoutMs` bounds a terminal
 * that answers neither. Without an answer, COLORFGBG (set by rxvt, Konsole and others: "fg;bg" as palette
 * indexes); without that, dark.
 */
import type { ThemeName } from "./theme.ts";

export type ThemeSetting = ThemeName | "auto";

export interface DetectedTheme {
  theme: ThemeName;
  /** Where an `auto` choice came from. */
  source: "osc11" | "colorfgbg" | "default" | "setting";
}

/** The background from COLORFGBG's last field: palette 7 and 9–15 are light, 0–6 and 8 dark. */
export function themeFromColorFgBg(value: string | undefined): ThemeName | undefined {
  const bg = value?.split(";").at(-1)?.trim();
  if (!bg || !/^\d+$/.test(bg)) return undefined;
  const n = Number(bg);
  if (n > 15) return undefined;
  return n === 7 || n >= 9 ? "light" : "dark";
}

const OSC11_RE = /\x1b\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})/i;
const DA1_RE = /\x1b\[\?[\d;]*c/;

/** The theme an OSC 11 reply (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB`) implies, by the background's luminance. */
export function themeFromOscReply(reply: string): ThemeName | undefined {
  const m = OSC11_RE.exec(reply);
  if (!m) return undefined;
  const [r, g, b] = [m[1]!, m[2]!, m[3]!].map((h) => parseInt(h, 16) / (16 ** h.length - 1));
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return luminance > 0.5 ? "light" : "dark";
}

export interface TtyStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

/** Asks the terminal (raw mode for the duration); undefined when it does not say. Never throws. */
export async function queryTerminalBackground(timeoutMs = 200, io: TtyStreams = { stdin: process.stdin, stdout: process.stdout }): Promise<ThemeName | undefined> {
  const { stdin, stdout } = io;
  if (!stdin.isTTY || !stdout.isTTY) return undefined;
  const wasRaw = stdin.isRaw;
  let got = "";
  let onData: ((d: Buffer) => void) | undefined;
  try {
    stdin.setRawMode(true);
    const answer = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      onData = (d: Buffer) => {
        got += d.toString("latin1");
        if (DA1_RE.test(got) || OSC11_RE.test(got)) {
          clearTimeout(timer);
          resolve();
        }
      };
      stdin.on("data", onData);
    });
    stdin.resume();
    stdout.write("\x1b]11;?\x1b\\\x1b[c");
    await answer;
    // An OSC 11 reply comes before the DA1 reply; give a late one a moment when only the DA1 came.
    return themeFromOscReply(got);
  } catch {
    return undefined;
  } finally {
    if (onData) stdin.off("data", onData);
    try {
      stdin.setRawMode(wasRaw);
    } catch {
      // the terminal went away
    }
    stdin.pause();
  }
}

let lastDetected: DetectedTheme | undefined;

/** The palette to start with: an explicit setting, else the terminal's answer, COLORFGBG, dark. */
export async function detectTheme(setting: ThemeSetting, env: Record<string, string | undefined>, query: () => Promise<ThemeName | undefined> = () => queryTerminalBackground()): Promise<DetectedTheme> {
  if (setting !== "auto") return { theme: setting, source: "setting" };
  const osc = (env.NO_COLOR ?? "") !== "" ? undefined : await query();
  const fgbg = themeFromColorFgBg(env.COLORFGBG);
  lastDetected = osc ? { theme: osc, source: "osc11" } : fgbg ? { theme: fgbg, source: "colorfgbg" } : { theme: "dark", source: "default" };
  return lastDetected;
}

/** What `auto` found at start (for `/theme auto` later, when the terminal can no longer be asked). */
export function detectedAtStart(env: Record<string, string | undefined> = process.env): DetectedTheme {
  return lastDetected ?? (themeFromColorFgBg(env.COLORFGBG) ? { theme: themeFromColorFgBg(env.COLORFGBG)!, source: "colorfgbg" } : { theme: "dark", source: "default" });
}
