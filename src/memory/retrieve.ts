/**
 * Recall: the facts relevant to the last messages, for the system prompt of each request. Ranking: BM25 over the
 * fact texts against the recent conversation (0.6), recency (0.2) and the decayed confidence (0.2); facts related
 * to a hit (graph.json, one hop) follow at half their parent's relevance; when room is left, the strongest other
 * facts (decayed confidence ≥ 0.5) fill it. Everything within a token budget: 2 % of the window, at most 1,500.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../protocol/message.ts";
import { decayedScore, HALF_LIFE_MS } from "./compactor.ts";
import type { MemoryStore } from "./memory-store.ts";
import { scopeDir } from "./paths.ts";
import { bm25, tokens } from "./text-match.ts";
import type { Fact, Scope } from "./types.ts";

export const MAX_RECALL_TOKENS = 1_500;
export const RECALL_WINDOW_SHARE = 0.02;
const QUERY_CHARS = 4_000;
const FILL_MIN_SCORE = 0.5;

export const RECALL_HEADER = "Memory: facts remembered from earlier sessions (the user reviews them with /memory). Use them when they are relevant; what the user says now wins over them.";

export function recallBudgetTokens(contextWindow: number): number {
  return Math.max(0, Math.min(MAX_RECALL_TOKENS, Math.floor(contextWindow * RECALL_WINDOW_SHARE)));
}

export interface Recalled {
  text: string | undefined;
  facts: Fact[];
}

export function recall(store: MemoryStore, messages: readonly Message[], contextWindow: number): Recalled {
  const now = store.now();
  const facts = store.facts().filter((f) => f.status === "active" && f.category !== "daily");
  if (!facts.length) return { text: undefined, facts: [] };
  const query = tokens(queryText(messages));
  const docs = facts.map((f) => tokens(`${f.text} ${f.subject ?? ""}`));
  const raw = bm25(query, docs);
  const max = Math.max(...raw, 0);
  const rel = new Map<string, number>(facts.map((f, i) => [f.id, max > 0 ? raw[i]! / max : 0]));
  const graph = { ...readGraph(store, "user"), ...readGraph(store, "project") };
  const direct = new Map(rel);
  for (const f of facts) {
    const r = direct.get(f.id) ?? 0; // one hop: only from direct hits
    if (r <= 0) continue;
    for (const n of graph[f.id] ?? []) if (rel.has(n)) rel.set(n, Math.max(rel.get(n)!, r * 0.5));
  }
  const score = (f: Fact) => 0.6 * (rel.get(f.id) ?? 0) + 0.2 * recency(f, now) + 0.2 * decayedScore(f, now);
  const relevant = facts.filter((f) => (rel.get(f.id) ?? 0) > 0).sort((a, b) => score(b) - score(a));
  const rest = facts.filter((f) => (rel.get(f.id) ?? 0) === 0 && decayedScore(f, now) >= FILL_MIN_SCORE).sort((a, b) => score(b) - score(a));
  const budget = recallBudgetTokens(contextWindow);
  let used = estimateTokens(RECALL_HEADER);
  const chosen: Fact[] = [];
  for (const f of [...relevant, ...rest]) {
    const cost = estimateTokens(line(f));
    if (used + cost > budget) continue;
    used += cost;
    chosen.push(f);
  }
  if (!chosen.length) return { text: undefined, facts: [] };
  return { text: [RECALL_HEADER, ...chosen.map(line)].join("\n"), facts: chosen };
}

function line(f: Fact): string {
  return `- ${f.text.replace(/\s+/g, " ").trim()} [${f.scope}, ${f.category}]`;
}

function estimateTokens(s: string): number {
  return Math.ceil(s.length / 4) + 1;
}

function recency(f: Fact, now: number): number {
  return 0.5 ** (Math.max(0, now - (f.lastUsed ?? f.created)) / HALF_LIFE_MS);
}

function queryText(messages: readonly Message[]): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = messages.length - 1; i >= 0 && size < QUERY_CHARS; i--) {
    const m = messages[i]!;
    if (m.role !== "user" && m.role !== "assistant") continue;
    parts.push(m.content);
    size += m.content.length;
  }
  return parts.join("\n").slice(0, QUERY_CHARS * 2);
}

function readGraph(store: MemoryStore, scope: Scope): Record<string, string[]> {
  try {
    const g = JSON.parse(readFileSync(join(scopeDir(store.paths, scope), "graph.json"), "utf8")) as { edges?: Record<string, string[]> };
    return g.edges && typeof g.edges === "object" ? g.edges : {};
  } catch {
    return {};
  }
}
