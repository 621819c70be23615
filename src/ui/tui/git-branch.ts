/**
 * The git branch for the status line, read from `.git/HEAD` (no `git` process: it runs at startup, inside the
 * cold-start budget). Walks up from `cwd`; a `.git` file (worktree, submodule) points at the real git dir.
 * Detached HEAD shows the short commit. Anything unreadable → undefined (no branch shown).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export function gitBranch(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (let i = 0; i < 64; i++) {
    const head = headOf(join(dir, ".git"));
    if (head !== null) return head;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** null: no `.git` here (keep walking up); undefined: a repo whose HEAD cannot be read. */
function headOf(dotGit: string): string | undefined | null {
  let gitDir = dotGit;
  try {
    const st = statSync(dotGit);
    if (st.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (!m) return undefined;
      const target = m[1]!.trim();
      gitDir = isAbsolute(target) ? target : join(dirname(dotGit), target);
    } else if (!st.isDirectory()) return null;
  } catch {
    return null;
  }
  try {
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    if (ref) return ref[1]!;
    return /^[0-9a-f]{7,}$/i.test(head) ? head.slice(0, 7) : undefined;
  } catch {
    return undefined;
  }
}
