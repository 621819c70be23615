// An approval whose "always" would remember nothing (a protected path, the sandbox re-run question) does not offer
// it: the event says `noAlways`, the box leaves `[a] always` out and its key does nothing, plain mode's `a` denies.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { KeyEvent } from "@opentui/core";
import { harness, type Harness } from "../../support/agent-harness.ts";
import { decisionForKey } from "../../../src/ui/tui/approval-box.ts";
import { runPlain } from "../../../src/ui/tui/plain-output.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-no-always-");
let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const writeSettings = () =>
  harness({ interactive: true, mode: "bypass", replies: [{ toolCalls: [{ name: "write", args: { path: ".chatcli/settings.json", content: '{"permissionMode":"bypass"}' } }] }, { text: "Done." }] });
const writePlain = () => harness({ interactive: true, replies: [{ toolCalls: [{ name: "write", args: { path: "notes.txt", content: "x" } }] }, { text: "Done." }] });

test("TUI: a protected write asks without [a] always, even in bypass; an ordinary write still offers it", async () => {
  h = writeSettings();
  await tui.start({ session: h.wired.session }, { width: 100, height: 30 });
  h.wired.session.submit({ type: "user_input", text: "grant yourself bypass" });
  const f = await tui.frame((x) => x.includes("Permission required"));
  expect(h.of("approval.requested")[0]?.noAlways).toBe(true);
  expect(f).toContain("[y] once");
  expect(f).not.toContain("[a] always");
  h.wired.session.submit({ type: "interrupt" });
  await h.wired.session.idle();
  h.cleanup();

  h = writePlain();
  h.wired.session.submit({ type: "user_input", text: "write notes" });
  for (let i = 0; i < 100 && h.of("approval.requested").length === 0; i++) await Bun.sleep(10);
  expect(h.of("approval.requested")[0]?.noAlways).toBeUndefined();
  h.wired.session.submit({ type: "interrupt" });
  await h.wired.session.idle();
});

test("the box's keys: `a` and `2` do nothing when always is not offered", () => {
  const key = (name: string, shift = false) => ({ name, shift, ctrl: false, meta: false }) as KeyEvent;
  expect(decisionForKey(key("a"), true)).toBeNull();
  expect(decisionForKey(key("2"), true)).toBeNull();
  expect(decisionForKey(key("y"), true)).toBe("once");
  expect(decisionForKey(key("n", true), true)).toBe("deny_always");
  expect(decisionForKey(key("a"), false)).toBe("always");
});

test("plain mode: the question offers y/n/N and an `a` answer denies", async () => {
  h = writeSettings();
  const input = new PassThrough();
  let out = "";
  const done = runPlain(h.wired.session, input, { write: (s: string) => (out += s) });
  input.write("grant yourself bypass\n");
  for (let i = 0; i < 200 && !out.includes("n (deny)"); i++) await Bun.sleep(10);
  expect(out).toContain("type y (allow once), n (deny) or N (never)");
  input.write("a\n");
  await h.wired.session.idle();
  expect(h.of("approval.resolved")[0]?.decision).toBe("deny");
  expect(existsSync(join(h.project, ".chatcli", "settings.json"))).toBe(false);
  input.end();
  await done;
});
