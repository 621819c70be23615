/**
 * Decay, compaction and daily-note expiry. Scores halve every 30 days without use; the compactor (every 6 h)
 * merges near-duplicate active facts and prunes those whose score fell below PRUNE_BELOW; daily notes expire
 * 24 h after their day ends unless promoted (a note that came back on two different days becomes a fact).
 * Every change goes through the store's journal, so `undo` brings anything back.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { MemoryStore, MemoryTx } from "./memory-store.ts";
import { scopeDir } from "./paths.ts";
import { findNearDuplicate, ingest, type Placement } from "./reconcile.ts";
import { CONFIDENCE, SCOPES, type Fact, type Scope } from "./types.ts";

export const HALF_LIFE_MS = 30 * 24 * 3600_000;
export const COMPACT_EVERY_MS = 6 * 3600_000;
export const DAILY_TTL_MS = 24 * 3600_000;
export const PRUNE_BELOW = 0.15;
const DAY_MS = 24 * 3600_000;

export function decayedScore(f: Pick<Fact, "confidence" | "created" | "lastUsed">, now: number): number {
  const idle = Math.max(0, now - (f.lastUsed ?? f.created));
  return f.confidence * 0.5 ** (idle / HALF_LIFE_MS);
}

export interface CompactionReport {
  merged: number;
  pruned: number;
  expiredDays: number;
  promoted: number;
}

/** One compaction pass (merge + prune + expiry). `placement` says where promoted notes go (inbox or active). */
export function compact(store: MemoryStore, placement: Placement): CompactionReport {
  const report: CompactionReport = { merged: 0, pruned: 0, expiredDays: 0, promoted: 0 };
  store.transact("compaction", (tx) => {
    const now = tx.now;
    for (const scope of SCOPES) {
      const active = tx.facts(scope).filter((f) => f.status === "active");
      const gone = new Set<string>();
      for (const f of active) {
        if (gone.has(f.id)) continue;
        const dup = findNearDuplicate(f, active.filter((o) => o.id !== f.id && !gone.has(o.id) && o.category === f.category));
        if (!dup) continue;
        const [keep, drop] = f.confidence > dup.confidence || (f.confidence === dup.confidence && f.created <= dup.created) ? [f, dup] : [dup, f];
        tx.putFact({ ...keep, uses: keep.uses + drop.uses, reinforced: (keep.reinforced ?? 0) + (drop.reinforced ?? 0) + 1, lastUsed: Math.max(keep.lastUsed ?? keep.created, drop.lastUsed ?? drop.created) });
        tx.removeFact(drop);
        gone.add(drop.id);
        report.merged++;
      }
      for (const f of active) {
        if (gone.has(f.id) || decayedScore(f, now) >= PRUNE_BELOW) continue;
        tx.removeFact(f);
        report.pruned++;
      }
    }
    const r = expireDaily(store, tx, placement);
    report.expiredDays += r.expiredDays;
    report.promoted += r.promoted;
  });
  return report;
}

/** Daily-note expiry alone (cheap when nothing is due: a directory listing per scope). */
export function expireDailyNotes(store: MemoryStore, placement: Placement): CompactionReport {
  const due = SCOPES.some((s) => dueDays(store, s, store.now()).length > 0);
  if (!due) return { merged: 0, pruned: 0, expiredDays: 0, promoted: 0 };
  let out = { expiredDays: 0, promoted: 0 };
  store.transact("daily expiry", (tx) => {
    out = expireDaily(store, tx, placement);
  });
  return { merged: 0, pruned: 0, ...out };
}

function expireDaily(store: MemoryStore, tx: MemoryTx, placement: Placement): { expiredDays: number; promoted: number } {
  let expiredDays = 0;
  let promoted = 0;
  for (const scope of SCOPES) {
    const days = listDays(store, scope);
    const due = dueDays(store, scope, tx.now);
    if (!due.length) continue;
    const linesOf = (d: string) => ((tx.get(scope, "daily", d) as string | null) ?? "").split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2).trim());
    for (const d of due) {
      for (const line of linesOf(d)) {
        const elsewhere = days.filter((o) => o !== d).flatMap(linesOf).map((text, i) => ({ text, id: String(i) }));
        if (!findNearDuplicate({ text: line }, elsewhere.map((e) => ({ ...e, category: "daily", scope, confidence: 0, created: 0, uses: 0, source: { kind: "user" }, status: "active" }) as Fact))) continue;
        const r = ingest(tx, [{ text: line, category: "longterm", scope, confidence: CONFIDENCE.extracted, source: { kind: "session" } }], placement);
        promoted += r.added.length;
      }
      tx.set(scope, "daily", d, null);
      expiredDays++;
    }
  }
  return { expiredDays, promoted };
}

function listDays(store: MemoryStore, scope: Scope): string[] {
  try {
    return readdirSync(join(scopeDir(store.paths, scope), "daily"))
      .map((n) => /^(\d{4}-\d{2}-\d{2})\.md$/.exec(n)?.[1])
      .filter((d): d is string => d !== undefined)
      .sort();
  } catch {
    return [];
  }
}

function dueDays(store: MemoryStore, scope: Scope, now: number): string[] {
  return listDays(store, scope).filter((d) => now - (Date.parse(`${d}T00:00:00Z`) + DAY_MS) >= DAILY_TTL_MS);
}
