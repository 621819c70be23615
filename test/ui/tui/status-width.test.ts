// The status line row of the real TuiApp frame at 40, 60 and 80 columns, and after a resize: it fits the row, and
// the spinner and the permission mode stay while the git branch goes first (issue 15 item 11).
import { expect, test } from "bun:test";
import { FakeSession } from "./fake-session.ts";
import { useTuiHarness } from "./tui-harness.ts";

const tui = useTuiHarness("tui-status-width-");

const statusRow = (frame: string) => frame.split("\n").map((l) => l.trimEnd()).filter((l) => l.includes("accept-edits")).at(-1) ?? "";

for (const width of [40, 60, 80]) {
  test(`${width} columns, a turn running: spinner and mode on the status row, branch dropped`, async () => {
    const session = new FakeSession();
    await tui.start({ session, gitBranch: "feature/a-branch-with-a-long-name", permissionMode: "accept-edits", model: "qwen3-coder:30b-a3b" }, { width, height: 20 });
    session.emit({ type: "turn.started", turnId: "t", input: "hi" });
    const row = statusRow(await tui.frame((f) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+s/.test(statusRow(f))));
    expect(row).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+s/);
    expect(row).toContain("accept-edits");
    expect(row).not.toContain("⎇");
    expect(Bun.stringWidth(row)).toBeLessThanOrEqual(width);
  });
}

test("a resize refits the status line while idle", async () => {
  const session = new FakeSession();
  const { setup } = await tui.start({ session, gitBranch: "main", permissionMode: "accept-edits" }, { width: 100, height: 20 });
  expect(statusRow(await tui.frame())).toContain("⎇ main");
  setup.resize(30, 20);
  await setup.renderOnce();
  const row = statusRow(setup.captureCharFrame());
  expect(row).toContain("accept-edits");
  expect(row).not.toContain("⎇");
});
