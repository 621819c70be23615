// Flow tests of Esc+Esc rewind: a real Session (scripted provider, real write tool through the tool host's
// beforeFileChange hook), a real CheckpointStore on a temp dir, and the TuiApp on the OpenTUI test renderer.
import { beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock, type TestRendererSetup } from "@opentui/core/testing";
import type { TuiApp } from "../../../src/ui/tui/tui-app.ts";
import { Session } from "../../../src/agent/session/session.ts";
import { CheckpointStore } from "../../../src/agent/checkpoints.ts";
import { createToolHost } from "../../../src/agent/tool-host-impl.ts";
import { createPathPolicy } from "../../../src/tool/workspace.ts";
import { createPermissionPolicy } from "../../../src/tool/permission.ts";
import { ScriptedProvider } from "../../support/scripted-provider.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-rewind-");
const frame = tui.frame;
let project: string;
let setup: TestRendererSetup;
let app: TuiApp;
let session: Session;
let store: CheckpointStore;
let provider: ScriptedProvider;

async function start(opts: { inline?: boolean; clock?: ManualClock } = {}) {
  provider = new ScriptedProvider([]);
  store = new CheckpointStore({ sessionId: "s1", dir: join(tui.dir, "home", "snapshots", "s1"), projectRoot: project, publish: (e) => session.publish(e) });
  const tools = createToolHost({
    projectRoot: project,
    cwd: project,
    paths: createPathPolicy({ projectRoot: project, extraReadPaths: [] }),
    policy: createPermissionPolicy({ homeDir: join(tui.dir, "home"), projectRoot: project, mode: "bypass" }),
    env: {},
    beforeFileChange: (p) => store.beforeFileChange(p),
    aroundExec: store.aroundExec,
  });
  session = new Session({
    sessionId: "s1",
    cwd: project,
    binding: { providerId: "SCRIPTED", model: "scripted-model", provider, nativeTools: true, contextWindow: 32768 },
    permissionMode: "bypass",
    turn: { systemPrompt: () => [], tools, onCheckpoint: (h) => void store.save(h) },
    hooks: { rewind: (op, h) => store.rewind(op, h) },
  });
  ({ setup, app } = await tui.start(
    {
      session,
      provider: "SCRIPTED",
      model: "scripted-model",
      cwd: project,
      inline: opts.inline ?? false,
      permissionMode: "bypass",
      checkpoints: store,
      rewindEscMs: 500,
    },
    { width: 100, height: 30, ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.inline ? { screenMode: "split-footer" as const, footerHeight: 12, externalOutputMode: "capture-stdout" as const } : {}) },
  ));
}

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (pred()) return;
    await Bun.sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** One exchange where the model writes `a.txt` with a native tool call, then answers. */
async function exchange(prompt: string, content: string, answer: string, path = "a.txt") {
  provider.push({ toolCalls: [{ name: "write", args: { path, content } }] }, { text: answer });
  await setup.mockInput.typeText(prompt);
  setup.mockInput.pressEnter();
  await until(() => session.isRunning || readFileSync(join(project, path), "utf8") === content, "the turn to start");
  await session.idle();
  if (app.transcript) await frame((f) => f.includes(answer));
}

async function escEsc(gapMs = 40) {
  setup.mockInput.pressEscape();
  await Bun.sleep(gapMs);
  setup.mockInput.pressEscape();
  await Bun.sleep(40); // > the stdin parser's 20 ms lone-ESC flush
}

const file = (name = "a.txt") => readFileSync(join(project, name), "utf8");
const down = async (n: number) => {
  for (let i = 0; i < n; i++) setup.mockInput.pressArrow("down");
};

beforeEach(() => {
  project = join(tui.dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "v0\n");
});

test("two Escapes 40 ms apart open the menu; 700 ms apart they do not (manual clock)", async () => {
  const clock = new ManualClock();
  clock.setTime(1_000_000);
  await start({ clock });
  const escEscAt = (gapMs: number) => {
    setup.mockInput.pressEscape();
    clock.advance(gapMs); // > the stdin parser's 20 ms lone-ESC flush
    setup.mockInput.pressEscape();
    clock.advance(25);
  };
  store.save([{ role: "user", content: "hello checkpoint" }]);
  escEscAt(40);
  const f = await frame((x) => x.includes("Select a checkpoint"));
  expect(f).toContain("Select a checkpoint");
  expect(f).toContain("hello checkpoint");
  setup.mockInput.pressEscape();
  clock.advance(25);
  expect(await frame((x) => !x.includes("Select a checkpoint"))).not.toContain("Select a checkpoint");
  escEscAt(499); // the window is 500 ms: just inside opens it
  expect(await frame((x) => x.includes("Select a checkpoint"))).toContain("Select a checkpoint");
  setup.mockInput.pressEscape();
  clock.advance(25);
  await frame((x) => !x.includes("Select a checkpoint"));
  escEscAt(700);
  expect(await frame()).not.toContain("Select a checkpoint");
});

test("a same-tick double Esc (one meta-escape event) opens the menu", async () => {
  await start();
  store.save([{ role: "user", content: "hello checkpoint" }]);
  setup.mockInput.pressEscape();
  setup.mockInput.pressEscape();
  await Bun.sleep(40);
  expect(await frame((x) => x.includes("Select a checkpoint"))).toContain("hello checkpoint");
});

test("Esc Esc on a non-empty prompt clears it instead; with no checkpoints a notice and no menu", async () => {
  await start();
  await setup.mockInput.typeText("a draft");
  await escEsc();
  expect(app.prompt.plainText).toBe("");
  expect(await frame()).not.toContain("Select a checkpoint");
  await escEsc();
  const f = await frame((x) => x.includes("No checkpoints yet"));
  expect(f).toContain("No checkpoints yet");
  expect(f).not.toContain("Select a checkpoint");
});

test("restore conversation and code, then undo the rewind", async () => {
  await start();
  await exchange("make it v1", "v1\n", "done one");
  await exchange("make it v2", "v2\n", "done two");
  expect(file()).toBe("v2\n");
  await escEsc();
  const menu = await frame((x) => x.includes("Select a checkpoint"));
  // newest first: the tool-result checkpoint of turn 2, then turn 2's start
  const rows = menu.split("\n").filter((l) => l.includes("msgs") || l.includes("msg "));
  expect(rows[0]).toContain("make it v2");
  expect(rows[1]).toMatch(/4 msgs\s+make it v2\s+\+1 file/);
  await down(1);
  setup.mockInput.pressEnter();
  expect(await frame((x) => x.includes("Restore conversation and code"))).toContain("Restore code only");
  setup.mockInput.pressEnter();
  const confirm = await frame((x) => x.includes("Will change"));
  expect(confirm).toContain("a.txt");
  setup.mockInput.pressEnter();
  await until(() => file() === "v1\n", "a.txt restored");
  await until(() => app.prompt.plainText === "make it v2", "the prompt put back");
  const after = await frame((x) => !x.includes("done two") && x.includes("done one"));
  expect(after).toContain("make it v1");
  expect(after).toContain("done one");
  expect(after).not.toContain("done two");

  // undo: Esc Esc first clears the restored prompt, the next Esc Esc opens the menu
  await escEsc();
  expect(app.prompt.plainText).toBe("");
  await escEsc();
  const undoMenu = await frame((x) => x.includes("(before rewind)"));
  expect(undoMenu.split("\n").find((l) => l.includes("msgs"))).toContain("(before rewind) make it v2");
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Restore conversation and code"));
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Will change"));
  setup.mockInput.pressEnter();
  await until(() => file() === "v2\n", "a.txt back to v2");
  expect(await frame((x) => x.includes("done two"))).toContain("done two");
  expect(app.prompt.plainText).toBe("");
});

test("conversation only keeps the files; code only keeps the conversation and deletes created files when confirmed", async () => {
  await start();
  await exchange("make it v1", "v1\n", "done one");
  await exchange("add b", "b\n", "done b", "b.txt");
  await escEsc();
  await frame((x) => x.includes("Select a checkpoint"));
  await down(1); // turn 2's start
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Restore conversation only"));
  await down(1);
  setup.mockInput.pressEnter();
  await until(() => app.prompt.plainText === "add b", "the prompt put back");
  expect(await frame((x) => !x.includes("done b"))).not.toContain("done b");
  expect(existsSync(join(project, "b.txt"))).toBe(true);

  setup.mockInput.pressEscape();
  setup.mockInput.pressEscape(); // clears the prompt
  await Bun.sleep(40);
  await escEsc();
  const menu = await frame((x) => x.includes("Select a checkpoint"));
  const rows = menu.split("\n").filter((l) => / msgs? /.test(l));
  await down(rows.length - 1); // the oldest: before turn 1
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Restore code only"));
  await down(2);
  setup.mockInput.pressEnter();
  const confirm = await frame((x) => x.includes("Created after the checkpoint"));
  expect(confirm).toContain("b.txt");
  expect(confirm).toContain("Restore and delete the 1 created file");
  setup.mockInput.pressEnter();
  await until(() => !existsSync(join(project, "b.txt")), "b.txt deleted");
  expect(file()).toBe("v0\n");
  const f = await frame((x) => x.includes("Restored"));
  expect(f).toContain("done one"); // the conversation stayed
  expect(app.prompt.plainText).toBe("");
});

/** Inline mode: what reached the native scrollback, accumulated until `pred` holds (or ~3 s). */
async function scrollback(pred: (text: string) => boolean): Promise<string> {
  let text = "";
  for (let i = 0; i < 150; i++) {
    app.syncNow();
    await app.scrollbackIdle;
    await setup.renderOnce();
    text += setup.externalOutput.takeText();
    if (pred(text)) return text;
    await Bun.sleep(20);
  }
  return text;
}

test("inline mode: the scrollback is reset and replayed from the restored history", async () => {
  await start({ inline: true });
  await exchange("make it v1", "v1\n", "done one");
  await exchange("make it v2", "v2\n", "done two");
  expect(await scrollback((t) => t.includes("done two"))).toContain("done two");
  await escEsc();
  await frame((x) => x.includes("Select a checkpoint"));
  await down(1);
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Restore conversation only"));
  await down(1);
  setup.mockInput.pressEnter();
  await until(() => app.prompt.plainText === "make it v2", "the prompt put back");
  const replay = await scrollback((t) => t.includes("done one"));
  expect(replay).toContain("make it v1");
  expect(replay).toContain("done one");
  expect(replay).not.toContain("done two");
});

test("a file an exec command changed (never written by chatcli) is restored; every confirm choice is on screen", async () => {
  await start();
  writeFileSync(join(project, "notes.txt"), "original\n");
  provider.push({ toolCalls: [{ name: "exec", args: { command: "echo changed > notes.txt && echo new > made.txt" } }] }, { text: "ran it" });
  await setup.mockInput.typeText("change the notes");
  setup.mockInput.pressEnter();
  await until(() => existsSync(join(project, "made.txt")), "the command to run");
  await session.idle();
  await frame((x) => x.includes("ran it"));
  expect(file("notes.txt")).toBe("changed\n");
  await escEsc();
  await frame((x) => x.includes("Select a checkpoint"));
  await down(1); // the turn's start
  setup.mockInput.pressEnter();
  await frame((x) => x.includes("Restore code only"));
  await down(2);
  setup.mockInput.pressEnter();
  const confirm = await frame((x) => x.includes("Will change"));
  expect(confirm).toContain("notes.txt");
  expect(confirm).toContain("made.txt");
  expect(confirm).not.toContain("Not restorable");
  for (const choice of ["Restore and delete the 1 created file", "Restore, keep created files", "Cancel"]) expect(confirm).toContain(choice);
  setup.mockInput.pressEnter();
  await until(() => !existsSync(join(project, "made.txt")), "made.txt deleted");
  expect(file("notes.txt")).toBe("original\n");
});
