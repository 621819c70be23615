/**
 * Rule patterns: `<tool>` alone, or `<tool> <argument pattern>`.
 * - File tools (read, write, edit, search, tree, list, glob): the argument is a glob over the path, relative to the
 *   project root when the path is inside it, else absolute (`~/` allowed). `*` and `?` stay within a path segment,
 *   `**` crosses segments. A pattern also matches everything under a directory it matches (`write src` covers
 *   `src/a.ts`), and a pattern without `/` also matches the basename (`edit *.md` covers `docs/a.md`).
 * - exec: the argument is matched against one simple command's words joined by single spaces. `*` matches
 *   anything (spaces included). Without a trailing `*` it is a word-boundary prefix: `exec git status` matches
 *   `git status --short` but not `git statusx`.
 *   The argument is read with shell quoting, so `exec git commit -m "wip"` matches the words git, commit, -m, wip.
 * Glob character classes (`[abc]`) are not supported: brackets match themselves.
 * Specificity is the length of the normalized pattern: the longest matching rule wins.
 */
import { posix } from "node:path";
import { parseShell } from "../shell/parse-shell.ts";

export interface ParsedPattern {
  /** Normalized pattern text (trimmed, single spaces, seed prefix `@coder ` removed). */
  text: string;
  tool: string;
  arg?: string;
}

export function normalizePattern(raw: string): string {
  let t = raw.trim().replace(/\s+/g, " ");
  if (t.startsWith("@coder ")) t = t.slice("@coder ".length);
  return t;
}

export function parsePattern(raw: string): ParsedPattern {
  const text = normalizePattern(raw);
  const space = text.indexOf(" ");
  if (space < 0) return { text, tool: text };
  return { text, tool: text.slice(0, space), arg: text.slice(space + 1) };
}

export function matchExecPattern(arg: string, words: string[]): boolean {
  return execPatternRegex(arg).test(words.join(" "));
}

const execRegexCache = new Map<string, RegExp>();

function execPatternRegex(raw: string): RegExp {
  const cached = execRegexCache.get(raw);
  if (cached) return cached;
  const parsed = parseShell(raw);
  const single = parsed.ok && parsed.script.commands.length === 1 && parsed.script.features.size === 0 ? parsed.script.commands[0] : undefined;
  const arg = single && single.assignments.length === 0 ? single.argv.join(" ") : raw;
  const body = arg.split("*").map(escapeRegex).join(".*");
  const re = arg.endsWith("*") ? new RegExp(`^${body}$`, "s") : new RegExp(`^${body}(?: .*)?$`, "s");
  if (execRegexCache.size > 1000) execRegexCache.clear();
  execRegexCache.set(raw, re);
  return re;
}

/**
 * `path` is absolute. `projectRoot` makes project paths relative; `userHome` expands a leading `~/` in patterns.
 */
export function matchPathPattern(arg: string, path: string, projectRoot: string, userHome?: string): boolean {
  let pattern = arg;
  if (userHome && (pattern === "~" || pattern.startsWith("~/"))) pattern = userHome + pattern.slice(1);
  const rel = posix.relative(projectRoot, path);
  const inside = rel === "" || (rel !== ".." && !rel.startsWith("../") && !posix.isAbsolute(rel));
  const subject = pattern.startsWith("/") ? path : inside ? rel || "." : path;
  pattern = pattern.replace(/^\.\//, "").replace(/\/+$/, "") || ".";
  const re = globToRegex(pattern);
  if (re.test(subject)) return true;
  // Everything under a matching directory.
  const parts = subject.split("/");
  for (let i = parts.length - 1; i > 0; i--) {
    if (re.test(parts.slice(0, i).join("/") || "/")) return true;
  }
  return !pattern.includes("/") && re.test(parts[parts.length - 1] ?? "");
}

export function globToRegex(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += escapeRegex(c);
  }
  return new RegExp(`^${out}$`, "s");
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
