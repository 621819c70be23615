/**
 * Prompt history, persisted per project as JSON lines (one JSON string per entry, so multi-line prompts survive).
 * Bad lines are skipped, never fatal; write failures are swallowed (history is a convenience).
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";

const MAX_ENTRIES = 1000;
const entrySchema = z.string();

export class PromptHistory {
  private entries: string[] = [];
  /** Index into entries while browsing with ↑/↓; entries.length = not browsing. */
  private cursor = 0;
  private draft = "";

  constructor(private readonly file: string) {
    this.entries = loadHistory(file);
    this.cursor = this.entries.length;
  }

  get all(): readonly string[] {
    return this.entries;
  }

  add(text: string): void {
    const t = text.trim();
    if (!t) return;
    if (this.entries[this.entries.length - 1] !== t) {
      this.entries.push(t);
      if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
      try {
        mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
        appendFileSync(this.file, JSON.stringify(t) + "\n", { mode: 0o600 });
      } catch {
        /* history is best effort */
      }
    }
    this.cursor = this.entries.length;
  }

  /** ↑: returns the older entry, or null at the oldest. `current` is kept as the draft. */
  prev(current: string): string | null {
    if (this.cursor === this.entries.length) this.draft = current;
    if (this.cursor === 0) return null;
    this.cursor--;
    return this.entries[this.cursor] ?? null;
  }

  /** ↓: newer entry, then the draft; null when not browsing. */
  next(): string | null {
    if (this.cursor >= this.entries.length) return null;
    this.cursor++;
    return this.cursor === this.entries.length ? this.draft : (this.entries[this.cursor] ?? "");
  }

  resetBrowse(): void {
    this.cursor = this.entries.length;
  }

  /** Reverse search: the newest entry containing `query` strictly older than index `before`. */
  search(query: string, before = this.entries.length): { index: number; text: string } | null {
    if (!query) return null;
    const q = query.toLowerCase();
    for (let i = Math.min(before, this.entries.length) - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.toLowerCase().includes(q)) return { index: i, text: e };
    }
    return null;
  }
}

export function loadHistory(file: string): string[] {
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of raw.split("\n")) {
    if (!line) continue;
    try {
      const r = entrySchema.safeParse(JSON.parse(line));
      if (r.success) out.push(r.data);
    } catch {
      /* skip a torn line */
    }
  }
  return out.slice(-MAX_ENTRIES);
}
