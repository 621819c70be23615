/**
 * search: regex (or literal) search over files, output `path:line:text` with paths relative to the project root.
 * Uses ripgrep when `rg` is on the PATH, a built-in walk otherwise (same rules: .gitignore honored, hidden files
 * searched, .git and node_modules skipped, binary files skipped). "No matches" is a normal result, not an error.
 * The pattern is a regular expression (Rust syntax with rg, JavaScript syntax in the fallback; the common subset
 * behaves the same); set literal for plain text.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { safeHead } from "../../util/text.ts";
import { defineTool, errorOutput, type ToolContext, type ToolDefinition, type ToolOutput } from "../tool.ts";
import { displayPath } from "./fs-util.ts";
import { looksBinary, walk } from "./walk.ts";
import { chatcliSecretDirs, inSecretDir } from "../permission/chatcli-secrets.ts";
import { realpathLenient } from "../workspace.ts";

export const SEARCH_DEFAULT_MAX_RESULTS = 200;
const MAX_LINE_CHARS = 400;
const FALLBACK_MAX_FILE_BYTES = 4 * 1024 * 1024;

const input = z.object({
  pattern: z.string().min(1).describe("Regular expression to search for (or plain text with literal=true)."),
  path: z.string().optional().describe("File or directory to search in (default: the project root)."),
  glob: z.string().optional().describe("Only search files matching this glob, e.g. `*.ts` or `src/**/*.go`."),
  ignore_case: z.boolean().optional().describe("Case-insensitive match."),
  literal: z.boolean().optional().describe("Treat pattern as plain text, not a regex."),
  max_results: z.number().int().min(1).max(5000).optional().describe(`Maximum matching lines (default ${SEARCH_DEFAULT_MAX_RESULTS}).`),
});

type Args = z.output<typeof input>;

export interface SearchToolOptions {
  /** true: require rg; false: always use the built-in search; undefined: rg when found on ctx.env.PATH. */
  useRipgrep?: boolean;
}

interface Hit {
  file: string;
  line: number;
  text: string;
}

interface SearchResult {
  hits: Hit[];
  limited: boolean;
  engine: "ripgrep" | "builtin";
}

function clip(s: string): string {
  return s.length > MAX_LINE_CHARS ? `${safeHead(s, MAX_LINE_CHARS)}…` : s;
}

async function searchWithRipgrep(rg: string, args: Args, root: string, ctx: ToolContext, max: number): Promise<SearchResult | ToolOutput> {
  const argv = [rg, "--line-number", "--no-heading", "--with-filename", "--color", "never", "--no-require-git", "--hidden"];
  argv.push("--glob", "!.git", "--glob", "!node_modules", "--max-columns", String(MAX_LINE_CHARS * 2));
  if (args.ignore_case) argv.push("--ignore-case");
  if (args.literal) argv.push("--fixed-strings");
  if (args.glob) argv.push("--glob", args.glob);
  argv.push("--regexp", args.pattern, "--", root);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.env)) if (v !== undefined) env[k] = v;
  const proc = Bun.spawn(argv, { cwd: ctx.cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const onAbort = () => proc.kill();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const hits: Hit[] = [];
  const secretDirs = chatcliSecretDirs(ctx.env);
  let limited = false;
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const take = (line: string): boolean => {
    // `path:line:text` — split on the first `:<digits>:` after the path.
    const m = /^(.*?):(\d+):(.*)$/s.exec(line);
    if (!m) return true;
    if (inSecretDir(realpathLenient(path.resolve(ctx.cwd, m[1] as string)), secretDirs)) return true; // rg walked into chatcli's secrets
    if (hits.length >= max) {
      limited = true;
      return false;
    }
    hits.push({ file: m[1] as string, line: Number(m[2]), text: m[3] as string });
    return true;
  };
  try {
    outer: for (;;) {
      const r = await reader.read();
      if (r.done) break;
      buf += decoder.decode(r.value, { stream: true });
      let nl = buf.indexOf("\n");
      while (nl !== -1) {
        if (!take(buf.slice(0, nl))) {
          proc.kill();
          await reader.cancel().catch(() => undefined);
          break outer;
        }
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
      }
    }
    if (!limited && buf) take(buf);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
  const stderr = await new Response(proc.stderr).text();
  const code = await proc.exited;
  if (ctx.signal.aborted) return errorOutput("Search canceled.", "Canceled");
  // rg: 0 = matches, 1 = no matches, 2 = error (possibly with some matches, e.g. an unreadable file).
  if (code === 2 && hits.length === 0 && !limited) {
    const msg = stderr.trim() || "ripgrep failed";
    const bad = /regex parse error|error parsing/i.test(msg);
    return errorOutput(bad ? `Invalid pattern: ${msg}\nSet literal=true to search for plain text.` : msg, bad ? "invalid_pattern" : "search_failed");
  }
  return { hits, limited, engine: "ripgrep" };
}

function readable(ctx: ToolContext, abs: string): boolean {
  try {
    ctx.paths.resolveRead(abs);
    return true;
  } catch {
    return false;
  }
}

async function searchBuiltin(args: Args, root: string, ctx: ToolContext, max: number): Promise<SearchResult | ToolOutput> {
  let re: RegExp;
  try {
    const source = args.literal ? args.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : args.pattern;
    re = new RegExp(source, args.ignore_case ? "i" : "");
  } catch (err) {
    return errorOutput(`Invalid pattern: ${(err as Error).message}\nSet literal=true to search for plain text.`, "invalid_pattern");
  }
  const globber = args.glob ? new Bun.Glob(args.glob) : undefined;
  const globMatches = (rel: string, name: string) => !globber || globber.match(rel) || (!args.glob?.includes("/") && globber.match(name));
  const hits: Hit[] = [];
  let limited = false;
  const searchFile = async (abs: string): Promise<boolean> => {
    let bytes: Buffer;
    try {
      if ((await stat(abs)).size > FALLBACK_MAX_FILE_BYTES) return true;
      bytes = await readFile(abs);
    } catch {
      return true;
    }
    if (looksBinary(bytes)) return true;
    const lines = bytes.toString("utf8").split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      if (!re.test(lines[i] as string)) continue;
      if (hits.length >= max) {
        limited = true;
        return false;
      }
      hits.push({ file: abs, line: i + 1, text: lines[i] as string });
    }
    return true;
  };
  const st = await stat(root);
  if (st.isFile()) {
    await searchFile(root);
  } else {
    await walk(root, { ignoreBase: ctx.projectRoot, skipPaths: chatcliSecretDirs(ctx.env), skipDirs: ["node_modules"], signal: ctx.signal }, async (e) => {
      if (e.isDir) return e.name === "node_modules" ? "prune" : true;
      if (!globMatches(e.rel, e.name)) return true;
      // A symlinked file is read only when its target is inside the allowed roots (rg does not follow links either).
      if (e.isSymlink && !readable(ctx, e.abs)) return true;
      return searchFile(e.abs);
    });
  }
  if (ctx.signal.aborted) return errorOutput("Search canceled.", "Canceled");
  return { hits, limited, engine: "builtin" };
}

export function createSearchTool(opts: SearchToolOptions = {}): ToolDefinition {
  return defineTool({
    name: "search",
    description:
      "Search file contents for a regular expression (ripgrep syntax; literal=true for plain text). Returns " +
      "`path:line:text` lines. Honors .gitignore; skips .git, node_modules and binary files. Narrow with path and glob.",
    input,
    maxResultChars: 60_000,
    headShare: 0.9,
    readOnly: true,
    argAliases: { query: "pattern", regex: "pattern", term: "pattern", dir: "path", directory: "path", include: "glob", limit: "max_results" },
    title: (args) => `search ${JSON.stringify(args.pattern)}${args.path ? ` in ${args.path}` : ""}${args.glob ? ` (${args.glob})` : ""}`,
    async execute(args, ctx) {
      const root = ctx.paths.resolveRead(args.path ?? ".");
      try {
        await stat(root);
      } catch {
        return errorOutput(`Path not found: ${args.path ?? "."}.`, "ENOENT");
      }
      const max = args.max_results ?? SEARCH_DEFAULT_MAX_RESULTS;
      const PATH = ctx.env.PATH ?? process.env.PATH ?? "";
      const rg = opts.useRipgrep === false ? null : Bun.which("rg", { PATH });
      if (opts.useRipgrep === true && !rg) return errorOutput("ripgrep (rg) is not installed.", "search_failed");
      const result = rg ? await searchWithRipgrep(rg, args, root, ctx, max) : await searchBuiltin(args, root, ctx, max);
      if (!("hits" in result)) return result;
      const { hits, limited, engine } = result;
      const where = args.path ?? ".";
      if (hits.length === 0) {
        return { text: `No matches for ${JSON.stringify(args.pattern)} in ${where}${args.glob ? ` (glob ${args.glob})` : ""}.`, details: { matches: 0, files: 0, engine } };
      }
      const files = new Set<string>();
      const lines = hits.map((h) => {
        const shown = displayPath(path.resolve(root, h.file), ctx.projectRoot);
        files.add(shown);
        return `${shown}:${h.line}:${clip(h.text)}`;
      });
      const more = limited ? `\n(stopped at ${max} matches; narrow the pattern, path or glob, or raise max_results)` : "";
      return {
        text: `${lines.join("\n")}${more}`,
        details: { matches: hits.length, files: files.size, limited, engine },
      };
    },
  });
}

export const searchTool = createSearchTool();
