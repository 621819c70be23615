// Decay (halves every 30 days without use), the compactor (merge + prune, undoable), daily-note expiry and promotion.
import { afterEach, describe, expect, test } from "bun:test";
import { compact, decayedScore, expireDailyNotes, HALF_LIFE_MS } from "../../src/memory/compactor.ts";
import { ingest } from "../../src/memory/reconcile.ts";
import type { Fact } from "../../src/memory/types.ts";
import { tempMemory } from "./helpers.ts";

const DAY = 24 * 3600_000;
let cleanup: () => void = () => undefined;
afterEach(() => cleanup());

const fact = (id: string, text: string, o: Partial<Fact> = {}): Fact => ({ id, text, category: "longterm", scope: "project", confidence: 0.8, created: 0, uses: 0, source: { kind: "user" }, status: "active", ...o });

describe("decay", () => {
  test("the score halves every 30 days without use; a use resets the clock", () => {
    const f = fact("a", "x", { created: 0, confidence: 0.8 });
    expect(decayedScore(f, 0)).toBeCloseTo(0.8);
    expect(decayedScore(f, HALF_LIFE_MS)).toBeCloseTo(0.4);
    expect(decayedScore(f, 2 * HALF_LIFE_MS)).toBeCloseTo(0.2);
    expect(decayedScore({ ...f, lastUsed: 2 * HALF_LIFE_MS }, 2 * HALF_LIFE_MS)).toBeCloseTo(0.8);
  });
});

describe("compactor", () => {
  test("merges near-duplicates and prunes decayed facts; undo brings everything back", () => {
    let now = Date.parse("2026-03-01T00:00:00Z");
    const m = tempMemory(() => now);
    cleanup = m.cleanup;
    m.store.transact("seed", (tx) => {
      tx.putFact(fact("a", "The project uses pnpm workspaces", { created: now, uses: 2 }));
      tx.putFact(fact("b", "the project uses pnpm workspaces.", { created: now + 1, confidence: 0.6, uses: 1 }));
      tx.putFact(fact("c", "The staging host is build-7", { created: now - 4 * HALF_LIFE_MS, confidence: 0.9 }));
      tx.putFact(fact("d", "Releases are cut on Fridays", { created: now }));
    });
    now += 1000;
    const r = compact(m.store, "auto");
    expect(r).toMatchObject({ merged: 1, pruned: 1 });
    const left = m.store.facts().map((f) => f.id).sort();
    expect(left).toEqual(["a", "d"]);
    expect(m.store.facts().find((f) => f.id === "a")!.uses).toBe(3);
    m.store.undo();
    expect(m.store.facts().map((f) => f.id).sort()).toEqual(["a", "b", "c", "d"]);
  });

  test("daily notes expire 24 h after their day; a note that came back on another day is promoted", () => {
    let now = Date.parse("2026-03-01T10:00:00Z");
    const m = tempMemory(() => now);
    cleanup = m.cleanup;
    const note = (text: string) => m.store.transact("d", (tx) => ingest(tx, [{ text, category: "daily", scope: "project", confidence: 0.6, source: { kind: "session" } }], "auto"));
    note("Investigating the flaky login test");
    note("Lunch at noon");
    now = Date.parse("2026-03-02T09:00:00Z");
    note("Still investigating the flaky login test");
    expect(expireDailyNotes(m.store, "auto").expiredDays).toBe(0); // day 1 ended 9 h ago
    now = Date.parse("2026-03-03T00:00:00Z");
    const r = expireDailyNotes(m.store, "auto");
    expect(r.expiredDays).toBe(1);
    expect(r.promoted).toBe(1);
    expect(m.store.readDaily("project", "2026-03-01")).toBeUndefined();
    expect(m.store.readDaily("project", "2026-03-02")).toContain("flaky login");
    expect(m.store.facts().map((f) => [f.category, f.text])).toEqual([["longterm", "Investigating the flaky login test"]]);
    m.store.undo();
    expect(m.store.readDaily("project", "2026-03-01")).toContain("Lunch at noon");
  });
});
