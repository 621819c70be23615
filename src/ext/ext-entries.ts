/**
 * The discovery every kind shares: read candidate files (concurrently), parse their front matter, validate them
 * with the kind's own check, keep the first of each name in precedence order and report the rest once. A file
 * that fails is skipped with a warning naming it and the problem; the others load.
 */
import { t } from "../i18n/i18n.ts";
import { parseFrontMatter, type FrontMatterProblem } from "./front-matter.ts";
import { isExtName, readExtFile, MAX_EXT_FILE_BYTES, type ExtScope } from "./ext-files.ts";

export interface Candidate {
  file: string;
  scope: ExtScope;
  /** The name a file gives without a `name` field (its folder for a skill, its file name otherwise). */
  fallbackName: string;
}

/** The kind's check of one parsed file: the entry, or the problem (already in the person's language). */
export type Validate<T> = (c: Candidate, data: Record<string, unknown>, body: string, hasFrontMatter: boolean, raw: Record<string, string>) => T | { problem: string };

export interface Discovered<T> {
  entries: T[];
  warnings: string[];
}

export async function discoverEntries<T extends { name: string; file?: string }>(candidates: Candidate[], kind: "skill" | "agent" | "command", validate: Validate<T>): Promise<Discovered<T>> {
  const parsed = await Promise.all(candidates.map(async (c) => ({ c, r: await readOne(c, validate) })));
  const entries: T[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, T>();
  for (const { c, r } of parsed) {
    if (r === undefined) continue;
    if ("problem" in r) {
      warnings.push(t("ext.warn.malformed", { file: c.file, problem: r.problem }));
      continue;
    }
    const winner = byName.get(r.name);
    if (winner) {
      warnings.push(t("ext.warn.shadowed", { kind: kindLabel(kind), name: r.name, loser: c.file, winner: winner.file ?? "" }));
      continue;
    }
    byName.set(r.name, r);
    entries.push(r);
  }
  return { entries, warnings };
}

async function readOne<T>(c: Candidate, validate: Validate<T>): Promise<T | { problem: string } | undefined> {
  const read = await readExtFile(c.file);
  if (read === undefined) return undefined;
  if ("error" in read) return { problem: read.error === "too_big" ? t("ext.problem.tooBig", { kb: MAX_EXT_FILE_BYTES / 1024 }) : t("ext.problem.unreadable", { detail: read.detail }) };
  const fm = await parseFrontMatter(read.text);
  if (!fm.ok) return { problem: problemText(fm.error) };
  return validate(c, fm.data, fm.body, fm.hasFrontMatter, fm.raw);
}

export function problemText(p: FrontMatterProblem): string {
  switch (p.code) {
    case "unclosed":
      return t("ext.problem.unclosed");
    case "not_mapping":
      return t("ext.problem.notMapping");
    case "yaml":
      return t("ext.problem.yaml", { detail: p.detail });
  }
}

export function kindLabel(kind: "skill" | "agent" | "command"): string {
  return kind === "skill" ? t("ext.kind.skill") : kind === "agent" ? t("ext.kind.agent") : t("ext.kind.command");
}

/** A string field: trimmed text, undefined when absent; a problem when it is there but not text. */
export function stringField(data: Record<string, unknown>, key: string): string | undefined | { problem: string } {
  const v = data[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v.trim();
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return { problem: t("ext.problem.notText", { field: key }) };
}

/** What a described kind (skill, agent) needs first: front matter, a valid name (the field, else the fallback), a description. */
export function nameAndDescription(c: Candidate, data: Record<string, unknown>, hasFrontMatter: boolean): { name: string; description: string } | { problem: string } {
  if (!hasFrontMatter) return { problem: t("ext.problem.noFrontMatter") };
  const name = stringField(data, "name") ?? c.fallbackName;
  if (typeof name !== "string") return name;
  if (!isExtName(name)) return { problem: t("ext.problem.badName", { name }) };
  const description = stringField(data, "description");
  if (typeof description === "object") return description;
  if (!description) return { problem: t("ext.problem.noDescription") };
  return { name, description };
}
