/**
 * The memory journal (`<home>/memory/journal.jsonl`): every change to a memory document, appended before the
 * document is written, with the value before and after. `/memory undo` replays the last transaction backwards
 * (and journals that as a transaction of its own that `undoes` it), so a consolidation or a deletion is never final.
 * A line that does not parse (a torn write) is skipped.
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { SCOPES } from "./types.ts";

export const DOCS = ["facts", "profile", "topics", "projects", "daily"] as const;
export type DocName = (typeof DOCS)[number];

export const journalEntrySchema = z.object({
  txn: z.string(),
  at: z.number(),
  reason: z.string(),
  scope: z.enum(SCOPES),
  doc: z.enum(DOCS),
  key: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  undoes: z.string().optional(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;

export function appendJournal(path: string, entries: readonly JournalEntry[]): void {
  if (!entries.length) return;
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, entries.map((e) => JSON.stringify(e)).join("\n") + "\n", { mode: 0o600 });
}

export function readJournal(path: string): JournalEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const out: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = journalEntrySchema.safeParse(JSON.parse(line));
      if (r.success) out.push(r.data);
    } catch {
      // torn line
    }
  }
  return out;
}

/** The entries of the newest transaction that is neither an undo nor undone, or undefined. */
export function lastUndoable(entries: readonly JournalEntry[]): JournalEntry[] | undefined {
  const undone = new Set(entries.flatMap((e) => (e.undoes ? [e.undoes] : [])));
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.undoes || undone.has(e.txn)) continue;
    return entries.filter((x) => x.txn === e.txn);
  }
  return undefined;
}
