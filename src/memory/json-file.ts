/**
 * Atomic writes (a temp file in the same directory, fsynced, then renamed over the target) and reads that never
 * empty a file silently: a file that is not valid JSON or does not match its schema is renamed to
 * `<name>.corrupt-<time>` and reported through `warn`; the caller then starts from an empty document.
 */
import { readFileSync, renameSync } from "node:fs";
import type { z } from "zod";
import { writeFileAtomic } from "../util/atomic-write.ts";

export function atomicWrite(path: string, text: string): void {
  writeFileAtomic(path, text);
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
