/**
 * read: a text file with line numbers. Each line is printed as `<n>\t<text>` (the number right-aligned to the
 * width of the last number shown), so the model can quote exact text for `edit` by dropping everything up to the tab.
 * Ranges: `offset` (1-based first line) + `limit` (line count), or `start_line` / `end_line` (inclusive).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { safeHead } from "../../util/text.ts";
import { defineTool, errorOutput } from "../tool.ts";
import { displayPath } from "./fs-util.ts";
import { looksBinary } from "./walk.ts";

export const READ_DEFAULT_LINES = 2000;
export const READ_MAX_LINE_CHARS = 2000;

const input = z.object({
  path: z.string().min(1).describe("File to read, relative to the project root or absolute."),
  offset: z.number().int().min(1).optional().describe("First line to show (1-based)."),
  limit: z.number().int().min(1).optional().describe(`How many lines to show (default ${READ_DEFAULT_LINES}).`),
  start_line: z.number().int().min(1).optional().describe("First line to show (1-based, inclusive); alternative to offset."),
  end_line: z.number().int().min(1).optional().describe("Last line to show (inclusive); alternative to limit."),
});

function rangeOf(args: z.output<typeof input>): { start: number; end: number | undefined } {
  const start = args.offset ?? args.start_line ?? 1;
  let end: number | undefined;
  if (args.limit !== undefined) end = start + args.limit - 1;
  else if (args.end_line !== undefined) end = args.end_line;
  return { start, end };
}

async function similarNames(file: string): Promise<string[]> {
  const dir = path.dirname(file);
  const base = path.basename(file).toLowerCase();
  const stem = base.replace(/\.[^.]*$/, "");
  try {
    const names = await readdir(dir);
    return names.filter((n) => {
      const l = n.toLowerCase();
      return l.includes(stem) || stem.includes(l.replace(/\.[^.]*$/, "")) || l.replace(/\.[^.]*$/, "") === stem;
    }).slice(0, 5);
  } catch {
    return [];
  }
}

export const readTool = defineTool({
  name: "read",
  description:
    "Read a text file. Output lines are `<line number>\\t<text>`; the number and tab are not part of the file. " +
    `Shows up to ${READ_DEFAULT_LINES} lines by default; use offset+limit or start_line/end_line for other ranges. ` +
    "Binary files are refused.",
  input,
  maxResultChars: 80_000,
  headShare: 0.85,
  readOnly: true,
  argAliases: { file_path: "path", filePath: "path", filepath: "path", file: "path", filename: "path", start: "start_line", end: "end_line" },
  title(args) {
    const { start, end } = rangeOf(args);
    const range = start !== 1 || end !== undefined ? `:${start}-${end ?? ""}` : "";
    return `read ${args.path}${range}`;
  },
  async execute(args, ctx) {
    const abs = ctx.paths.resolveRead(args.path);
    const shown = displayPath(abs, ctx.projectRoot);
    let st: Awaited<ReturnType<typeof stat>>;
    try {
      st = await stat(abs);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") throw err;
      const similar = await similarNames(abs);
      const hint = similar.length
        ? ` Similar names in ${displayPath(path.dirname(abs), ctx.projectRoot)}: ${similar.join(", ")}.`
        : " Check the path with `tree` or `glob`.";
      return errorOutput(`File not found: ${shown}.${hint}`, "ENOENT", { path: shown });
    }
    if (st.isDirectory()) return errorOutput(`${shown} is a directory; use \`tree\` to list it.`, "EISDIR", { path: shown });
    const bytes = await readFile(abs);
    if (looksBinary(bytes)) {
      return errorOutput(`${shown} looks like a binary file (${bytes.length} bytes); read refuses binary files.`, "binary_file", {
        path: shown,
        bytes: bytes.length,
      });
    }
    // An editor's buffer (ctx.files) may differ from the disk: its text is what the model reads.
    const text = ctx.files?.readText ? await ctx.files.readText(abs) : bytes.toString("utf8");
    if (text === "") return { text: `(${shown} is empty)`, details: { path: shown, startLine: 0, endLine: 0, totalLines: 0 } };
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    const total = lines.length;
    const { start, end: requestedEnd } = rangeOf(args);
    if (start > total) {
      return errorOutput(`${shown} has ${total} lines; line ${start} is past the end.`, "out_of_range", { path: shown, totalLines: total });
    }
    if (requestedEnd !== undefined && requestedEnd < start) {
      return errorOutput(`end_line (${requestedEnd}) is before the first line (${start}).`, "invalid_args");
    }
    const end = Math.min(total, requestedEnd ?? start + READ_DEFAULT_LINES - 1);
    const width = String(end).length;
    const out: string[] = [];
    for (let n = start; n <= end; n++) {
      let line = lines[n - 1] as string;
      if (line.length > READ_MAX_LINE_CHARS) line = `${safeHead(line, READ_MAX_LINE_CHARS)}… [line cut, ${line.length} chars]`;
      out.push(`${String(n).padStart(width)}\t${line}`);
    }
    if (end < total) out.push(`\n(showing lines ${start}-${end} of ${total}; use offset=${end + 1} to read on)`);
    return { text: out.join("\n"), details: { path: shown, startLine: start, endLine: end, totalLines: total } };
  },
});
