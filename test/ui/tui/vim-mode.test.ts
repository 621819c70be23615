// Vim mode in the TUI (OpenTUI test renderer): editor.vim starts it, Esc → NORMAL in the status line, motions and
// edits change the real prompt, Enter sends and comes back in INSERT, /vim toggles it, /help lists it.
import { expect, test } from "bun:test";
import type { TestRendererSetup } from "@opentui/core/testing";
import { setLang } from "../../../src/i18n/i18n.ts";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-vim-");
let setup: TestRendererSetup;
let session: FakeSession;
let app: TuiApp;

async function start(vim: boolean) {
  setLang("en");
  session = new FakeSession();
  ({ setup, app } = await tui.start({ session, ...(vim ? { vim: true } : {}) }, { width: 100 }));
}

const statusOf = (f: string) => f.trimEnd().split("\n").at(-1) ?? "";

test("editor.vim: INSERT types, Esc goes to NORMAL (shown in the status line), motions and edits work, u undoes", async () => {
  await start(true);
  expect(statusOf(await tui.frame())).toContain("INSERT");
  await setup.mockInput.typeText("hello brave world");
  setup.mockInput.pressEscape();
  expect(statusOf(await tui.frame((f) => statusOf(f).includes("NORMAL")))).toContain("NORMAL");
  expect(session.opsOf("interrupt")).toHaveLength(0); // leaving insert mode is not an interrupt
  await setup.mockInput.typeText("0w");
  await setup.mockInput.typeText("dd");
  expect(app.prompt.plainText).toBe("");
  await setup.mockInput.typeText("u");
  expect(app.prompt.plainText).toBe("hello brave world");
  await setup.mockInput.typeText("0wcw");
  expect(statusOf(await tui.frame((f) => statusOf(f).includes("INSERT")))).toContain("INSERT");
  await setup.mockInput.typeText("bold");
  expect(app.prompt.plainText).toBe("hello bold world");
  setup.mockInput.pressEscape();
  await setup.mockInput.typeText("$x");
  expect(app.prompt.plainText).toBe("hello bold worl");
  await setup.mockInput.typeText("0xA!");
  expect(app.prompt.plainText).toBe("ello bold worl!");
  setup.mockInput.pressEscape();
  setup.mockInput.pressEnter();
  expect(session.opsOf("user_input").map((o) => o.text)).toEqual(["ello bold worl!"]);
  expect(statusOf(await tui.frame((f) => statusOf(f).includes("INSERT")))).toContain("INSERT");
}, 20_000);

test("normal-mode letters never reach the prompt; o opens a line below", async () => {
  await start(true);
  await setup.mockInput.typeText("ab");
  setup.mockInput.pressEscape();
  await setup.mockInput.typeText("zq");
  setup.mockInput.pressBackspace();
  expect(app.prompt.plainText).toBe("ab"); // backspace moves, never deletes, in normal mode
  await setup.mockInput.typeText("o");
  await setup.mockInput.typeText("cd");
  expect(app.prompt.plainText).toBe("ab\ncd");
}, 20_000);

test("/vim toggles it; off, Esc and letters behave as before; /help lists /vim, /theme and the keys", async () => {
  await start(false);
  await setup.mockInput.typeText("/vim");
  setup.mockInput.pressEnter();
  expect(await tui.frame((f) => f.includes("Vim mode on"))).toContain("Vim mode on");
  expect(statusOf(await tui.frame())).toContain("INSERT");
  await setup.mockInput.typeText("/vim");
  setup.mockInput.pressEnter();
  const off = await tui.frame((f) => f.includes("Vim mode off"));
  expect(statusOf(off)).not.toContain("INSERT");
  await setup.mockInput.typeText("/help");
  setup.mockInput.pressEnter();
  const help = await tui.frame((f) => f.includes("/theme"));
  expect(help).toContain("/vim");
  expect(help).toContain("/theme");
  expect(help).toContain("Ctrl+V");
}, 20_000);

test("wide characters: motions land on the right character (the editor counts cells, vim counts characters)", async () => {
  await start(true);
  await setup.mockInput.typeText("日本語 text");
  setup.mockInput.pressEscape();
  await tui.frame((f) => statusOf(f).includes("NORMAL"));
  await setup.mockInput.typeText("0x");
  expect(app.prompt.plainText).toBe("本語 text");
  await setup.mockInput.typeText("wx");
  expect(app.prompt.plainText).toBe("本語 ext");
  await setup.mockInput.typeText("0lx");
  expect(app.prompt.plainText).toBe("本 ext");
}, 20_000);
