/**
 * The store's files under its directory: `index.json` (written atomically) and the history copies
 * `history/<id>.json`. Best effort: a failed write leaves the in-memory store working for this process.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { messageSchema, type Message } from "../../protocol/message.ts";
import type { CheckpointIndex } from "./schema.ts";

export function persistIndex(dir: string, index: CheckpointIndex): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "index.json");
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(index), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // best effort: the in-memory store still works for this process
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
