/**
 * A cross-process lock file (`O_EXCL` create) around a read-modify-write of a shared file (the memory files, the
 * permission policy's "always" rules), so two chatcli processes writing at once lose nothing. A lock left by a dead process, or older than STALE_MS, is
 * broken. Synchronous on purpose: the critical sections are a few small file reads and writes.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";

const STALE_MS = 30_000;
const WAIT_MS = 15_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export class LockTimeoutError extends Error {}

export function withLock<T>(lockPath: string, body: () => T): T {
  mkdirSync(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lockPath, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (isStale(lockPath)) {
        rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new LockTimeoutError(`lock ${lockPath} is held by another process`);
      Atomics.wait(sleeper, 0, 0, 5 + Math.floor(Math.random() * 10));
    }
  }
  try {
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return body();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

function isStale(lockPath: string): boolean {
  try {
    const st = statSync(lockPath);
    if (Date.now() - st.mtimeMs > STALE_MS) return true;
    const pid = Number(readFileSync(lockPath, "utf8"));
    if (!Number.isInteger(pid) || pid <= 0) return false; // being written right now
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "ESRCH";
    }
  } catch {
    return false;
  }
}
