/**
 * What git knows about a file before an `exec`: the tracked files that differ from HEAD (so the others' prior
 * content is `git show HEAD:path`). Every call is best effort: no git, no repo or a failing command → undefined.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { hardenedGitProcessEnv } from "../../util/git-hardening.ts";

export interface GitView {
  /** Paths (relative, `/`-separated) whose working-tree or index content differs from HEAD. */
  dirty: Set<string>;
}

export function isGitRepo(root: string): boolean {
  return existsSync(join(root, ".git"));
}

export function gitView(root: string): GitView | undefined {
  const r = spawnSync("git", ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=no"], { cwd: root, env: hardenedGitProcessEnv(), encoding: "buffer", timeout: 5_000, maxBuffer: 32 * 1024 * 1024 });
  if (r.status !== 0 || !r.stdout) return undefined;
  const dirty = new Set<string>();
  const fields = r.stdout.toString("utf8").split("\0");
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    dirty.add(f.slice(3));
    if (f[0] === "R" || f[0] === "C") dirty.add(fields[++i] ?? ""); // the rename's source follows
  }
  return { dirty };
}

/** HEAD's bytes of `abs`, or undefined when it is not tracked (or git fails). */
export function headContent(root: string, abs: string): Uint8Array | undefined {
  const rel = relative(root, abs).split(sep).join("/");
  if (rel.startsWith("..")) return undefined;
  const r = spawnSync("git", ["--no-optional-locks", "show", "--no-textconv", `HEAD:${rel}`], { cwd: root, env: hardenedGitProcessEnv(), encoding: "buffer", timeout: 5_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 || !r.stdout) return undefined;
  return new Uint8Array(r.stdout);
}

export function relPosix(root: string, abs: string): string {
  return relative(root, abs).split(sep).join("/");
}
