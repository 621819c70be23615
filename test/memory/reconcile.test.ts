// Reconciliation: near-duplicates reinforce, a contradiction on the same subject supersedes (history kept),
// rejected items are not proposed again, accepting a proposal that supersedes retires the old fact.
import { afterEach, describe, expect, test } from "bun:test";
import { acceptFact, ingest } from "../../src/memory/reconcile.ts";
import type { Candidate } from "../../src/memory/types.ts";
import { tempMemory } from "./helpers.ts";

const cand = (text: string, extra: Partial<Candidate> = {}): Candidate => ({ text, category: "longterm", scope: "project", confidence: 0.6, source: { kind: "session", sessionId: "s", messages: [0, 2] }, ...extra });
let cleanup: () => void = () => undefined;
afterEach(() => cleanup());

describe("reconcile", () => {
  test("a near-duplicate reinforces instead of adding", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The user prefers tabs for indentation")], "auto"));
    const r = m.store.transact("t", (tx) => ingest(tx, [cand("the user prefers tabs for indentation.")], "auto")).result;
    expect(r.added).toHaveLength(0);
    expect(r.reinforced).toHaveLength(1);
    const facts = m.store.facts();
    expect(facts).toHaveLength(1);
    expect(facts[0]!.reinforced).toBe(1);
    expect(facts[0]!.confidence).toBeGreaterThan(0.6);
  });

  test("the same subject with another value supersedes; the old fact is kept as history", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The user prefers tabs for indentation", { subject: "indentation" })], "auto"));
    const r = m.store.transact("t", (tx) => ingest(tx, [cand("Indent with two spaces from now on", { subject: "Indentation" })], "auto")).result;
    expect(r.superseded).toHaveLength(1);
    const all = m.store.facts();
    const old = all.find((f) => f.text.includes("tabs"))!;
    const neu = all.find((f) => f.text.includes("spaces"))!;
    expect(old.status).toBe("superseded");
    expect(old.supersededBy).toBe(neu.id);
    expect(neu.supersedes).toBe(old.id);
    expect(neu.status).toBe("active");
  });

  test("without subjects, a fact that differs in its object supersedes (heuristic)", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The project database is Postgres 15")], "auto"));
    m.store.transact("t", (tx) => ingest(tx, [cand("The project database is MySQL 8")], "auto"));
    expect(m.store.facts().map((f) => f.status).sort()).toEqual(["active", "superseded"]);
    // Unrelated facts stay side by side.
    m.store.transact("t", (tx) => ingest(tx, [cand("The CI runs on GitHub Actions")], "auto"));
    expect(m.store.facts().filter((f) => f.status === "active")).toHaveLength(2);
  });

  test("propose: the new fact waits in the inbox; accepting it supersedes the old one then", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The user prefers tabs", { subject: "indentation" })], "auto"));
    m.store.transact("t", (tx) => ingest(tx, [cand("The user prefers spaces", { subject: "indentation" })], "propose"));
    expect(m.store.facts().map((f) => f.status).sort()).toEqual(["active", "proposed"]);
    const proposed = m.store.facts().find((f) => f.status === "proposed")!;
    m.store.transact("accept", (tx) => acceptFact(tx, tx.fact(proposed.id)!));
    expect(m.store.facts().find((f) => f.text.includes("tabs"))!.status).toBe("superseded");
    expect(m.store.facts().find((f) => f.text.includes("spaces"))!.status).toBe("active");
  });

  test("a rejected proposal is not proposed again; the user saying it outright still stores it", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The user likes dark themes")], "propose"));
    const f = m.store.facts()[0]!;
    m.store.transact("reject", (tx) => tx.putFact({ ...f, status: "rejected" }));
    const again = m.store.transact("t", (tx) => ingest(tx, [cand("The user likes dark themes")], "propose")).result;
    expect(again.skipped).toBe(1);
    m.store.transact("t", (tx) => ingest(tx, [cand("The user likes dark themes", { confidence: 0.9 })], "direct"));
    expect(m.store.facts()[0]!.status).toBe("active");
  });

  test("profile facts also fill profile.json; daily notes go to daily/YYYY-MM-DD.md", () => {
    const m = tempMemory();
    cleanup = m.cleanup;
    m.store.transact("t", (tx) => ingest(tx, [cand("The user prefers Vim", { category: "profile", scope: "user", subject: "editor" }), cand("Fixed the login bug", { category: "daily" })], "auto"));
    expect(m.store.read("user").profile.editor!.value).toBe("The user prefers Vim");
    expect(m.store.readDaily("project", "2026-03-01")).toContain("- Fixed the login bug");
  });
});
