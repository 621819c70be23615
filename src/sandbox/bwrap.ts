/**
 * Linux: the bubblewrap command line for the fs plan. The whole filesystem is bound read-only, /dev and /proc are
 * fresh (a pid namespace: the parent's /proc/<pid>/environ is not there), /tmp is a private tmpfs, then the writable
 * roots are bound back (after the tmpfs: the project may itself live under /tmp), then the protected paths
 * read-only, then the credential stores masked. `--unshare-net` unless the network is open for this command.
 *
 * A protected path that does not exist inside a writable root gets a read-only placeholder; bwrap creates its
 * mount point on the host, so `cleanup()` removes it again once no running command uses it (if still empty).
 */
import { lstatSync, realpathSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { isWithin, type FsPlan, type PlannedPath } from "./fs-plan.ts";
import type { WrappedCommand, WrapRequest } from "./types.ts";

export interface BwrapOptions {
  bwrapPath: string;
  /** An empty regular file on the host: the source of file placeholders and file masks. */
  emptyFile: string;
}

/** Placeholders currently mounted by running commands of this process, by path. */
const livePlaceholders = new Map<string, number>();

export function bwrapWrap(plan: FsPlan, req: WrapRequest, o: BwrapOptions): WrappedCommand {
  const { args, created } = bwrapArgs(plan, req, o);
  for (const c of created) livePlaceholders.set(c.path, (livePlaceholders.get(c.path) ?? 0) + 1);
  let done = false;
  return {
    argv: [o.bwrapPath, ...args, "--", ...req.argv],
    // The private /tmp is the temp dir inside; a host TMPDIR would not exist there.
    env: { ...req.env, TMPDIR: "/tmp" },
    cleanup() {
      if (done) return;
      done = true;
      for (const c of created) releasePlaceholder(c);
    },
  };
}

/** The bwrap arguments (without the command) and the placeholders they will create on the host. */
export function bwrapArgs(plan: FsPlan, req: Pick<WrapRequest, "cwd" | "network">, o: Pick<BwrapOptions, "emptyFile">): { args: string[]; created: PlannedPath[] } {
  const args = ["--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc"];
  if (!req.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm");
  // Ancestors before descendants, so a writable root inside a readable one stays writable and vice versa.
  const binds = [...plan.readable.filter((p) => !plan.writable.includes(p)).map((p) => ({ p, rw: false })), ...plan.writable.map((p) => ({ p, rw: true }))]
    .filter((b) => exists(b.p))
    .sort((a, b) => a.p.length - b.p.length);
  for (const b of binds) args.push(b.rw ? "--bind" : "--ro-bind", b.p, b.p);
  const inWritable = (p: string) => plan.writable.some((w) => isWithin(p, w));
  const created: PlannedPath[] = [];
  const placeholder = (pp: PlannedPath) => {
    const target = firstMissing(pp);
    if (!target || created.some((c) => c.path === target.path)) return;
    created.push(target);
    if (target.kind === "dir") args.push("--tmpfs", target.path, "--remount-ro", target.path);
    else args.push("--ro-bind", o.emptyFile, target.path);
  };
  for (const pp of plan.protected) {
    if (!inWritable(pp.path)) continue; // already read-only (or hidden by the private /tmp)
    const resolved = resolveExisting(pp.path);
    if (resolved === undefined) placeholder(pp);
    else if (inWritable(resolved)) args.push("--ro-bind", resolved, resolved);
  }
  for (const m of plan.masks) {
    const resolved = resolveExisting(m.path);
    if (resolved === undefined) {
      if (inWritable(m.path)) placeholder(m);
      continue;
    }
    const isDir = statSync(resolved, { throwIfNoEntry: false })?.isDirectory() ?? false;
    if (isDir) args.push("--tmpfs", resolved, "--remount-ro", resolved);
    else args.push("--ro-bind", o.emptyFile, resolved);
  }
  args.push("--chdir", req.cwd);
  return { args, created };
}

function exists(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
}

/** The real path of an existing path (a symlink is followed), or undefined when nothing is there. */
function resolveExisting(p: string): string | undefined {
  if (!exists(p)) return undefined;
  try {
    return realpathSync(p);
  } catch {
    return p; // a dangling symlink: bind over the link's own path fails later, so report the path itself
  }
}

/** The path to put a placeholder on: `pp` itself, or its highest missing ancestor (then always a directory). */
function firstMissing(pp: PlannedPath): PlannedPath | undefined {
  let cur = pp.path;
  let kind = pp.kind;
  for (;;) {
    const parent = dirname(cur);
    if (parent === cur) return undefined;
    if (exists(parent)) return { path: cur, kind };
    cur = parent;
    kind = "dir";
  }
}

function releasePlaceholder(c: PlannedPath): void {
  const n = (livePlaceholders.get(c.path) ?? 1) - 1;
  if (n > 0) {
    livePlaceholders.set(c.path, n);
    return;
  }
  livePlaceholders.delete(c.path);
  try {
    const st = lstatSync(c.path, { throwIfNoEntry: false });
    if (!st) return;
    if (c.kind === "dir" && st.isDirectory()) rmdirSync(c.path); // fails (kept) when something was put in it
    else if (c.kind === "file" && st.isFile() && st.size === 0) unlinkSync(c.path);
  } catch {
    // not empty, or gone: leave it
  }
}
