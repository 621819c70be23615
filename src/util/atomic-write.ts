/**
 * Writes a file atomically: a temp file in the target's directory — created exclusively and never through a symlink,
 * with `mode` (default 0600) — fsynced, then renamed over the target. When anything fails the old file is untouched
 * and the temp file is removed. One implementation for every file chatcli owns (settings, tokens, approvals, memory).
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

export function writeFileAtomic(path: string, text: string, opts: { mode?: number; dirMode?: number } = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, ...(opts.dirMode !== undefined ? { mode: opts.dirMode } : {}) });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, opts.mode ?? 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
