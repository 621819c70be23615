/**
 * edit: exact string replacement. Each old_string must occur exactly once unless replace_all is set. Several edits
 * (`edits: [...]`) apply in order to the in-memory text and the file is written once, atomically: if any edit fails,
 * nothing changes on disk. For CRLF files an LF-only old_string/new_string is matched and written with CRLF.
 * An empty old_string on a missing or empty file creates it with new_string.
 */
import { z } from "zod";
import { defineTool, errorOutput, type ToolOutput } from "../tool.ts";
import { unifiedDiff } from "./diff.ts";
import { atomicWrite, displayPath, readExisting } from "./fs-util.ts";

const editItem = z.object({
  old_string: z.string().describe("Exact text to find (including whitespace and indentation)."),
  new_string: z.string().describe("Replacement text."),
  replace_all: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one."),
});

const input = z
  .object({
    path: z.string().min(1).describe("File to edit, relative to the project root or absolute."),
    old_string: z.string().optional().describe("Exact text to find; must match exactly once unless replace_all."),
    new_string: z.string().optional().describe("Replacement text."),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string."),
    edits: z.array(editItem).optional().describe("Several replacements applied in order, all or nothing."),
  })
  .superRefine((v, ctx) => {
    const single = v.old_string !== undefined || v.new_string !== undefined;
    if (single && (v.old_string === undefined || v.new_string === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [v.old_string === undefined ? "old_string" : "new_string"],
        message: "old_string and new_string must be given together",
      });
    }
    if (!single && (!v.edits || v.edits.length === 0)) {
      ctx.addIssue({ code: "custom", path: ["edits"], message: "give old_string + new_string, or a non-empty edits array" });
    }
  });

type EditItem = z.output<typeof editItem>;

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

interface Applied {
  text: string;
  replacements: number;
}

type EditFailure = { error: string; code: "no_match" | "ambiguous_match" | "no_change" };

function applyOne(content: string, edit: EditItem, crlf: boolean): Applied | EditFailure {
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

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace exact text in a file. old_string must match exactly once (include enough surrounding lines to make it " +
    "unique) unless replace_all is true. Use `edits` for several replacements in one file: they apply in order, all " +
    "or nothing. Copy text from `read` output without the line-number prefix.",
  input,
  readOnly: false,
  argAliases: { file_path: "path", file: "path", old_str: "old_string", new_str: "new_string", search: "old_string", replace: "new_string" },
  title(args) {
    const n = (args.edits?.length ?? 0) + (args.old_string !== undefined ? 1 : 0);
    return n > 1 ? `edit ${args.path} (${n} edits)` : `edit ${args.path}`;
  },
  async execute(args, ctx): Promise<ToolOutput> {
    const abs = ctx.paths.resolveWrite(args.path);
    const shown = displayPath(abs, ctx.projectRoot);
    const edits: EditItem[] = [];
    if (args.old_string !== undefined && args.new_string !== undefined) {
      edits.push({ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all });
    }
    edits.push(...(args.edits ?? []));

    const existing = await readExisting(abs);
    if (existing.kind === "dir") return errorOutput(`${shown} is a directory.`, "EISDIR", { path: shown });
    if (existing.kind === "binary") return errorOutput(`${shown} is a binary file; edit works on text.`, "binary_file", { path: shown });
    const original = existing.kind === "text" ? existing.text : "";

    // Creating a file: a single edit with an empty old_string on a missing or empty file.
    if (edits.length === 1 && edits[0]?.old_string === "") {
      if (original !== "") {
        return errorOutput(`old_string is empty but ${shown} is not; give the text to replace, or use \`write\` to replace the whole file.`, "invalid_args");
      }
      const created = existing.kind === "missing";
      const text = edits[0].new_string;
      await atomicWrite(abs, text);
      const diff = unifiedDiff("", text, { oldName: created ? "/dev/null" : `a/${shown}`, newName: `b/${shown}` });
      return { text: `${created ? "Created" : "Filled"} ${shown} (${text.length} chars).`, details: { path: shown, diff: diff.text, replacements: 1, created } };
    }
    if (existing.kind === "missing") {
      return errorOutput(`File not found: ${shown}. To create it use \`write\`.`, "ENOENT", { path: shown });
    }

    const crlf = original.includes("\r\n");
    let content = original;
    let replacements = 0;
    for (let i = 0; i < edits.length; i++) {
      const edit = edits[i] as EditItem;
      if (edit.old_string === "") return errorOutput(`edit ${i + 1}: old_string is empty. No changes were written.`, "invalid_args");
      const r = applyOne(content, edit, crlf);
      if ("error" in r) {
        const which = edits.length > 1 ? `edit ${i + 1} of ${edits.length}: ` : "";
        const tail = edits.length > 1 ? " No changes were written (edits apply all or nothing)." : "";
        return errorOutput(`${which}${r.error}${tail}`, r.code, { path: shown });
      }
      content = r.text;
      replacements += r.replacements;
    }
    await atomicWrite(abs, content);
    const diff = unifiedDiff(original, content, { oldName: `a/${shown}`, newName: `b/${shown}` });
    return {
      text: `Edited ${shown}: ${replacements} replacement${replacements === 1 ? "" : "s"} (+${diff.added} -${diff.removed} lines).`,
      details: { path: shown, diff: diff.text, replacements, added: diff.added, removed: diff.removed },
    };
  },
});
