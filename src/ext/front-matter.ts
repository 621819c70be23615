/**
 * Markdown files with YAML front matter (`---` … `---` then the body): SKILL.md, agent definitions, custom
 * commands. The flat `key: value` / list shapes these files use are read by a small parser here; only a file
 * whose front matter needs real YAML (block scalars, nested maps, anchors) loads the `yaml` package, lazily, so
 * discovering hundreds of files costs no module load.
 *
 * Leniency on purpose: a plain scalar is the rest of its line, so `description: Use when: the user asks…` (a colon
 * inside, which strict YAML refuses) reads the way the tools these files were written for read it.
 * Never throws: a problem is `{ ok: false, error }` saying what is wrong (not the file; callers add that).
 */

export type FrontMatterProblem = { code: "unclosed" } | { code: "not_mapping" } | { code: "yaml"; detail: string };
/**
 * `raw`: each top-level one-line value as written (quotes removed), for fields that are text to show whatever YAML
 * makes of them (`argument-hint: [issue-number]` is a list to YAML, a hint to a person).
 */
export type FrontMatter = { ok: true; data: Record<string, unknown>; raw: Record<string, string>; body: string; hasFrontMatter: boolean } | { ok: false; error: FrontMatterProblem };

export async function parseFrontMatter(text: string): Promise<FrontMatter> {
  const split = splitFrontMatter(text);
  if ("error" in split) return { ok: false, error: split.error };
  if (split.yaml === undefined) return { ok: true, data: {}, raw: {}, body: split.body, hasFrontMatter: false };
  const raw = rawValues(split.yaml);
  const simple = parseSimpleYaml(split.yaml);
  if (simple !== undefined) return { ok: true, data: simple, raw, body: split.body, hasFrontMatter: true };
  try {
    const { parse } = await import("yaml");
    const data: unknown = parse(split.yaml);
    if (data === null || data === undefined) return { ok: true, data: {}, raw, body: split.body, hasFrontMatter: true };
    if (typeof data !== "object" || Array.isArray(data)) return { ok: false, error: { code: "not_mapping" } };
    return { ok: true, data: data as Record<string, unknown>, raw, body: split.body, hasFrontMatter: true };
  } catch (err) {
    const first = (String((err as Error)?.message ?? err).split("\n")[0] ?? "").replace(/:\s*$/, "");
    return { ok: false, error: { code: "yaml", detail: first } };
  }
}

function rawValues(yaml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of yaml.split("\n")) {
    const m = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:\s+(\S.*)$/.exec(line);
    if (!m) continue;
    const v = m[2]!.trim();
    out[m[1]!] = /^(["']).*\1$/.test(v) && v.length >= 2 ? v.slice(1, -1) : v;
  }
  return out;
}

/** The front matter's text (undefined when the file has none) and the body after it. */
export function splitFrontMatter(text: string): { yaml: string | undefined; body: string } | { error: FrontMatterProblem } {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---[ \t]*\n/.test(src)) return { yaml: undefined, body: src };
  const rest = src.slice(src.indexOf("\n") + 1);
  const close = /^(?:---|\.\.\.)[ \t]*$/m.exec(rest);
  if (!close) return { error: { code: "unclosed" } };
  const yaml = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\n/, "");
  return { yaml, body };
}

/**
 * The subset these files use: `key: scalar`, `key: [a, b]`, `key:` followed by `- item` lines or by one level of
 * indented `sub: scalar` lines, block scalars (`|`, `>`, with `-`/`+` chomping), comments and blank lines.
 * Returns undefined for anything else (the caller then asks the real YAML parser).
 */
export function parseSimpleYaml(src: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const lines = src.split("\n");
  let i = 0;
  const blank = (l: string) => !l.trim() || /^\s*#/.test(l);
  while (i < lines.length) {
    const raw = lines[i]!;
    i++;
    if (blank(raw)) continue;
    if (/^\s/.test(raw) || raw.startsWith("-")) return undefined; // stray indentation or an item without a key
    const kv = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$/.exec(raw);
    if (!kv) return undefined;
    const key = kv[1]!;
    const value = (kv[2] ?? "").trim();
    // The indented lines that belong to this key.
    const start = i;
    while (i < lines.length && (lines[i]!.trim() === "" || /^\s/.test(lines[i]!) || /^-(\s|$)/.test(lines[i]!))) i++;
    const block = lines.slice(start, i);
    const block_ = /^([|>])([+-]?)$/.exec(value.replace(/\s+#.*$/, ""));
    if (block_) {
      out[key] = blockScalar(block, block_[1] === ">", block_[2] ?? "");
      continue;
    }
    const inner = block.filter((l) => !blank(l));
    if (value !== "") {
      if (inner.length) return undefined; // a multi-line plain or quoted scalar
      const v = scalar(value);
      if (v === undefined) return undefined;
      out[key] = v;
      continue;
    }
    if (!inner.length) {
      out[key] = null;
      continue;
    }
    if (inner.every((l) => /^\s*-(\s|$)/.test(l))) {
      const items = inner.map((l) => scalar(l.replace(/^\s*-\s*/, "")));
      if (items.some((v) => v === undefined || (typeof v === "object" && v !== null))) return undefined;
      out[key] = items;
      continue;
    }
    const indent = /^\s*/.exec(inner[0]!)![0];
    const map: Record<string, unknown> = {};
    for (const l of inner) {
      const m = /^(\s+)([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:\s+(.*)$/.exec(l);
      if (!m || m[1] !== indent) return undefined;
      const v = scalar(m[3]!);
      if (v === undefined || (typeof v === "object" && v !== null)) return undefined;
      map[m[2]!] = v;
    }
    out[key] = map;
  }
  return out;
}

/** A `|` (literal) or `>` (folded) block's text, dedented, with YAML's chomping (`-` strip, `+` keep, else one newline). */
function blockScalar(block: string[], folded: boolean, chomp: string): string {
  const indents = block.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  const body = block.map((l) => l.slice(cut).replace(/\s+$/, (t) => (l.trim() ? t : "")));
  while (body.length && body.at(-1) === "") body.pop();
  let text: string;
  if (!folded) text = body.join("\n");
  else {
    // Lines of a paragraph join with a space; a blank line is a newline.
    text = "";
    for (const [n, l] of body.entries()) {
      if (l === "") text += "\n";
      else text += n === 0 || body[n - 1] === "" ? l : ` ${l}`;
    }
  }
  if (chomp === "-") return text;
  return chomp === "+" ? `${text}\n` : `${text}\n`;
}

/** One value; undefined when it needs real YAML (block scalars, flow maps, anchors, tags, escapes). */
function scalar(text: string): unknown {
  const v = text.trim();
  if (v === "") return null;
  if (/^[|>&*!{%@`]/.test(v)) return undefined;
  if (v.startsWith("[")) {
    if (!v.endsWith("]")) return undefined;
    const inner = v.slice(1, -1).trim();
    // `[A] [B]`: not a list (YAML would refuse it); read as the text it is meant to be.
    if (/[[\]]/.test(inner)) return v;
    if (!inner) return [];
    const items = inner.split(",").map((s) => scalar(s));
    return items.some((i) => i === undefined || typeof i === "object") ? undefined : items;
  }
  if (v.startsWith('"')) {
    if (!v.endsWith('"') || v.length < 2 || v.slice(1, -1).includes('"') || v.includes("\\")) return undefined;
    return v.slice(1, -1);
  }
  if (v.startsWith("'")) {
    if (!v.endsWith("'") || v.length < 2) return undefined;
    const inner = v.slice(1, -1);
    if (inner.replaceAll("''", "").includes("'")) return undefined;
    return inner.replaceAll("''", "'");
  }
  const plain = v.replace(/\s+#.*$/, "");
  if (/^(true|True|TRUE)$/.test(plain)) return true;
  if (/^(false|False|FALSE)$/.test(plain)) return false;
  if (/^(null|Null|NULL|~)$/.test(plain)) return null;
  if (/^-?\d+(\.\d+)?$/.test(plain)) return Number(plain);
  return plain;
}

/**
 * A field that may be a list or one string of names separated by commas (and, with `spaces`, blanks) → trimmed
 * names. Parentheses and braces group: `Bash(git add:*) Read` is two names, `src/{a,b}/*.ts` one glob.
 */
export function nameList(v: unknown, spaces = false): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map((x) => String(x).trim()).filter(Boolean);
  const out: string[] = [];
  let cur = "";
  let depth = 0;
  for (const ch of String(v)) {
    if (ch === "(" || ch === "{") depth++;
    if (ch === ")" || ch === "}") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || (spaces && /\s/.test(ch)))) {
      out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}
