/**
 * The one-line-per-skill catalog in the system prompt (progressive disclosure: the bodies load on demand).
 * Its size is bounded by the model's window: over the budget, descriptions are dropped first (least relevant
 * skill first), then the least relevant skills themselves. What was cut is returned so `/skills` can say so.
 *
 * Relevance, most first: active skills, then words shared with the current request, then project over user
 * scope, then discovery order. Pure.
 */
import type { Skill } from "./load-skills.ts";

/** Share of the window (in characters, at ~4 per token) the catalog may take, within fixed bounds. */
export function catalogBudgetChars(contextWindow: number): number {
  const share = Math.floor(contextWindow * 4 * 0.03);
  return Math.max(600, Math.min(30_000, share));
}

export interface Catalog {
  /** The system-prompt text; "" when no skill is offered to the model. */
  text: string;
  /** Listed without their description. */
  shortened: string[];
  /** Not listed at all. */
  dropped: string[];
}

const HEADER =
  "Skills: instructions for specific tasks, loaded on demand. When a task matches a skill below, call the `skill` tool with its name before you start, then follow what it returns. Files the skill mentions are read with `read` at the paths it gives.";

export function buildCatalog(skills: readonly Skill[], o: { budgetChars: number; active: ReadonlySet<string>; request?: string }): Catalog {
  const offered = skills.filter((s) => !s.disableModelInvocation);
  if (!offered.length) return { text: "", shortened: [], dropped: [] };
  const words = wordsOf(o.request ?? "");
  const ranked = offered
    .map((s, i) => ({ s, i, score: (o.active.has(s.name) ? 1000 : 0) + overlap(s, words) * 10 + (s.scope === "project" ? 1 : 0) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((r) => r.s);
  const full = new Set(ranked.map((s) => s.name));
  let kept = ranked.slice();
  const render = () => [HEADER, ...kept.map((s) => (full.has(s.name) ? `- ${s.name}: ${oneLine(s.description)}` : `- ${s.name}`))].join("\n");
  let text = render();
  // Descriptions first, least relevant first.
  for (let i = kept.length - 1; i >= 0 && text.length > o.budgetChars; i--) {
    full.delete(kept[i]!.name);
    text = render();
  }
  while (text.length > o.budgetChars && kept.length > 1) {
    kept = kept.slice(0, -1);
    text = render();
  }
  const keptNames = new Set(kept.map((s) => s.name));
  return {
    text,
    shortened: kept.filter((s) => !full.has(s.name)).map((s) => s.name),
    dropped: ranked.filter((s) => !keptNames.has(s.name)).map((s) => s.name),
  };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 3));
}

function overlap(s: Skill, words: Set<string>): number {
  if (!words.size) return 0;
  let n = 0;
  for (const w of wordsOf(`${s.name.replaceAll("-", " ")} ${s.description}`)) if (words.has(w)) n++;
  return n;
}
