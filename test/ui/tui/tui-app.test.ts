import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestRenderer, type TestRendererSetup } from "@opentui/core/testing";
import { TuiApp, type TuiAppOptions } from "../../../src/ui/tui/tui-app.ts";
import { FakeSession, streamAnswer, turnCompleted } from "./fake-session.ts";

let dir: string;
let setup: TestRendererSetup;
let session: FakeSession;
let app: TuiApp;
let exits: number[];

async function start(extra: Partial<TuiAppOptions> = {}, size = { width: 80, height: 24 }) {
  setup = await createTestRenderer({ ...size, exitOnCtrlC: false });
  session = new FakeSession();
  exits = [];
  app = new TuiApp(setup.renderer, {
    session,
    provider: "ollama",
    model: "qwen3:8b",
    cwd: dir,
    inline: false,
    permissionMode: "default",
    historyFile: join(dir, "history.jsonl"),
    displayMode: "full",
    gitBranch: "main",
    onExit: (c) => exits.push(c),
    ...extra,
  });
  await setup.renderOnce();
}

/** Markdown renders asynchronously (parser worker): poll frames until `pred` holds, or give up after ~3 s. */
async function frame(pred: (f: string) => boolean = () => true): Promise<string> {
  app.syncNow();
  let f = "";
  for (let i = 0; i < 150; i++) {
    await setup.renderOnce();
    f = setup.captureCharFrame();
    if (pred(f)) return f;
    await Bun.sleep(20);
  }
  return f;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tui-app-"));
});
afterEach(async () => {
  app?.destroy();
  await setup?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test("idle frame shows the prompt and the status line", async () => {
  await start();
  const f = await frame();
  expect(f).toContain("ollama · qwen3:8b");
  expect(f).toContain("default");
  expect(f).toContain("⎇ main");
  expect(f).toMatchSnapshot();
});

test("typing and Enter submits user_input, the turn streams markdown and commits", async () => {
  await start();
  await setup.mockInput.typeText("hello there");
  setup.mockInput.pressEnter();
  expect(session.opsOf("user_input")).toEqual([{ type: "user_input", text: "hello there" }]);
  session.emit({ type: "turn.started", turnId: "t1", input: "hello there" });
  streamAnswer(session, "m1", "# Title\n\nFirst paragraph.\n\nStreaming tail");
  const f = await frame((x) => x.includes("First paragraph"));
  expect(f).toContain("› hello there");
  expect(f).toContain("Title");
  expect(f).not.toContain("# Title");
  expect(f).toContain("Streaming tail");
  expect(app.state.items.map((i) => i.kind)).toEqual(["user", "markdown", "markdown"]);
  expect(app.state.live.tail).toBe("Streaming tail");
  session.emit(turnCompleted("t1"));
  const g = await frame();
  expect(g).toContain("1.2k/32k (4%)");
  expect(g).toMatchSnapshot();
});
