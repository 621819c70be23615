/**
 * Path policy for the file tools. Every path a tool touches goes through `resolveRead` or `resolveWrite`:
 * resolved against the project root, `~` expanded, made real with realpath (for a file that does not exist yet,
 * the realpath of its nearest existing parent plus the rest), then required to sit inside an allowed root.
 * Symlinks are resolved before the check, so a link inside the project that points outside is refused.
 *
 * Read roots = write roots + extra read paths (CHATCLI_AGENT_EXTRA_READ_PATHS, the session workspace).
 * Write roots = project root + extra write paths.
 * System paths (/etc, /proc, /sys, /dev, /boot, /root, C:\Windows, …) are refused even inside an allowed root,
 * unless that root itself lies inside the system directory (a project kept under /root/work stays usable).
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export type PathErrorCode = "outside_project" | "system_path";

export class PathError extends Error {
  override readonly name = "PathError";
  constructor(
    readonly code: PathErrorCode,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export interface PathPolicy {
  /** Absolute real path allowed for reading, or throws PathError. */
  resolveRead(p: string): string;
  /** Absolute real path allowed for writing, or throws PathError. */
  resolveWrite(p: string): string;
  addReadPath(p: string): void;
  addWritePath(p: string): void;
  /** The current roots (real paths), for prompts and diagnostics. */
  roots?(): { read: string[]; write: string[] };
}

export interface PathPolicyOptions {
  projectRoot: string;
  extraReadPaths: string[];
  extraWritePaths?: string[];
  /** Defaults to the running platform; tests pass "win32" to check the Windows rules. */
  platform?: NodeJS.Platform;
}

const POSIX_SYSTEM_DIRS = ["/etc", "/proc", "/sys", "/dev", "/boot", "/root", "/sbin", "/usr/sbin", "/var/run", "/run"];
const WINDOWS_SYSTEM_DIRS = [
  "c:\\windows",
  "c:\\program files",
  "c:\\program files (x86)",
  "c:\\programdata",
  "c:\\system volume information",
  "c:\\$recycle.bin",
];

/** Split CHATCLI_AGENT_EXTRA_READ_PATHS: entries separated by the OS path delimiter (`:` or `;`) or commas. */
export function parseExtraPaths(value: string | undefined): string[] {
  if (!value) return [];
  const sep = path.delimiter === ";" ? /[;,]/ : /[:,]/;
  return value
    .split(sep)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** realpath of `abs`, or of its nearest existing ancestor with the missing segments appended. */
export function realpathLenient(abs: string, P: typeof path.posix = path): string {
  let current = abs;
  const missing: string[] = [];
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return missing.length ? P.join(real, ...missing.reverse()) : real;
    } catch {
      const parent = P.dirname(current);
      if (parent === current) return abs;
      missing.push(P.basename(current));
      current = parent;
    }
  }
}

export function createPathPolicy(opts: PathPolicyOptions): PathPolicy {
  const win = (opts.platform ?? process.platform) === "win32";
  const P = win ? path.win32 : path.posix;
  const norm = (p: string) => (win ? p.toLowerCase() : p);
  const sep = win ? "\\" : "/";
  const projectRoot = realpathLenient(P.resolve(opts.projectRoot), P);
  const writeRoots: string[] = [projectRoot];
  const readRoots: string[] = [];
  const systemDirs = win ? WINDOWS_SYSTEM_DIRS : POSIX_SYSTEM_DIRS;

  const isInside = (child: string, root: string): boolean => {
    const c = norm(child);
    const r = norm(root);
    if (c === r) return true;
    return c.startsWith(r.endsWith(sep) ? r : r + sep);
  };

  const toAbs = (p: string): string => {
    let s = p.trim();
    if (s === "~" || s.startsWith("~/") || s.startsWith("~\\")) s = P.join(homedir(), s.slice(1));
    return P.resolve(projectRoot, s);
  };

  const addUnique = (list: string[], p: string) => {
    const real = realpathLenient(toAbs(p), P);
    if (!list.some((r) => norm(r) === norm(real))) list.push(real);
  };

  for (const p of opts.extraWritePaths ?? []) addUnique(writeRoots, p);
  for (const p of opts.extraReadPaths) addUnique(readRoots, p);

  const systemDirOf = (real: string): string | undefined => systemDirs.find((d) => isInside(real, d));

  const check = (p: string, mode: "read" | "write"): string => {
    const abs = toAbs(p);
    const real = realpathLenient(abs, P);
    const roots = mode === "read" ? [...writeRoots, ...readRoots] : writeRoots;
    const containing = roots.filter((r) => isInside(real, r));
    const sys = systemDirOf(real);
    if (sys && !containing.some((r) => isInside(r, sys))) {
      throw new PathError(
        "system_path",
        p,
        `Refused: "${p}" resolves to ${real}, a system path (${sys}). Tools may not ${mode} system directories.`,
      );
    }
    if (containing.length) return real;
    const linkNote = norm(real) !== norm(abs) ? ` (it resolves through a symlink to ${real})` : "";
    const hint =
      mode === "read"
        ? `To allow reading it, add its directory to CHATCLI_AGENT_EXTRA_READ_PATHS (separated by "${P.delimiter}").`
        : "Writes are limited to the project root; ask the user to run the tool from the right project.";
    throw new PathError(
      "outside_project",
      p,
      `Refused: "${p}" is outside the project${linkNote}. Allowed ${mode} roots: ${roots.join(", ")}. ${hint}`,
    );
  };

  return {
    resolveRead: (p) => check(p, "read"),
    resolveWrite: (p) => check(p, "write"),
    addReadPath: (p) => addUnique(readRoots, p),
    addWritePath: (p) => addUnique(writeRoots, p),
    roots: () => ({ read: [...writeRoots, ...readRoots], write: [...writeRoots] }),
  };
}
