/**
 * Migration of a legacy MEMORY.md into facts, with a backup: the seed's `<home>/memory/MEMORY.md` (any file
 * there without our generated marker) and ours, the `<home>/MEMORY.md` workspace file the system prompt used to
 * carry whole. The original is copied to `<name>.bak-<time>` first; ours is then moved aside (its facts are
 * recalled from now on, so it must not also be sent whole). One journaled transaction: `undo` takes it back.
 */
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_MARKER } from "./markdown-view.ts";
import type { MemoryStore } from "./memory-store.ts";
import { ingest } from "./reconcile.ts";
import { CONFIDENCE, type Candidate, type Category, type Scope } from "./types.ts";

export interface MigrationResult {
  file: string;
  backup: string;
  facts: number;
}

export function migrateLegacy(store: MemoryStore): MigrationResult[] {
  const out: MigrationResult[] = [];
  const seeds = join(store.paths.userDir, "MEMORY.md");
  if (existsSync(seeds) && !readFileSync(seeds, "utf8").startsWith(GENERATED_MARKER)) {
    const r = importMarkdown(store, seeds, CONFIDENCE.extracted, "replaced");
    if (r) out.push(r);
  }
  const ours = join(store.paths.home, "MEMORY.md");
  if (existsSync(ours)) {
    const r = importMarkdown(store, ours, CONFIDENCE.userStated, "moved");
    if (r) out.push(r);
  }
  return out;
}

/**
 * Imports a Markdown memory file (bullets and paragraphs; headings choose the category). `kept`: a file the user
 * named (`chatcli memory import`); `replaced`: the seed's, where our view now lives; `moved`: ours, put aside.
 */
export function importMarkdown(store: MemoryStore, file: string, confidence: number, disposition: "kept" | "replaced" | "moved"): MigrationResult | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const backup = `${file}.bak-${new Date(store.now()).toISOString().replace(/[:.]/g, "-")}`;
  if (disposition !== "kept") copyFileSync(file, backup);
  const candidates = markdownCandidates(text, confidence, file);
  const { result } = store.transact("migration", (tx) => ingest(tx, candidates, "direct"));
  // The backup holds the original: ours leaves its place; the seed's was overwritten by the view (or, when it
  // held nothing to import, goes now so it is not imported again).
  if (disposition === "moved" || (disposition === "replaced" && !readFileSync(file, "utf8").startsWith(GENERATED_MARKER))) rmSync(file, { force: true });
  return { file, backup: disposition === "kept" ? "" : backup, facts: result.added.length + result.reinforced.length };
}

export function markdownCandidates(text: string, confidence: number, file: string): Candidate[] {
  const out: Candidate[] = [];
  let category: Category | "skip" = "longterm";
  let scope: Scope = "user";
  for (const rawLine of text.replace(/<!--[\s\S]*?-->/g, "").split("\n")) {
    const heading = /^\s*#{1,6}\s+(.*)$/.exec(rawLine);
    if (heading) {
      const h = heading[1]!.toLowerCase();
      category = /daily|today|\d{4}-\d{2}-\d{2}|inbox/.test(h) ? "skip" : /profile|about (?:me|the user)|user/.test(h) ? "profile" : "longterm";
      scope = /project/.test(h) ? "project" : "user";
      continue;
    }
    if (category === "skip") continue;
    const item = rawLine.replace(/^\s*(?:[-*+•]|\d+[.)])\s+/, "").replace(/^\[[ xX]\]\s+/, "").trim();
    if (!item || item.length > 500 || /^[-=|`]{3,}/.test(item)) continue;
    out.push({ text: item, category, scope, confidence, source: { kind: "migration", file } });
  }
  return out;
}
