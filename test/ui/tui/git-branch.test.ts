import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitBranch } from "../../../src/ui/tui/git-branch.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "git-branch-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a real repo: the branch git reports, also from a subdirectory", () => {
  const r = Bun.spawnSync(["git", "init", "-q", "-b", "feature/status-line", dir], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) return; // no git here
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  expect(gitBranch(dir)).toBe("feature/status-line");
  expect(gitBranch(join(dir, "src", "deep"))).toBe("feature/status-line");
});

test("detached HEAD shows the short commit; a .git file (worktree) is followed", () => {
  mkdirSync(join(dir, "repo", ".git"), { recursive: true });
  writeFileSync(join(dir, "repo", ".git", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n");
  expect(gitBranch(join(dir, "repo"))).toBe("0123456");
  mkdirSync(join(dir, "gitdirs", "wt"), { recursive: true });
  writeFileSync(join(dir, "gitdirs", "wt", "HEAD"), "ref: refs/heads/wt-branch\n");
  mkdirSync(join(dir, "worktree"));
  writeFileSync(join(dir, "worktree", ".git"), "gitdir: ../gitdirs/wt\n");
  expect(gitBranch(join(dir, "worktree"))).toBe("wt-branch");
});

test("a repo whose HEAD cannot be read: no branch (and no walking further up)", () => {
  mkdirSync(join(dir, "outer", ".git"), { recursive: true });
  writeFileSync(join(dir, "outer", ".git", "HEAD"), "ref: refs/heads/outer\n");
  mkdirSync(join(dir, "outer", "broken", ".git"), { recursive: true });
  expect(gitBranch(join(dir, "outer", "broken"))).toBeUndefined();
  expect(gitBranch(join(dir, "outer"))).toBe("outer");
  mkdirSync(join(dir, "broken", ".git"), { recursive: true });
  expect(gitBranch(join(dir, "broken"))).toBeUndefined();
});
