/**
 * Depth-first directory walk shared by tree, glob and the search fallback. Honors .gitignore files (those of the
 * ancestors between the project root and the walk root too, plus .git/info/exclude), always skips `.git`, does not
 * follow symlinked directories (no loops, no escapes), and visits entries sorted: directories first, then by name.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { IgnoreStack, parseGitignore } from "./gitignore.ts";

export interface WalkEntry {
  abs: string;
  /** Relative to the walk root, `/`-separated. */
  rel: string;
  name: string;
  isDir: boolean;
  isSymlink: boolean;
  /** 1 for the walk root's children. */
  depth: number;
}

/** `true` to go on, `"prune"` to skip a directory's contents, `false` to stop the whole walk. */
export type VisitResult = boolean | "prune";

export interface WalkOptions {
  /** Where .gitignore lookup starts (normally the project root); ignored when the walk root is not inside it. */
  ignoreBase?: string;
  maxDepth?: number;
  /** Directory names never entered (listed by tree but not expanded). Default: none besides `.git`. */
  skipDirs?: readonly string[];
  respectGitignore?: boolean;
  signal?: AbortSignal;
  /** Absolute directories never listed nor entered (chatcli's secret dirs: tool/permission/chatcli-secrets.ts). */
  skipPaths?: readonly string[];
}

const toPosix = (p: string) => p.split(path.sep).join("/");

async function loadIgnore(dir: string): Promise<ReturnType<typeof parseGitignore>> {
  try {
    return parseGitignore(await readFile(path.join(dir, ".gitignore"), "utf8"));
  } catch {
    return [];
  }
}

/** The ignore stack in effect at `root`: rules of .git/info/exclude and every .gitignore from `base` down to `root`. */
export async function ignoreStackFor(root: string, base: string | undefined): Promise<{ stack: IgnoreStack; base: string }> {
  let stack = new IgnoreStack();
  const rel = base ? path.relative(base, root) : "..";
  const inside = base !== undefined && (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel)));
  const effectiveBase = inside && base ? base : root;
  try {
    stack = stack.push("", parseGitignore(await readFile(path.join(effectiveBase, ".git", "info", "exclude"), "utf8")));
  } catch {
    // no exclude file
  }
  stack = stack.push("", await loadIgnore(effectiveBase));
  if (inside && rel !== "") {
    const parts = toPosix(rel).split("/");
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join("/");
      stack = stack.push(sub, await loadIgnore(path.join(effectiveBase, sub)));
    }
  }
  return { stack, base: effectiveBase };
}

/** True when `root` itself is excluded by the ignore rules above it. */
export function isIgnoredRoot(stack: IgnoreStack, base: string, root: string): boolean {
  const rel = toPosix(path.relative(base, root));
  if (rel === "") return false;
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    if (stack.isIgnored(parts.slice(0, i).join("/"), true)) return true;
  }
  return false;
}

export async function walk(root: string, opts: WalkOptions, visit: (e: WalkEntry) => VisitResult | Promise<VisitResult>): Promise<void> {
  const respect = opts.respectGitignore !== false;
  const skip = new Set(opts.skipDirs ?? []);
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  const { stack: rootStack, base } = respect ? await ignoreStackFor(root, opts.ignoreBase) : { stack: new IgnoreStack(), base: root };
  const baseRel = toPosix(path.relative(base, root));
  let stopped = false;

  const recurse = async (dir: string, rel: string, depth: number, stack: IgnoreStack): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => {
      const ad = a.isDirectory() ? 0 : 1;
      const bd = b.isDirectory() ? 0 : 1;
      return ad - bd || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    });
    for (const d of entries) {
      if (stopped || opts.signal?.aborted) {
        stopped = true;
        return;
      }
      if (d.name === ".git") continue;
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const isDir = d.isDirectory();
      if (respect) {
        const fromBase = baseRel ? `${baseRel}/${childRel}` : childRel;
        if (stack.isIgnored(fromBase, isDir)) continue;
      }
      const abs = path.join(dir, d.name);
      if (isDir && opts.skipPaths?.includes(abs)) continue;
      const entry: WalkEntry = { abs, rel: childRel, name: d.name, isDir, isSymlink: d.isSymbolicLink(), depth };
      const r = await visit(entry);
      if (r === false) {
        stopped = true;
        return;
      }
      if (isDir && r !== "prune" && depth < maxDepth && !skip.has(d.name)) {
        const childStack = respect ? stack.push(baseRel ? `${baseRel}/${childRel}` : childRel, await loadIgnore(abs)) : stack;
        await recurse(abs, childRel, depth + 1, childStack);
      }
    }
  };

  await recurse(root, "", 1, rootStack);
}

/** First `n` bytes contain a NUL: treat as binary (the same sniff git and ripgrep use). */
export function looksBinary(bytes: Uint8Array, n = 8000): boolean {
  const end = Math.min(bytes.length, n);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}
