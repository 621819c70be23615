/** write: create or replace a whole file (atomic; parent directories created; empty content allowed). */
import { z } from "zod";
import { defineTool, errorOutput } from "../tool.ts";
import { unifiedDiff } from "./diff.ts";
import { displayPath, readExisting, writeText } from "./fs-util.ts";

const input = z.object({
  path: z.string().min(1).describe("File to write, relative to the project root or absolute."),
  content: z.string().describe("The complete new content of the file (may be empty)."),
});

export const writeTool = defineTool({
  name: "write",
  description:
    "Create a file or replace its whole content. Parent directories are created. For changes to part of an existing " +
    "file prefer `edit`.",
  input,
  readOnly: false,
  argAliases: { file_path: "path", filePath: "path", filepath: "path", file: "path", filename: "path", text: "content", contents: "content" },
  title: (args) => `write ${args.path}`,
  async preview(args, ctx) {
    const abs = ctx.paths.resolveWrite(args.path);
    const existing = await readExisting(abs, ctx.files);
    if (existing.kind === "dir") return undefined;
    return { path: abs, before: existing.kind === "text" ? existing.text : "", after: args.content };
  },
  async execute(args, ctx) {
    const abs = ctx.paths.resolveWrite(args.path);
    const shown = displayPath(abs, ctx.projectRoot);
    const existing = await readExisting(abs, ctx.files);
    if (existing.kind === "dir") return errorOutput(`${shown} is a directory; give a file path.`, "EISDIR", { path: shown });
    const oldText = existing.kind === "text" ? existing.text : "";
    await writeText(abs, args.content, ctx.files);
    const bytes = Buffer.byteLength(args.content, "utf8");
    const created = existing.kind === "missing";
    const diff =
      existing.kind === "binary"
        ? { text: `(replaced a binary file of ${existing.bytes} bytes)\n`, added: 0, removed: 0, truncated: false }
        : unifiedDiff(oldText, args.content, { oldName: created ? "/dev/null" : `a/${shown}`, newName: `b/${shown}` });
    const lineCount = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
    const verb = created ? "Created" : "Wrote";
    const change = created ? "" : diff.text === "" ? ", content unchanged" : ` (+${diff.added} -${diff.removed} lines)`;
    return {
      text: `${verb} ${shown}: ${bytes} bytes, ${lineCount} lines${change}.`,
      details: { path: shown, created, bytes, lines: lineCount, diff: diff.text, added: diff.added, removed: diff.removed },
    };
  },
});
