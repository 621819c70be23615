/**
 * Tool names a bare word may be read as a call of (`read(path="a")`, `<read_file>…</read_file>`,
 * `{"read": {…}}`): chatcli's tools and the aliases findTool maps. Forms without markup only count for these
 * names, so `print(x)` or `{"config": {…}}` in an answer stay prose.
 */
import { TOOL_ALIASES, builtinTools, findTool, normalizeToolName } from "../../../tool/registry.ts";

const NAMES = new Set<string>([...builtinTools().map((t) => t.name), ...Object.keys(TOOL_ALIASES)]);
/** Too common as ordinary words or functions to be read as a call without markup. */
const AMBIGUOUS = new Set(["list", "find", "run", "command", "replace", "patch", "dir", "execute", "view", "cat", "sh", "terminal", "fetch"]);

/** `"read": {` — a tool name as a JSON key (the parser's prefilter for the name-as-only-key shape). */
export const NAME_KEY_RE = new RegExp(`["'](?:${[...NAMES].filter((n) => !AMBIGUOUS.has(n)).join("|")})["']\\s*:\\s*\\{`, "g");

/** The names bare text may call, lower case (for the display holdback's line-start triggers). */
export function bareCallNames(): string[] {
  return [...NAMES].filter((n) => !AMBIGUOUS.has(n));
}

export function isKnownToolName(name: string): boolean {
  return NAMES.has(normalizeToolName(name));
}

/** A name bare (markup-less) text may call: a known tool name that is not also an everyday word. */
export function isBareCallName(name: string): boolean {
  const n = normalizeToolName(name);
  return NAMES.has(n) && !AMBIGUOUS.has(n);
}

const COMMON_ARG_ALIASES = ["file_path", "filePath", "filepath", "file", "filename", "cmd", "argv", "old_text", "new_text", "old_str", "new_str", "query", "regex", "dir", "directory"];

/**
 * Does `args` look like arguments of tool `name`: at least one key is one of its parameters (or a common
 * alias of one)? Used where a bare shape could also be data (`{"search": {"exclude": …}}`).
 */
export function looksLikeArgsOf(name: string, args: Record<string, unknown>): boolean {
  const tool = findTool(name);
  if (!tool) return false;
  const params = tool.spec().parameters as { properties?: Record<string, unknown> };
  const keys = new Set([...Object.keys(params.properties ?? {}), ...COMMON_ARG_ALIASES]);
  return Object.keys(args).some((k) => keys.has(k));
}
