/**
 * glob: files whose path matches a glob (Bun.Glob syntax: `*`, `**`, `?`, `[...]`, `{a,b}`), relative to `path`.
 * A pattern without `/` also matches file names at any depth (`*.ts` finds src/a/b.ts), which is what models expect.
 * Honors .gitignore, skips .git and node_modules (unless the pattern names node_modules). Newest first by default.
 */
import { lstat, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, errorOutput } from "../tool.ts";
import { displayPath } from "./fs-util.ts";
import { walk } from "./walk.ts";
import { chatcliSecretDirs } from "../permission/chatcli-secrets.ts";

export const GLOB_MAX_RESULTS = 1000;

const input = z.object({
  pattern: z.string().min(1).describe("Glob such as `**/*.ts`, `src/*.{js,jsx}` or `*.md`."),
  path: z.string().optional().describe("Directory to search from (default: the project root)."),
  sort: z.enum(["mtime", "path"]).optional().describe("mtime = most recently modified first (default); path = alphabetical."),
});

export const globTool = defineTool({
  name: "glob",
  description:
    "Find files by name pattern (glob). A pattern without `/` matches file names at any depth. Honors .gitignore; " +
    `skips .git and node_modules. Sorted by modification time, newest first (sort=path for alphabetical). At most ${GLOB_MAX_RESULTS} results.`,
  input,
  readOnly: true,
  argAliases: { glob: "pattern", dir: "path", directory: "path" },
  title: (args) => `glob ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  async execute(args, ctx) {
    const root = ctx.paths.resolveRead(args.path ?? ".");
    try {
      if (!(await stat(root)).isDirectory()) return errorOutput(`${args.path} is not a directory.`, "ENOTDIR");
    } catch {
      return errorOutput(`Directory not found: ${args.path ?? "."}.`, "ENOENT");
    }
    const pattern = args.pattern.replace(/^\.\//, "");
    const glob = new Bun.Glob(pattern);
    const byName = !pattern.includes("/");
    const wantsNodeModules = pattern.includes("node_modules");
    const found: { path: string; mtime: number }[] = [];
    let limited = false;
    await walk(root, { ignoreBase: ctx.projectRoot, skipPaths: chatcliSecretDirs(ctx.env), signal: ctx.signal }, async (e) => {
      if (e.isDir) return e.name === "node_modules" && !wantsNodeModules ? "prune" : true;
      if (!glob.match(e.rel) && !(byName && glob.match(e.name))) return true;
      if (found.length >= GLOB_MAX_RESULTS * 10) {
        limited = true;
        return false;
      }
      let mtime = 0;
      try {
        mtime = (await (e.isSymlink ? lstat : stat)(e.abs)).mtimeMs; // never follow a link out of the project
      } catch {
        // vanished during the walk
      }
      found.push({ path: displayPath(e.abs, ctx.projectRoot), mtime });
      return true;
    });
    if (found.length === 0) return { text: `No files match ${args.pattern} in ${args.path ?? "."}.`, details: { count: 0 } };
    if (args.sort === "path") found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    else found.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
    const shown = found.slice(0, GLOB_MAX_RESULTS);
    const more = found.length > shown.length || limited ? `\n(${limited ? "more than " : ""}${found.length} files matched; showing ${shown.length}. Narrow the pattern.)` : "";
    return { text: shown.map((f) => f.path).join("\n") + more, details: { count: found.length, shown: shown.length, limited } };
  },
});
