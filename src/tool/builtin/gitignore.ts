/**
 * A .gitignore matcher covering what real repositories use: `*`, `?`, `[…]` classes, `**` (leading, trailing and
 * middle), negation `!`, directory-only patterns (`build/`), anchored patterns (a leading or inner `/`), `#` comments
 * and `\` escapes. Not covered: the global excludes file (core.excludesFile).
 *
 * Paths given to the matcher are relative to the directory of the .gitignore, `/`-separated.
 * Like git, a file inside an excluded directory cannot be re-included: the walker never enters that directory.
 */

export interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
  source: string;
}

export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const rule = parseLine(rawLine);
    if (rule) rules.push(rule);
  }
  return rules;
}

function parseLine(rawLine: string): IgnoreRule | undefined {
  let line = rawLine;
  // Trailing spaces are ignored unless escaped with a backslash.
  line = line.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  let negate = false;
  if (line.startsWith("!")) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const body = globToRegexSource(line);
  const prefix = anchored || line.startsWith("**/") ? "^" : "^(?:.*/)?";
  return { negate, dirOnly, regex: new RegExp(`${prefix}${body}$`), source: rawLine };
}

function escapeRegex(ch: string): string {
  return /[.+^${}()|[\]\\*?]/.test(ch) ? `\\${ch}` : ch;
}

function globToRegexSource(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i] as string;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const next = glob[i + 2];
        if (atStart && next === "/") {
          out += "(?:.*/)?"; // `**/` : zero or more directories
          i += 3;
          continue;
        }
        if (atStart && next === undefined) {
          out += ".*"; // trailing `/**` : everything inside
          i += 2;
          continue;
        }
        out += "[^/]*"; // `**` elsewhere acts like `*`
        i += 2;
        continue;
      }
      out += "[^/]*";
      i += 1;
    } else if (ch === "?") {
      out += "[^/]";
      i += 1;
    } else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        i += 1;
        continue;
      }
      let cls = glob.slice(i + 1, close);
      if (cls.startsWith("!")) cls = `^${cls.slice(1)}`;
      out += `[${cls.replace(/\\/g, "\\\\")}]`;
      i = close + 1;
    } else if (ch === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1] as string);
      i += 2;
    } else {
      out += escapeRegex(ch);
      i += 1;
    }
  }
  return out;
}

/** The verdict of one rule list for a path: true (ignored), false (re-included) or undefined (no rule matched). */
export function matchRules(rules: readonly IgnoreRule[], relPath: string, isDir: boolean): boolean | undefined {
  let verdict: boolean | undefined;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (rule.regex.test(relPath)) verdict = !rule.negate;
  }
  return verdict;
}

/** Rule lists from several .gitignore files; deeper files are pushed later and win, as in git. */
export class IgnoreStack {
  private readonly layers: { base: string; rules: IgnoreRule[] }[] = [];

  /** `base` is the directory of the .gitignore relative to the walk's root ("" for the root itself). */
  push(base: string, rules: IgnoreRule[]): IgnoreStack {
    const next = new IgnoreStack();
    next.layers.push(...this.layers);
    if (rules.length) next.layers.push({ base, rules });
    return next;
  }

  get size(): number {
    return this.layers.length;
  }

  isIgnored(relPath: string, isDir: boolean): boolean {
    let verdict = false;
    for (const { base, rules } of this.layers) {
      let local: string;
      if (base === "") local = relPath;
      else if (relPath.startsWith(`${base}/`)) local = relPath.slice(base.length + 1);
      else continue;
      const v = matchRules(rules, local, isDir);
      if (v !== undefined) verdict = v;
    }
    return verdict;
  }
}
