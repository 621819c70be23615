/**
 * Reconciliation: what a new candidate does to the facts already known in its scope.
 * - A near-duplicate (keyword overlap ≥ NEAR_DUPLICATE) reinforces the existing fact (or, when the user rejected
 *   it before, is dropped unless the user says it outright).
 * - A fact on the same subject that says something else (the model named the same `subject`, or the two share
 *   their keywords but one or two) supersedes the old one: the old fact stays, marked `superseded`, as history.
 * - Anything else is a new fact: `active`, or `proposed` (the inbox) when the mode asks the user first.
 */
import { newFactId, type MemoryTx } from "./memory-store.ts";
import { jaccard, tokens } from "./text-match.ts";
import { CONFIDENCE, type Candidate, type Fact } from "./types.ts";

export const NEAR_DUPLICATE = 0.75;

export type Placement = "propose" | "auto" | "direct";

export interface IngestResult {
  added: Fact[];
  reinforced: Fact[];
  superseded: Fact[];
  skipped: number;
}

export function findNearDuplicate(c: Pick<Candidate, "text">, facts: readonly Fact[]): Fact | undefined {
  const ct = tokens(c.text);
  let best: { f: Fact; s: number } | undefined;
  for (const f of facts) {
    const s = norm(f.text) === norm(c.text) ? 1 : jaccard(ct, tokens(f.text));
    if (s >= NEAR_DUPLICATE && (!best || s > best.s)) best = { f, s };
  }
  return best?.f;
}

export function findContradiction(c: Pick<Candidate, "text" | "subject">, facts: readonly Fact[]): Fact | undefined {
  const ct = new Set(tokens(c.text));
  for (const f of facts) {
    if (c.subject && f.subject) {
      if (norm(c.subject) === norm(f.subject)) return f;
      continue;
    }
    const ft = new Set(tokens(f.text));
    let shared = 0;
    for (const w of ct) if (ft.has(w)) shared++;
    const onlyNew = ct.size - shared;
    const onlyOld = ft.size - shared;
    if (shared >= 2 && onlyNew >= 1 && onlyOld >= 1 && onlyNew <= 2 && onlyOld <= 2) return f;
  }
  return undefined;
}

/** Applies candidates inside a transaction. `direct`: the user said it, so it is active in any mode. */
export function ingest(tx: MemoryTx, candidates: readonly Candidate[], placement: Placement): IngestResult {
  const out: IngestResult = { added: [], reinforced: [], superseded: [], skipped: 0 };
  const now = tx.now;
  for (const c of candidates) {
    const immediate = placement !== "propose";
    if (immediate && (c.category === "daily" || c.category === "topic" || c.category === "project")) {
      applyTracker(tx, c, now);
      continue;
    }
    const pool = tx.facts(c.scope).filter((f) => f.status !== "superseded" && (f.category === c.category || sameKind(f, c)));
    const dup = findNearDuplicate(c, pool);
    if (dup) {
      if (dup.status === "rejected" && placement !== "direct") {
        out.skipped++;
        continue;
      }
      const status = dup.status === "active" || placement === "direct" ? "active" : dup.status === "rejected" ? "proposed" : dup.status;
      const updated: Fact = { ...dup, status, confidence: Math.max(dup.confidence, Math.min(1, Math.max(c.confidence, dup.confidence + 0.05))), lastUsed: now, reinforced: (dup.reinforced ?? 0) + 1 };
      tx.putFact(updated);
      out.reinforced.push(updated);
      if (status === "active" && dup.status !== "active") activate(tx, updated, out);
      continue;
    }
    const old = findContradiction(c, pool.filter((f) => f.status === "active"));
    const fact: Fact = {
      id: newFactId(now),
      text: c.text,
      category: c.category,
      scope: c.scope,
      confidence: old && c.confidence < CONFIDENCE.correction && placement === "direct" ? CONFIDENCE.correction : c.confidence,
      created: now,
      uses: 0,
      source: c.source,
      status: placement === "propose" ? "proposed" : "active",
      ...(c.subject ? { subject: c.subject } : {}),
      ...(old ? { supersedes: old.id } : {}),
    };
    tx.putFact(fact);
    out.added.push(fact);
    if (fact.status === "active") activate(tx, fact, out);
  }
  return out;
}

/** A proposed fact becomes active (accept): the fact it supersedes becomes history; daily/topic/project land in their files. */
export function acceptFact(tx: MemoryTx, f: Fact): IngestResult {
  const out: IngestResult = { added: [], reinforced: [], superseded: [], skipped: 0 };
  if (f.category === "daily" || f.category === "topic" || f.category === "project") {
    applyTracker(tx, f, tx.now);
    tx.removeFact(f);
    return out;
  }
  const active: Fact = { ...f, status: "active" };
  tx.putFact(active);
  activate(tx, active, out);
  return out;
}

function activate(tx: MemoryTx, f: Fact, out: IngestResult): void {
  if (f.supersedes) {
    const old = tx.fact(f.supersedes);
    if (old && old.status === "active") {
      const hist: Fact = { ...old, status: "superseded", supersededBy: f.id };
      tx.putFact(hist);
      out.superseded.push(hist);
    }
  }
  if (f.category === "profile") {
    const key = (f.subject ?? tokens(f.text).slice(0, 2).join(" ")) || f.id;
    tx.set("user", "profile", key, { value: f.text, updated: tx.now, factId: f.id });
  }
}

function applyTracker(tx: MemoryTx, c: Pick<Candidate, "text" | "category" | "scope" | "subject">, now: number): void {
  if (c.category === "daily") {
    const date = new Date(now).toISOString().slice(0, 10);
    const prior = (tx.get(c.scope, "daily", date) as string | null) ?? `# ${date}\n\n`;
    const line = `- ${c.text.replace(/\s+/g, " ").trim()}`;
    if (!prior.split("\n").includes(line)) tx.set(c.scope, "daily", date, `${prior}${line}\n`);
    return;
  }
  const doc = c.category === "topic" ? "topics" : "projects";
  const name = (c.subject ?? c.text).replace(/\s+/g, " ").trim().slice(0, 80);
  const key = norm(name);
  const prior = tx.get(c.scope, doc, key) as { name: string; note?: string; count: number; lastSeen: number } | null;
  const note = c.subject && c.subject !== c.text ? c.text : prior?.note;
  tx.set(c.scope, doc, key, { name: prior?.name ?? name, ...(note ? { note } : {}), count: (prior?.count ?? 0) + 1, lastSeen: now });
}

function sameKind(f: Fact, c: Candidate): boolean {
  const durable = (x: string) => x === "longterm" || x === "profile";
  return durable(f.category) && durable(c.category);
}

function norm(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}
