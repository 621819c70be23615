/**
 * Matchers, as Claude Code reads them and a little more: empty or `*` matches everything; otherwise alternatives
 * split on `|`, each matching when it equals the value (case-insensitively), matches it as a glob (`mcp__server__*`,
 * `read*`) or as an anchored regular expression (`Notebook.*`). Tool names are also matched under their Claude Code
 * names (Bash for exec, Write, Edit/MultiEdit, Read, Grep, Glob, LS), so a pasted block finds our tools.
 */
const CLAUDE_NAMES: Record<string, string[]> = {
  exec: ["Bash"],
  write: ["Write"],
  edit: ["Edit", "MultiEdit"],
  read: ["Read"],
  search: ["Grep"],
  glob: ["Glob"],
  tree: ["LS"],
};

export function matcherMatches(matcher: string | undefined, value: string | undefined, isTool: boolean): boolean {
  const m = (matcher ?? "").trim();
  if (m === "" || m === "*") return true;
  if (value === undefined) return false;
  const values = isTool ? [value, ...(CLAUDE_NAMES[value] ?? [])] : [value];
  return m.split("|").some((alt) => {
    const a = alt.trim();
    if (!a) return false;
    return values.some((v) => v.toLowerCase() === a.toLowerCase() || globMatch(a, v) || regexMatch(a, v));
  });
}

function globMatch(pattern: string, value: string): boolean {
  if (!/[*?]/.test(pattern)) return false;
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${re}$`, "i").test(value);
}

function regexMatch(pattern: string, value: string): boolean {
  if (!/[.*+?[\]()\\^$]/.test(pattern)) return false;
  try {
    return new RegExp(`^(?:${pattern})$`).test(value);
  } catch {
    return false;
  }
}
