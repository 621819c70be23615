/**
 * Atomic writes (a temp file in the same directory, fsynced, then renamed over the target) and reads that never
 * empty a file silently: a file that is not valid JSON or does not match its schema is renamed to
 * `<name>.corrupt-<time>` and reported through `warn`; the caller then starts from an empty document.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { z } from "zod";

export function atomicWrite(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeJson(path: string, value: unknown): void {
  atomicWrite(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The parsed file; `undefined` when it does not exist; a corrupt file is quarantined and `undefined` returned. */
export function readJson<T>(path: string, schema: z.ZodType<T>, warn: (msg: string) => void, now: number): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let problem: string;
  try {
    const r = schema.safeParse(JSON.parse(text));
    if (r.success) return r.data;
    problem = r.error.issues[0]?.message ?? "schema mismatch";
  } catch (err) {
    problem = (err as Error).message;
  }
  const quarantined = `${path}.corrupt-${now}`;
  try {
    renameSync(path, quarantined);
  } catch {
    // already moved by another process: its warning covers it
  }
  warn(`memory file ${path} is corrupt (${problem}); moved to ${quarantined}`);
  return undefined;
}
