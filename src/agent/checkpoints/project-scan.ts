/**
 * A synchronous, bounded scan of the project's files (size + mtime in ns) used around `exec` to find what a
 * command changed. Synchronous on purpose: the "before" map must be complete before the command starts.
 * Skips `.git`, `node_modules` and .gitignored paths; stops at `maxFiles` (the result says it was cut).
 */
import { readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { IgnoreStack, parseGitignore } from "../../tool/builtin/gitignore.ts";

export interface FileStat {
  size: number;
  mtimeNs: string;
}

export interface ScanResult {
  files: Map<string, FileStat>;
  /** The walk stopped at the file limit: files past it are not tracked. */
  truncated: boolean;
}

const ALWAYS_SKIP = new Set([".git", "node_modules"]);

function ignoreRules(dir: string): ReturnType<typeof parseGitignore> {
  try {
    return parseGitignore(readFileSync(join(dir, ".gitignore"), "utf8"));
  } catch {
    return [];
  }
}

export function statFile(abs: string): FileStat | undefined {
  try {
    const s = statSync(abs, { bigint: true });
    if (!s.isFile()) return undefined;
    return { size: Number(s.size), mtimeNs: s.mtimeNs.toString() };
  } catch {
    return undefined;
  }
}

export function scanProject(root: string, opts: { maxFiles?: number; maxDepth?: number; skip?: (abs: string) => boolean } = {}): ScanResult {
  const maxFiles = opts.maxFiles ?? 20_000;
  const maxDepth = opts.maxDepth ?? 32;
  const files = new Map<string, FileStat>();
  let truncated = false;
  let stack = new IgnoreStack();
  try {
    stack = stack.push("", parseGitignore(readFileSync(join(root, ".git", "info", "exclude"), "utf8")));
  } catch {
    // no exclude file
  }
  stack = stack.push("", ignoreRules(root));

  const recurse = (dir: string, rel: string, depth: number, rules: IgnoreStack): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (truncated) return;
      if (ALWAYS_SKIP.has(d.name)) continue;
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const abs = join(dir, d.name);
      const isDir = d.isDirectory();
      if (rules.isIgnored(childRel, isDir) || opts.skip?.(abs)) continue;
      if (isDir) {
        if (depth < maxDepth) recurse(abs, childRel, depth + 1, rules.push(childRel, ignoreRules(abs)));
        continue;
      }
      if (!d.isFile()) continue; // symlinks and specials are never snapshotted
      if (files.size >= maxFiles) {
        truncated = true;
        return;
      }
      const st = statFile(abs);
      if (st) files.set(abs, st);
    }
  };
  recurse(root, "", 1, stack);
  return { files, truncated };
}

export function sameStat(a: FileStat | undefined, b: FileStat | undefined): boolean {
  return a !== undefined && b !== undefined && a.size === b.size && a.mtimeNs === b.mtimeNs;
}
