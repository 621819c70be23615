/**
 * The store's files under its directory: `index.json` (written atomically) and the history copies
 * `history/<id>.json`. Best effort: a failed write leaves the in-memory store working for this process.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { messageSchema, type Message } from "../../protocol/message.ts";
import { knownFileSchema, type CheckpointIndex } from "./schema.ts";

const EXEC_CACHE_FILE = "exec-cache.json";
const execCacheSchema = z.record(z.string(), knownFileSchema);

/**
 * Writes `index.json` without the pre-exec copies: those can be one entry per project file (megabytes for a
 * 20k-file repo) and are written on their own, asynchronously, by `persistExecCache` (issue 26 #8).
 */
export function persistIndex(dir: string, index: CheckpointIndex): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "index.json");
    const tmp = `${file}.${process.pid}.tmp`;
    const { execCache: _cache, ...rest } = index;
    void _cache;
    writeFileSync(tmp, JSON.stringify(rest), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // best effort: the in-memory store still works for this process
  }
}

/** `persistIndex` without blocking: the exec path, where `blobs` may list every file of a large project. */
export async function persistIndexAsync(dir: string, index: CheckpointIndex): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "index.json");
    const tmp = `${file}.${process.pid}.tmp`;
    const { execCache: _cache, ...rest } = index;
    void _cache;
    await writeFile(tmp, JSON.stringify(rest), { mode: 0o600 });
    await rename(tmp, file);
  } catch {
    // best effort, as persistIndex
  }
}

/** `exec-cache.json`: the pre-exec copies (regenerable: losing the file only costs copying again). */
export async function persistExecCache(dir: string, index: CheckpointIndex): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, EXEC_CACHE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(index.execCache ?? {}), { mode: 0o600 });
    await rename(tmp, file);
  } catch {
    // best effort, as persistIndex
  }
}

/** The saved pre-exec copies, or undefined when there are none (or the file does not parse). */
export function readExecCache(dir: string): CheckpointIndex["execCache"] {
  try {
    return execCacheSchema.parse(JSON.parse(readFileSync(join(dir, EXEC_CACHE_FILE), "utf8")));
  } catch {
    return undefined;
  }
}

/** Writes a checkpoint's history copy (through `redact`) and records its size in `index.historyBytes`. */
export function writeHistoryFile(dir: string, index: CheckpointIndex, id: string, history: Message[], redact?: (jsonText: string) => string): void {
  try {
    const raw = JSON.stringify(history);
    const text = redact ? redact(raw) : raw;
    mkdirSync(join(dir, "history"), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "history", `${id}.json`), text, { mode: 0o600 });
    index.historyBytes[id] = text.length;
  } catch {
    // kept in memory only: this process can still rewind; --resume cannot
  }
}

/** A checkpoint's history copy, or undefined when it is missing or does not parse. */
export function readHistoryFile(dir: string, id: string): Message[] | undefined {
  try {
    return z.array(messageSchema).parse(JSON.parse(readFileSync(join(dir, "history", `${id}.json`), "utf8")));
  } catch {
    return undefined;
  }
}

export function removeHistoryFile(dir: string, id: string): void {
  rmSync(join(dir, "history", `${id}.json`), { force: true });
}
