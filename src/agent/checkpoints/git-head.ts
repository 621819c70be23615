/**
 * What git knows about a file before an `exec`: the tracked files that differ from HEAD (so the others' prior
 * content is `git show HEAD:path`). Asynchronous (the UI thread never waits on git) and best effort: no git, no
 * repo, a failing command or one that outlives its timeout → undefined.
 */
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { hardenedGitProcessEnv } from "../../util/git-hardening.ts";

export interface GitView {
  /** Paths (relative, `/`-separated) whose working-tree or index content differs from HEAD. */
  dirty: Set<string>;
}

const GIT_TIMEOUT_MS = 5_000;

export function isGitRepo(root: string): boolean {
  return existsSync(join(root, ".git"));
}

export async function gitView(root: string): Promise<GitView | undefined> {
  const out = await git(root, ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=no"], 32 * 1024 * 1024);
  if (!out) return undefined;
  const dirty = new Set<string>();
  const fields = new TextDecoder().decode(out).split("\0");
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    dirty.add(f.slice(3));
    if (f[0] === "R" || f[0] === "C") dirty.add(fields[++i] ?? ""); // the rename's source follows
  }
  return { dirty };
}

/** HEAD's bytes of `abs`, or undefined when it is not tracked (or git fails). */
export async function headContent(root: string, abs: string): Promise<Uint8Array | undefined> {
  const rel = relative(root, abs).split(sep).join("/");
  if (rel.startsWith("..")) return undefined;
  return git(root, ["--no-optional-locks", "show", "--no-textconv", `HEAD:${rel}`], 64 * 1024 * 1024);
}

export function relPosix(root: string, abs: string): string {
  return relative(root, abs).split(sep).join("/");
}

/** stdout of a successful `git …` in `cwd`, or undefined (not found, non-zero exit, timeout, over `maxBytes`). */
async function git(cwd: string, args: string[], maxBytes: number): Promise<Uint8Array | undefined> {
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "ignore">>;
  try {
    proc = Bun.spawn(["git", ...args], { cwd, env: hardenedGitProcessEnv(), stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  } catch {
    return undefined;
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), GIT_TIMEOUT_MS);
  try {
    const [bytes, code] = await Promise.all([new Response(proc.stdout).bytes(), proc.exited]);
    return code === 0 && bytes.length <= maxBytes ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
