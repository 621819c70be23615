/**
 * The small graph of related facts (cached in each scope's `graph.json`): two active facts are related when they
 * share a subject, or at least two keywords. Retrieval follows one hop of it.
 */
import { tokens } from "./text-match.ts";
import type { Fact } from "./types.ts";

export function buildGraph(facts: readonly Fact[]): Record<string, string[]> {
  const toks = facts.map((f) => new Set(tokens(f.text)));
  const edges: Record<string, string[]> = {};
  for (let i = 0; i < facts.length; i++) {
    for (let j = i + 1; j < facts.length; j++) {
      const a = facts[i]!;
      const b = facts[j]!;
      const sameSubject = a.subject && b.subject && a.subject.toLowerCase() === b.subject.toLowerCase();
      let shared = 0;
      for (const w of toks[i]!) if (toks[j]!.has(w)) shared++;
      if (!sameSubject && shared < 2) continue;
      (edges[a.id] ??= []).push(b.id);
      (edges[b.id] ??= []).push(a.id);
    }
  }
  return edges;
}
