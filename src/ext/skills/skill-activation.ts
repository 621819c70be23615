/**
 * Deterministic activation (chatcli's own `triggers` and `paths`), for small models that overlook a catalog:
 * a trigger keyword as a word of a prompt, or a file path touched by a tool or mentioned in a prompt that one of
 * the skill's globs matches. Pure (globs via Bun.Glob).
 */
import { isAbsolute, relative } from "node:path";
import type { Skill } from "./load-skills.ts";

export type ActivationReason = { kind: "trigger"; trigger: string } | { kind: "path"; path: string; glob: string } | { kind: "model" } | { kind: "user" } | { kind: "persona"; persona: string };

/** Skills with a trigger that occurs in `text` as a whole word (or phrase), case-insensitively. */
export function triggeredSkills(text: string, skills: readonly Skill[]): Array<{ skill: Skill; trigger: string }> {
  const lower = text.toLowerCase();
  const out: Array<{ skill: Skill; trigger: string }> = [];
  for (const skill of skills) {
    const hit = skill.triggers.find((tr) => containsWord(lower, tr));
    if (hit) out.push({ skill, trigger: hit });
  }
  return out;
}

function containsWord(text: string, word: string): boolean {
  if (!word) return false;
  let from = 0;
  for (;;) {
    const i = text.indexOf(word, from);
    if (i < 0) return false;
    const before = i === 0 ? "" : text[i - 1]!;
    const after = text[i + word.length] ?? "";
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = i + 1;
  }
}

function isWordChar(ch: string): boolean {
  return ch !== "" && /[\p{L}\p{N}_]/u.test(ch);
}

/** Skills one of whose `paths` globs matches `path` (absolute or relative to the project root). */
export function skillsForPath(path: string, skills: readonly Skill[], projectRoot: string): Array<{ skill: Skill; glob: string; path: string }> {
  const rel = normalise(path, projectRoot);
  if (!rel) return [];
  const out: Array<{ skill: Skill; glob: string; path: string }> = [];
  for (const skill of skills) {
    const glob = skill.paths.find((g) => globMatches(g, rel));
    if (glob) out.push({ skill, glob, path: rel });
  }
  return out;
}

/** A pattern without `/` matches a file name at any depth (as in .gitignore); otherwise it is rooted at the project. */
export function globMatches(glob: string, rel: string): boolean {
  const g = glob.replace(/^\.\//, "").replace(/^\//, "");
  try {
    if (new Bun.Glob(g).match(rel)) return true;
    if (!g.includes("/")) return new Bun.Glob(g).match(rel.split("/").at(-1) ?? rel);
    // `src/**` should also match the folder `src` itself when a prompt names it.
    return g.endsWith("/**") && rel === g.slice(0, -3);
  } catch {
    return false;
  }
}

function normalise(path: string, projectRoot: string): string | undefined {
  const p = path.trim().replace(/^@/, "").replaceAll("\\ ", " ");
  if (!p) return undefined;
  const rel = isAbsolute(p) ? relative(projectRoot, p) : p.replace(/^\.\//, "");
  if (!rel || rel.startsWith("..")) return undefined;
  return rel.replaceAll("\\", "/");
}

/** Words of a prompt that look like file paths (`@src/a.ts`, `src/a.ts`, `README.md`), without trailing punctuation. */
export function pathsMentioned(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split(/\s+/)) {
    const w = raw.replace(/^[("'`<[]+/, "").replace(/[)"'`>\],;:!?]+$/, "").replace(/\.$/, "");
    if (w.length < 3 || /^[a-z]+:\/\//i.test(w)) continue;
    const bare = w.replace(/^@/, "");
    if (bare.includes("/") || /\.[A-Za-z0-9]{1,8}$/.test(bare)) out.add(bare);
  }
  return [...out];
}

/** String arguments of a tool call that name files (`path`, `file_path`, `paths`, …). */
export function pathsInArgs(args: Record<string, unknown> | undefined): string[] {
  if (!args) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (!/^(path|paths|file|files|file_?path|filename|target_file|dir|directory)$/i.test(k)) continue;
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === "string") out.push(x);
  }
  return out;
}
