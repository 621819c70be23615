/**
 * The one computation of what `edit` writes: old text + edits → new text. Pure (no I/O), so the approval preview
 * and the write share it and cannot disagree. Replacement is by slicing, never `String.replace` (which would
 * interpret `$&`, `$$`, `$1` in new_string). For CRLF files an LF-only old_string/new_string is matched and written
 * with CRLF. An empty old_string on a missing or empty file creates it with new_string.
 */
import type { Existing } from "./fs-util.ts";

export interface EditItem {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

export interface EditArgs {
  old_string?: string | undefined;
  new_string?: string | undefined;
  replace_all?: boolean | undefined;
  edits?: EditItem[] | undefined;
}

export type EditPlan =
  | { ok: true; before: string; after: string; replacements: number; created: boolean; filled: boolean }
  | { ok: false; error: string; code: string };

/** The edits of a call in order: the single old_string/new_string first, then `edits`. */
export function editsOf(args: EditArgs): EditItem[] {
  const out: EditItem[] = [];
  if (args.old_string !== undefined && args.new_string !== undefined) {
    out.push({ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all });
  }
  out.push(...(args.edits ?? []));
  return out;
}

/** `shown` is the path as the model sees it (for messages). */
export function planEdit(existing: Existing, edits: readonly EditItem[], shown: string): EditPlan {
  if (existing.kind === "dir") return { ok: false, error: `${shown} is a directory.`, code: "EISDIR" };
  if (existing.kind === "binary") return { ok: false, error: `${shown} is a binary file; edit works on text.`, code: "binary_file" };
  const original = existing.kind === "text" ? existing.text : "";
  if (edits.length === 1 && edits[0]?.old_string === "") {
    if (original !== "") {
      return { ok: false, error: `old_string is empty but ${shown} is not; give the text to replace, or use \`write\` to replace the whole file.`, code: "invalid_args" };
    }
    const created = existing.kind === "missing";
    return { ok: true, before: "", after: edits[0].new_string, replacements: 1, created, filled: !created };
  }
  if (existing.kind === "missing") return { ok: false, error: `File not found: ${shown}. To create it use \`write\`.`, code: "ENOENT" };
  const crlf = original.includes("\r\n");
  let content = original;
  let replacements = 0;
  for (let i = 0; i < edits.length; i++) {
    const edit = edits[i] as EditItem;
    if (edit.old_string === "") return { ok: false, error: `edit ${i + 1}: old_string is empty. No changes were written.`, code: "invalid_args" };
    const r = applyOne(content, edit, crlf);
    if ("error" in r) {
      const which = edits.length > 1 ? `edit ${i + 1} of ${edits.length}: ` : "";
      const tail = edits.length > 1 ? " No changes were written (edits apply all or nothing)." : "";
      return { ok: false, error: `${which}${r.error}${tail}`, code: r.code };
    }
    content = r.text;
    replacements += r.replacements;
  }
  return { ok: true, before: original, after: content, replacements, created: false, filled: false };
}

type EditFailure = { error: string; code: "no_match" | "ambiguous_match" | "no_change" };

function applyOne(content: string, edit: EditItem, crlf: boolean): { text: string; replacements: number } | EditFailure {
  if (edit.old_string === edit.new_string) return { error: "old_string and new_string are identical; nothing to change.", code: "no_change" };
  let oldS = edit.old_string;
  let newS = edit.new_string;
  let count = countOccurrences(content, oldS);
  if (count === 0 && crlf && !oldS.includes("\r\n") && oldS.includes("\n")) {
    oldS = oldS.replace(/\n/g, "\r\n");
    newS = newS.replace(/\r?\n/g, "\r\n");
    count = countOccurrences(content, oldS);
  }
  if (count === 0) return { error: `old_string was not found in the file.${closestLineHint(content, edit.old_string)}`, code: "no_match" };
  if (count > 1 && !edit.replace_all) {
    return {
      error: `old_string matches ${count} times; it must match exactly once. Add surrounding context to make it unique, or set replace_all to true to replace all ${count}.`,
      code: "ambiguous_match",
    };
  }
  if (edit.replace_all) return { text: content.split(oldS).join(newS), replacements: count };
  const at = content.indexOf(oldS);
  return { text: content.slice(0, at) + newS + content.slice(at + oldS.length), replacements: 1 };
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let i = haystack.indexOf(needle);
  while (i !== -1) {
    count++;
    i = haystack.indexOf(needle, i + needle.length);
  }
  return count;
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const ga = bigrams(a);
  const gb = bigrams(b);
  let overlap = 0;
  for (const [g, n] of ga) overlap += Math.min(n, gb.get(g) ?? 0);
  return (2 * overlap) / (a.length - 1 + (b.length - 1));
}

/** A hint pointing at the line of the file that most resembles the first line of old_string. */
function closestLineHint(content: string, oldString: string): string {
  const probe = oldString.split(/\r?\n/).find((l) => l.trim() !== "")?.trim();
  if (!probe) return "";
  const lines = content.split(/\r?\n/);
  let best = -1;
  let bestScore = 0;
  const limit = Math.min(lines.length, 50_000);
  for (let i = 0; i < limit; i++) {
    const t = (lines[i] as string).trim();
    if (t === "") continue;
    const score = t === probe ? 1 : similarity(t, probe);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
    if (score === 1) break;
  }
  if (best < 0 || bestScore < 0.5) return " Read the file again to get the exact current text.";
  const line = (lines[best] as string).slice(0, 200);
  const why = bestScore === 1 ? "has the same text but different surrounding whitespace/lines" : "is the closest match";
  return ` Line ${best + 1} ${why}: ${JSON.stringify(line)}. Read the file again and copy the text exactly.`;
}
