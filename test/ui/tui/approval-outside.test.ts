// Issue 15: an approval for a command that names paths outside the project says so, in the box (and plain mode).
// A real Session: the tool host finds the paths, the event carries them, the box renders them.
import { afterEach, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { harness, type Harness } from "../../support/agent-harness.ts";
import { runPlain } from "../../../src/ui/tui/plain-output.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-outside-");
let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const rm = (command: string) => harness({ interactive: true, replies: [{ toolCalls: [{ name: "exec", args: { command } }] }, { text: "Done." }] });

test("TUI: `rm -rf` outside the project shows which path is outside; inside the project it does not", async () => {
  h = rm("rm -rf /tmp/chatcli-not-here-xyz");
  await tui.start({ session: h.wired.session }, { width: 100, height: 30 });
  h.wired.session.submit({ type: "user_input", text: "clean up" });
  const f = await tui.frame((x) => x.includes("Permission required"));
  expect(f).toContain("/tmp/chatcli-not-here-xyz is outside the project");
  expect(h.of("approval.requested")[0]?.outsideProject).toEqual(["/tmp/chatcli-not-here-xyz"]);
  h.wired.session.submit({ type: "interrupt" });
  await h.wired.session.idle();
  h.cleanup();
  h = rm("rm -rf build");
  h.wired.session.submit({ type: "user_input", text: "clean up" });
  for (let i = 0; i < 100 && h.of("approval.requested").length === 0; i++) await Bun.sleep(10);
  expect(h.of("approval.requested")[0]?.outsideProject).toBeUndefined();
  h.wired.session.submit({ type: "interrupt" });
  await h.wired.session.idle();
});

test("plain mode names the path too", async () => {
  h = rm("rm -rf ../elsewhere");
  const input = new PassThrough();
  let out = "";
  const done = runPlain(h.wired.session, input, { write: (s: string) => (out += s) });
  input.write("clean up\n");
  for (let i = 0; i < 200 && !out.includes("[y]once"); i++) await Bun.sleep(10);
  input.write("n\n");
  for (let i = 0; i < 200 && !out.includes("Done."); i++) await Bun.sleep(10);
  input.end();
  await done;
  expect(out).toContain("../elsewhere is outside the project");
});
