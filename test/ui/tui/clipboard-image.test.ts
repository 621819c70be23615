// Ctrl+V with an image in the clipboard: a real `wl-paste` / `xclip` stand-in on PATH (a shell script serving a
// PNG) is run by chatcli; the image is saved and named in the prompt as `@path`, ready to attach.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setLang } from "../../../src/i18n/i18n.ts";
import { pasteClipboardImage } from "../../../src/ui/tui/clipboard-image.ts";
import { makePng } from "../../support/png.ts";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-clip-");
const saved = { ...process.env };
let bin = "";

beforeEach(() => {
  bin = join(tui.dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(tui.dir, "clip.png"), makePng(12, 8));
}, 20_000);
afterEach(() => {
  for (const k of ["PATH", "WAYLAND_DISPLAY", "DISPLAY", "TMPDIR"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
}, 20_000);

function tool(name: string, script: string) {
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, name), 0o755);
}

const wlPaste = () =>
  tool("wl-paste", `case "$1" in --list-types) printf 'text/plain\\nimage/png\\n';; *) [ "$2" = "--type" ] && [ "$3" = "image/png" ] && cat '${join(tui.dir, "clip.png")}';; esac`);

test("wl-paste (Wayland): the PNG is saved and its path returned", async () => {
  wlPaste();
  const r = await pasteClipboardImage({ PATH: `${bin}:/usr/bin:/bin`, WAYLAND_DISPLAY: "wayland-0", TMPDIR: tui.dir }, "linux");
  expect(r.ok).toBe(true);
  if (!r.ok) return;
  expect(r.path.endsWith(".png")).toBe(true);
  expect(readFileSync(r.path)).toEqual(readFileSync(join(tui.dir, "clip.png")));
}, 20_000);

test("xclip (X11) when the clipboard offers an image; a text-only clipboard or no tool says so", async () => {
  tool("xclip", `case "$*" in *TARGETS*) printf 'TARGETS\\nimage/jpeg\\n';; *image/jpeg*) cat '${join(tui.dir, "clip.png")}';; esac`);
  const r = await pasteClipboardImage({ PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ":0", TMPDIR: tui.dir }, "linux");
  expect(r.ok && r.path.endsWith(".jpg")).toBe(true);
  tool("xclip", `printf 'TARGETS\\nUTF8_STRING\\n'`);
  const none = await pasteClipboardImage({ PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ":0", TMPDIR: tui.dir }, "linux");
  expect(none).toEqual({ ok: false, message: "No image in the clipboard (looked with xclip)." });
  const noTool = await pasteClipboardImage({ PATH: join(tui.dir, "empty"), DISPLAY: ":0" }, "linux");
  expect(noTool.ok).toBe(false);
  if (!noTool.ok) expect(noTool.message).toContain("wl-paste");
}, 20_000);

test("Ctrl+V in the TUI puts `@<saved image>` into the prompt", async () => {
  setLang("en");
  wlPaste();
  process.env.PATH = `${bin}:${saved.PATH ?? ""}`;
  process.env.WAYLAND_DISPLAY = "wayland-0";
  process.env.TMPDIR = tui.dir;
  const session = new FakeSession();
  const { setup, app } = await tui.start({ session }, { width: 120 });
  await setup.mockInput.typeText("what is this");
  setup.mockInput.pressKey("v", { ctrl: true });
  const f = await tui.frame((x) => x.includes("Clipboard image attached"));
  expect(f).toContain("Clipboard image attached");
  const m = /@(\S+\.png)/.exec(app.prompt.plainText);
  expect(app.prompt.plainText.startsWith("what is this @")).toBe(true);
  expect(m && existsSync(m[1]!)).toBe(true);
}, 20_000);
