/**
 * tree (alias list/ls): the directory structure, two spaces of indentation per level, directories with a trailing
 * `/`. Honors .gitignore, skips .git; node_modules and other heavy directories are shown but not expanded.
 */
import { stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, errorOutput } from "../tool.ts";
import { displayPath } from "./fs-util.ts";
import { walk } from "./walk.ts";
import { chatcliSecretDirs } from "../permission/chatcli-secrets.ts";

export const TREE_DEFAULT_DEPTH = 3;
export const TREE_MAX_ENTRIES = 2000;
const NOT_EXPANDED = ["node_modules", "vendor", "__pycache__", ".venv", "venv", "target", "dist", ".next", ".cache"];

const input = z.object({
  path: z.string().optional().describe("Directory to list (default: the project root)."),
  depth: z.number().int().min(1).max(20).optional().describe(`How many levels to show (default ${TREE_DEFAULT_DEPTH}; 1 = direct children).`),
});

export const treeTool = defineTool({
  name: "tree",
  description:
    "List a directory as an indented tree (directories end with `/`). Honors .gitignore; dependency directories such " +
    `as node_modules are listed but not expanded. depth 1 lists direct children only (default ${TREE_DEFAULT_DEPTH}).`,
  input,
  maxResultChars: 50_000,
  headShare: 0.9,
  readOnly: true,
  argAliases: { dir: "path", directory: "path", max_depth: "depth" },
  title: (args) => `tree ${args.path ?? "."}${args.depth ? ` (depth ${args.depth})` : ""}`,
  async execute(args, ctx) {
    const root = ctx.paths.resolveRead(args.path ?? ".");
    let isDir: boolean;
    try {
      isDir = (await stat(root)).isDirectory();
    } catch {
      return errorOutput(`Directory not found: ${args.path ?? "."}. Check the path with \`tree\` on its parent.`, "ENOENT");
    }
    const shownRoot = displayPath(root, ctx.projectRoot);
    if (!isDir) return errorOutput(`${shownRoot} is a file, not a directory; use \`read\` to open it.`, "ENOTDIR");
    const depth = args.depth ?? TREE_DEFAULT_DEPTH;
    const lines: string[] = [`${shownRoot === "." ? "." : shownRoot}/`];
    let files = 0;
    let dirs = 0;
    let limited = false;
    await walk(root, { ignoreBase: ctx.projectRoot, skipPaths: chatcliSecretDirs(ctx.env), maxDepth: depth, skipDirs: NOT_EXPANDED, signal: ctx.signal }, (e) => {
      if (files + dirs >= TREE_MAX_ENTRIES) {
        limited = true;
        return false;
      }
      const indent = "  ".repeat(e.depth);
      if (e.isDir) {
        dirs++;
        const note = NOT_EXPANDED.includes(e.name) ? " (not expanded)" : "";
        lines.push(`${indent}${e.name}/${note}`);
      } else {
        files++;
        lines.push(`${indent}${e.name}${e.isSymlink ? " (symlink)" : ""}`);
      }
      return true;
    });
    if (limited) lines.push(`... [stopped at ${TREE_MAX_ENTRIES} entries; list a subdirectory or lower depth]`);
    lines.push(`\n${dirs} directories, ${files} files`);
    return { text: lines.join("\n"), details: { path: shownRoot, dirs, files, depth, limited } };
  },
});
