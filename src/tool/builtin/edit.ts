/**
 * edit: exact string replacement. Each old_string must occur exactly once unless replace_all is set. Several edits
 * (`edits: [...]`) apply in order to the in-memory text and the file is written once, atomically: if any edit fails,
 * nothing changes on disk. What is written is computed by planEdit (edit-plan.ts), which the approval preview uses too.
 */
import { z } from "zod";
import { defineTool, errorOutput, type ToolOutput } from "../tool.ts";
import { unifiedDiff } from "./diff.ts";
import { editsOf, planEdit } from "./edit-plan.ts";
import { displayPath, readExisting, writeText } from "./fs-util.ts";

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

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace exact text in a file. old_string must match exactly once (include enough surrounding lines to make it " +
    "unique) unless replace_all is true. Use `edits` for several replacements in one file: they apply in order, all " +
    "or nothing. Copy text from `read` output without the line-number prefix.",
  input,
  readOnly: false,
  argAliases: { file_path: "path", file: "path", old_str: "old_string", new_str: "new_string", old_text: "old_string", new_text: "new_string", oldText: "old_string", newText: "new_string", filePath: "path", search: "old_string", replace: "new_string" },
  title(args) {
    const n = (args.edits?.length ?? 0) + (args.old_string !== undefined ? 1 : 0);
    return n > 1 ? `edit ${args.path} (${n} edits)` : `edit ${args.path}`;
  },
  async preview(args, ctx) {
    const abs = ctx.paths.resolveWrite(args.path);
    const plan = planEdit(await readExisting(abs, ctx.files), editsOf(args), displayPath(abs, ctx.projectRoot));
    return plan.ok ? { path: abs, before: plan.before, after: plan.after } : undefined;
  },
  async execute(args, ctx): Promise<ToolOutput> {
    const abs = ctx.paths.resolveWrite(args.path);
    const shown = displayPath(abs, ctx.projectRoot);
    const plan = planEdit(await readExisting(abs, ctx.files), editsOf(args), shown);
    if (!plan.ok) return errorOutput(plan.error, plan.code, plan.code === "invalid_args" ? undefined : { path: shown });
    await writeText(abs, plan.after, ctx.files);
    if (plan.created || plan.filled) {
      const diff = unifiedDiff("", plan.after, { oldName: plan.created ? "/dev/null" : `a/${shown}`, newName: `b/${shown}` });
      return { text: `${plan.created ? "Created" : "Filled"} ${shown} (${plan.after.length} chars).`, details: { path: shown, diff: diff.text, replacements: 1, created: plan.created } };
    }
    const diff = unifiedDiff(plan.before, plan.after, { oldName: `a/${shown}`, newName: `b/${shown}` });
    const n = plan.replacements;
    return {
      text: `Edited ${shown}: ${n} replacement${n === 1 ? "" : "s"} (+${diff.added} -${diff.removed} lines).`,
      details: { path: shown, diff: diff.text, replacements: n, added: diff.added, removed: diff.removed },
    };
  },
});
