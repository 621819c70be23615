// Structural guarantees behind the performance budgets (the figures themselves are in bench/tui-stream.ts):
// incremental block splitting gives the same blocks as a one-shot split, the reducer never needs the whole
// partial, committed items share bounded page renderables, and committed markdown is styled text.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TextAttributes } from "@opentui/core";
import { createTestRenderer, type TestRendererSetup } from "@opentui/core/testing";
import { FRESH_SCAN, scanFinishedBlocks, splitFinishedBlocks } from "../../../src/ui/tui/markdown-blocks.ts";
import { markdownChunks } from "../../../src/ui/tui/markdown-text.ts";
import { initialViewState, reduce, type ViewState } from "../../../src/ui/tui/view-model.ts";
import { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession } from "./fake-session.ts";

const answer = [
  "# Title", "", "Some **bold** text.", "", "```ts", "const a = 1;", "", "const b = 2;", "```", "",
  "| a | b |", "|---|---|", "| 1 | 2 |", "", "- one", "- two", "", "tail without end",
].join("\n");

test("resumed scanning finds the same blocks as one split of the whole text, at any chunk size", () => {
  const whole = splitFinishedBlocks(answer);
  for (const size of [1, 3, 7, 50]) {
    const blocks: string[] = [];
    let tail = "";
    let scan = FRESH_SCAN;
    for (let i = 0; i < answer.length; i += size) {
      const r = scanFinishedBlocks(tail + answer.slice(i, i + size), scan.tailLength === tail.length ? scan : FRESH_SCAN);
      blocks.push(...r.finished);
      tail = r.rest;
      scan = r.scan;
    }
    expect(blocks).toEqual(whole.finished);
    expect(tail).toBe(whole.rest);
  }
  // The blank line inside the fence does not end a block.
  expect(whole.finished.some((b) => b.includes("const a") && b.includes("const b"))).toBe(true);
});

test("the reducer commits the same items whether the answer comes in small deltas or one coalesced delta", () => {
  const feed = (size: number) => {
    let s: ViewState = initialViewState({ provider: "p", model: "m", permissionMode: "default", displayMode: "full" });
    for (let i = 0; i < answer.length; i += size) s = reduce(s, { type: "message.delta", messageId: "m", text: answer.slice(i, i + size) });
    return s;
  };
  const a = feed(5);
  const b = feed(answer.length);
  expect(b.items).toEqual(a.items);
  expect(b.live.tail).toBe(a.live.tail);
  expect(a.live.tail).toBe("tail without end");
});

test("markdown is styled text: markers hidden, headings bold, code and tables laid out", () => {
  const chunks = markdownChunks(answer);
  const text = chunks.map((c) => c.text).join("");
  expect(text).not.toContain("# Title");
  expect(text).not.toContain("**");
  expect(text).not.toContain("```");
  expect(text).toContain("  const a = 1;");
  expect(text).toContain("a │ b");
  expect(text).toContain("• one");
  expect(chunks.find((c) => c.text === "Title")!.attributes! & TextAttributes.BOLD).toBeTruthy();
  expect(chunks.find((c) => c.text === "bold")!.attributes! & TextAttributes.BOLD).toBeTruthy();
  expect(chunks.find((c) => c.text === "const")!.attributes! & TextAttributes.BOLD).toBeTruthy();
});

let setup: TestRendererSetup | null = null;
let dir = "";
afterEach(async () => {
  await setup?.dispose();
  setup = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("committed items share page renderables: 2,000 items make a handful of pages, all on screen in order", async () => {
  dir = mkdtempSync(join(tmpdir(), "tui-perf-"));
  setup = await createTestRenderer({ width: 80, height: 20, nativeSceneVerify: false, exitOnCtrlC: false });
  const session = new FakeSession();
  const app = new TuiApp(setup.renderer, {
    session, provider: "ollama", model: "m", cwd: dir, inline: false, permissionMode: "default",
    historyFile: join(dir, "h.jsonl"), displayMode: "full", onExit: () => {},
  });
  for (let i = 0; i < 2000; i++) session.emit({ type: "notice", level: "info", text: `note ${i}` });
  app.syncNow();
  await setup.renderOnce();
  // 2 lines per item (text + separator), 200 lines per page.
  expect(app.transcript!.committedRenderables).toBe(20);
  const f = setup.captureCharFrame();
  expect(f).toContain("note 1999");
  expect(f.indexOf("note 1998")).toBeLessThan(f.indexOf("note 1999"));
  app.destroy();
});

test("inline mode commits every line of a multi-line block to scrollback, as styled text", async () => {
  dir = mkdtempSync(join(tmpdir(), "tui-perf-"));
  setup = await createTestRenderer({ width: 40, height: 16, screenMode: "split-footer", footerHeight: 6, externalOutputMode: "capture-stdout", exitOnCtrlC: false });
  const session = new FakeSession();
  const app = new TuiApp(setup.renderer, {
    session, provider: "ollama", model: "m", cwd: dir, inline: true, permissionMode: "default",
    historyFile: join(dir, "h.jsonl"), displayMode: "full", onExit: () => {},
  });
  // A delta's text and partial agree, as the core sends them; the trailing blank line finishes the last block.
  session.emit({ type: "message.delta", messageId: "m", text: answer + "\n\n" });
  app.syncNow();
  await app.scrollbackIdle;
  await setup.renderOnce();
  const out = setup.externalOutput.takeText();
  for (const line of ["Title", "Some bold text.", "  const a = 1;", "  const b = 2;", "a │ b", "1 │ 2", "• one", "• two", "tail without end"]) {
    expect(out).toContain(line);
  }
  expect(out).not.toContain("```");
  app.destroy();
});
