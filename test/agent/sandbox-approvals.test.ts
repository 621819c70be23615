// Issue 14's "everyday work does not get noisier": the approvals a typical edit-test-commit session asks for,
// with the sandbox off and on (real bwrap), every approval answered "once" by the user.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bwrapUnavailable } from "../sandbox/support.ts";
import { harness, type Harness } from "../support/agent-harness.ts";

const why = await bwrapUnavailable();
if (why) console.warn(`sandbox approval-count test skipped: ${why}`);

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const GIT = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };

async function session(sandbox: "off" | "workspace-write", mode: "default" | "accept-edits"): Promise<string[]> {
  h = harness({
    interactive: true,
    mode,
    env: { CHATCLI_SANDBOX: sandbox, ...GIT },
    replies: [
      { toolCalls: [{ name: "write", args: { path: "src/sum.sh", content: "echo $((1+2))\n" } }] },
      { toolCalls: [{ name: "exec", args: { command: "sh src/sum.sh > test-report.txt && grep -q 3 test-report.txt && echo tests passed" } }] },
      { toolCalls: [{ name: "exec", args: { command: "git add -A" } }] },
      { toolCalls: [{ name: "exec", args: { command: "git commit -qm 'add sum'" } }] },
      { text: "committed" },
    ],
  });
  Bun.spawnSync(["sh", "-c", "rm -rf .git && git init -q"], { cwd: h.project });
  const asked: string[] = [];
  const off = h.wired.session.subscribe((e) => {
    if (e.type !== "approval.requested") return;
    asked.push(e.action);
    h!.wired.session.submit({ type: "approval", requestId: e.requestId, decision: "once" });
  });
  await h.run("add sum.sh, test it, commit");
  off();
  const log = Bun.spawnSync(["git", "log", "--oneline"], { cwd: h.project }).stdout.toString();
  expect(log).toContain("add sum");
  expect(readFileSync(join(h.project, "test-report.txt"), "utf8")).toBe("3\n");
  return asked;
}

describe.skipIf(why !== undefined)("approvals in an edit-test-commit session", () => {
  test("default mode: 4 without the sandbox, 3 with it (the test run needs none; git add/commit write .git/)", async () => {
    const before = await session("off", "default");
    h?.cleanup();
    h = undefined;
    const after = await session("workspace-write", "default");
    expect(before).toHaveLength(4);
    expect(after).toHaveLength(3);
    expect(after.some((a) => a.includes("sum.sh >"))).toBe(false);
  });

  test("accept-edits: 3 without the sandbox, 2 with it", async () => {
    const before = await session("off", "accept-edits");
    h?.cleanup();
    h = undefined;
    const after = await session("workspace-write", "accept-edits");
    expect(before).toHaveLength(3);
    expect(after).toHaveLength(2);
  });
});
