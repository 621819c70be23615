/**
 * `isolation: worktree` (issue 20): the child works in a detached `git worktree` of HEAD under the session
 * workspace; its changes come back as one diff (new files included) that the parent or the user applies with
 * `git apply`. The main tree is untouched until then. Git runs with the hardened environment (no hooks, no
 * fsmonitor, no system config).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hardenedGitProcessEnv } from "../../util/git-hardening.ts";

export interface Worktree {
  root: string;
  /** The child's changes against HEAD, as a patch `git apply` takes ("" when none). */
  diff(): Promise<string>;
  remove(): Promise<void>;
}

async function git(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(["git", ...args], { cwd, env: hardenedGitProcessEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

/** A worktree for `agentId` under `baseDir`, or an error message (not a git repository, no commit yet, …). */
export async function createWorktree(projectRoot: string, baseDir: string, agentId: string): Promise<Worktree | string> {
  mkdirSync(baseDir, { recursive: true, mode: 0o700 });
  const root = join(baseDir, agentId);
  const add = await git(projectRoot, ["worktree", "add", "--detach", root, "HEAD"]);
  if (add.code !== 0) return `could not create a git worktree: ${add.err.trim() || `git exited ${add.code}`}`;
  return {
    root,
    diff: async () => {
      await git(root, ["add", "-A"]);
      const d = await git(root, ["diff", "--cached", "--binary", "HEAD"]);
      return d.code === 0 ? d.out : "";
    },
    remove: async () => {
      await git(projectRoot, ["worktree", "remove", "--force", root]);
    },
  };
}
