// Theme: background detection (OSC 11 reply, COLORFGBG), the palettes on a real frame (light text is dark, mono
// under NO_COLOR writes only the terminal's default colours), and /theme switching.
import { afterEach, beforeEach, expect, test } from "bun:test";
import type { CapturedFrame } from "@opentui/core";
import { setLang } from "../../../src/i18n/i18n.ts";
import { applyTheme, noColor } from "../../../src/ui/tui/theme.ts";
import { detectTheme, themeFromColorFgBg, themeFromOscReply } from "../../../src/ui/tui/theme-detect.ts";
import { FakeSession, streamAnswer } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-theme-");
// The test runner sets NO_COLOR for every test; /theme and the terminal's reports read the real environment.
const savedNoColor = process.env.NO_COLOR;
beforeEach(() => {
  delete process.env.NO_COLOR;
});
afterEach(() => {
  applyTheme("dark", {});
  if (savedNoColor !== undefined) process.env.NO_COLOR = savedNoColor;
});

test("OSC 11 replies and COLORFGBG tell light from dark", () => {
  expect(themeFromOscReply("\x1b]11;rgb:ffff/ffff/ffff\x07")).toBe("light");
  expect(themeFromOscReply("\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\")).toBe("dark");
  expect(themeFromOscReply("\x1b]11;rgb:fd/f6/e3\x07")).toBe("light"); // two-digit form (solarized light)
  expect(themeFromOscReply("\x1b[?1;2c")).toBeUndefined();
  expect(themeFromColorFgBg("15;0")).toBe("dark");
  expect(themeFromColorFgBg("0;15")).toBe("light");
  expect(themeFromColorFgBg("0;default;7")).toBe("light");
  expect(themeFromColorFgBg("12;8")).toBe("dark");
  expect(themeFromColorFgBg("default")).toBeUndefined();
  expect(themeFromColorFgBg(undefined)).toBeUndefined();
}, 20_000);

test("auto: the terminal's answer first, then COLORFGBG, then dark; an explicit setting is not asked about", async () => {
  expect(await detectTheme("auto", { COLORFGBG: "15;0" }, async () => "light")).toEqual({ theme: "light", source: "osc11" });
  expect(await detectTheme("auto", { COLORFGBG: "0;15" }, async () => undefined)).toEqual({ theme: "light", source: "colorfgbg" });
  expect(await detectTheme("auto", {}, async () => undefined)).toEqual({ theme: "dark", source: "default" });
  let asked = false;
  expect(await detectTheme("light", {}, async () => ((asked = true), "dark"))).toEqual({ theme: "light", source: "setting" });
  expect(asked).toBe(false);
  expect(noColor({ NO_COLOR: "1" })).toBe(true);
  expect(noColor({ NO_COLOR: "" })).toBe(false);
}, 20_000);

function fgOf(frame: CapturedFrame, text: string): { intent: string; hex: string } | undefined {
  for (const line of frame.lines) {
    for (const s of line.spans) {
      if (s.text.includes(text)) {
        const [r, g, b] = s.fg.toInts();
        return { intent: s.fg.intent, hex: `#${[r, g, b].map((x) => x.toString(16).padStart(2, "0")).join("")}` };
      }
    }
  }
  return undefined;
}

async function answerFrame() {
  setLang("en");
  const session = new FakeSession();
  const { setup, app } = await tui.start({ session }, { width: 80 });
  session.emit({ type: "turn.started", turnId: "t1", input: "q" });
  streamAnswer(session, "m1", "Plain answer words");
  await tui.frame((f) => f.includes("Plain answer words"));
  return { setup, app };
}

test("the light palette draws answer text dark; the dark one light", async () => {
  applyTheme("light", {});
  const { setup } = await answerFrame();
  const fg = fgOf(setup.captureSpans(), "Plain answer words")!;
  expect(fg.intent).toBe("rgb");
  expect(parseInt(fg.hex.slice(1, 3), 16)).toBeLessThan(0x60);
}, 20_000);

test("NO_COLOR: every span uses the terminal's default colours (mono), whatever the theme", async () => {
  applyTheme("light", { NO_COLOR: "1" });
  const { setup } = await answerFrame();
  const frame = setup.captureSpans();
  const coloured = frame.lines.flatMap((l) => l.spans).filter((s) => s.text.trim() && ((s.fg.intent === "rgb" && s.fg.a > 0) || (s.bg.intent === "rgb" && s.bg.a > 0)));
  expect(coloured.map((s) => s.text)).toEqual([]);
  expect(fgOf(frame, "Plain answer words")!.intent).toBe("default");
}, 20_000);

test("/theme light switches the palette and redraws what is on screen; /theme with a bad value says how", async () => {
  applyTheme("dark", {});
  const { setup } = await answerFrame();
  const before = fgOf(setup.captureSpans(), "Plain answer words")!;
  await setup.mockInput.typeText("/theme light");
  setup.mockInput.pressEnter();
  await tui.frame((f) => f.includes("Theme: light"));
  const after = fgOf(setup.captureSpans(), "Plain answer words")!;
  expect(after.hex).not.toBe(before.hex);
  expect(parseInt(after.hex.slice(1, 3), 16)).toBeLessThan(0x60);
  await setup.mockInput.typeText("/theme pink");
  setup.mockInput.pressEnter();
  expect(await tui.frame((f) => f.includes("/theme light|dark|auto"))).toContain("Usage: /theme light|dark|auto");
}, 20_000);

test("light: a picker opened after /theme light draws its items dark on light, not OpenTUI's white", async () => {
  applyTheme("dark", {});
  setLang("en");
  const session = new FakeSession();
  const { setup } = await tui.start({ session, listModels: async () => [{ provider: "OLLAMA", model: "alpha-model" }, { provider: "OLLAMA", model: "beta-model" }] }, { width: 80 });
  await setup.mockInput.typeText("/theme light");
  setup.mockInput.pressEnter();
  await tui.frame((f) => f.includes("Theme: light"));
  await setup.mockInput.typeText("/model");
  setup.mockInput.pressEnter();
  await tui.frame((f) => f.includes("beta-model"));
  const item = fgOf(setup.captureSpans(), "beta-model")!;
  expect(item.hex).not.toBe("#ffffff");
  expect(parseInt(item.hex.slice(1, 3), 16)).toBeLessThan(0x60);
}, 20_000);

test("auto follows the terminal: a theme_mode report from OpenTUI switches and redraws, the live answer too", async () => {
  applyTheme("dark", {});
  const { setup } = await answerFrame();
  setup.renderer.emit("theme_mode", "light");
  const red = () => parseInt(fgOf(setup.captureSpans(), "Plain answer words")!.hex.slice(1, 3), 16);
  await tui.frame(() => red() < 0x60);
  expect(red()).toBeLessThan(0x60);
}, 20_000);

test("a fixed theme (settings ui.theme) ignores the terminal's theme reports", async () => {
  applyTheme("dark", {});
  setLang("en");
  const { setup } = await tui.start({ session: new FakeSession(), theme: "dark" }, { width: 80 });
  setup.renderer.emit("theme_mode", "light");
  const { currentPalette } = await import("../../../src/ui/tui/theme.ts");
  expect(currentPalette()).toBe("dark");
}, 20_000);
