/**
 * A bounded scan of the project's files (size + mtime in ns) used around `exec` to find what a command changed.
 * Asynchronous (issue 26 #8: two synchronous scans of 20k files froze the UI around every exec): directory
 * reads and stats go through fs/promises, at most `concurrency` at a time, so the event loop keeps turning
 * (spinner, keys) while it runs. The caller awaits it before the command starts, so the "before" map is still
 * complete. Skips `.git`, `node_modules` and .gitignored paths; stops at `maxFiles` (the result says it was cut).
 */
import { statSync, type Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
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

export interface ScanOptions {
  maxFiles?: number;
  maxDepth?: number;
  skip?: (abs: string) => boolean;
  /** File-system calls in flight at once (default 32). */
  concurrency?: number;
}

const ALWAYS_SKIP = new Set([".git", "node_modules"]);

export function statFile(abs: string): FileStat | undefined {
  try {
    const s = statSync(abs, { bigint: true });
    if (!s.isFile()) return undefined;
    return { size: Number(s.size), mtimeNs: s.mtimeNs.toString() };
  } catch {
    return undefined;
  }
}

export async function statFileAsync(abs: string): Promise<FileStat | undefined> {
  try {
    const s = await stat(abs, { bigint: true });
    if (!s.isFile()) return undefined;
    return { size: Number(s.size), mtimeNs: s.mtimeNs.toString() };
  } catch {
    return undefined;
  }
}

export async function scanProject(root: string, opts: ScanOptions = {}): Promise<ScanResult> {
  const maxFiles = opts.maxFiles ?? 20_000;
  const maxDepth = opts.maxDepth ?? 32;
  const limit = limiter(opts.concurrency ?? 32);
  const files = new Map<string, FileStat>();
  let reserved = 0;
  let truncated = false;
  const rulesOf = async (path: string) => {
    const text = await limit(() => readFile(path, "utf8")).catch(() => "");
    return text ? parseGitignore(text) : [];
  };
  const rootRules = new IgnoreStack().push("", await rulesOf(join(root, ".git", "info", "exclude"))).push("", await rulesOf(join(root, ".gitignore")));

  const walk = async (dir: string, rel: string, depth: number, rules: IgnoreStack): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await limit(() => readdir(dir, { withFileTypes: true }));
    } catch {
      return;
    }
    const pending: Array<Promise<unknown>> = [];
    for (const d of entries) {
      if (truncated) break;
      if (ALWAYS_SKIP.has(d.name)) continue;
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const abs = join(dir, d.name);
      const isDir = d.isDirectory();
      if (rules.isIgnored(childRel, isDir) || opts.skip?.(abs)) continue;
      if (isDir) {
        if (depth < maxDepth) pending.push(rulesOf(join(abs, ".gitignore")).then((r) => walk(abs, childRel, depth + 1, rules.push(childRel, r))));
        continue;
      }
      if (!d.isFile()) continue; // symlinks and specials are never snapshotted
      if (reserved >= maxFiles) {
        truncated = true;
        break;
      }
      reserved++;
      pending.push(
        limit(() => statFileAsync(abs)).then((st) => {
          if (st) files.set(abs, st);
        }),
      );
    }
    await Promise.all(pending);
  };
  await walk(root, "", 1, rootRules);
  return { files, truncated };
}

export function sameStat(a: FileStat | undefined, b: FileStat | undefined): boolean {
  return a !== undefined && b !== undefined && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** Runs at most `n` of the given tasks at once, in call order (a finished task hands its slot to the next). */
export function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
