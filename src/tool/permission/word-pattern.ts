/**
 * A shell word seen as a pattern: what names could it become at run time? Parameter expansions (`$X`, `${…}`),
 * command substitutions (`$(…)`, backticks) and glob characters (`*`, `?`, `[…]`) are wildcards; everything else
 * is literal. Quoting is already removed by the parser, so a quoted `*` counts as a wildcard too (conservative).
 * Used by the protected-path and sensitive-path checks, which must not be fooled by `.ss?`, `.ch*` or `.c$X`.
 */

type Piece = { kind: "lit"; text: string } | { kind: "any" } | { kind: "one" } | { kind: "class"; body: string };

const SEPARATORS = new Set(["/", "=", ":", ",", "'", '"', "(", ")", ";", " ", "\t", "\n", "<", ">", "|", "&"]);

export interface WordSegment {
  pieces: Piece[];
  literal: boolean;
}

/**
 * Splits a word into path-like segments at `/`, `=`, `:`, `,`, quotes, parentheses, `;` and blanks (outside
 * wildcards): a word can be inline code (`python -c "open('.git/config','w')"`) as well as an option or a path.
 */
export function segmentsOf(word: string): WordSegment[] {
  const out: WordSegment[] = [];
  let cur: Piece[] = [];
  const flush = () => {
    out.push({ pieces: cur, literal: cur.every((p) => p.kind === "lit") });
    cur = [];
  };
  const lit = (c: string) => {
    const last = cur[cur.length - 1];
    if (last?.kind === "lit") last.text += c;
    else cur.push({ kind: "lit", text: c });
  };
  for (let i = 0; i < word.length; i++) {
    const c = word[i] as string;
    if (SEPARATORS.has(c)) {
      flush();
      continue;
    }
    if (c === "$" && i + 1 < word.length) {
      const end = expansionEnd(word, i);
      if (end > i) {
        cur.push({ kind: "any" });
        i = end;
        continue;
      }
    }
    if (c === "`") {
      const close = word.indexOf("`", i + 1);
      cur.push({ kind: "any" });
      i = close < 0 ? word.length : close;
      continue;
    }
    if (c === "*") cur.push({ kind: "any" });
    else if (c === "?") cur.push({ kind: "one" });
    else if (c === "[") {
      const close = word.indexOf("]", i + 2);
      if (close < 0) lit(c);
      else {
        cur.push({ kind: "class", body: word.slice(i + 1, close) });
        i = close;
      }
    } else lit(c);
  }
  flush();
  return out;
}

/** Index of the last character of the expansion starting at `word[at] === "$"`, or `at` when it is a plain `$`. */
function expansionEnd(word: string, at: number): number {
  const next = word[at + 1] as string;
  if (next === "{" || next === "(") {
    const close = next === "{" ? "}" : ")";
    let depth = 0;
    for (let j = at + 1; j < word.length; j++) {
      if (word[j] === next) depth++;
      else if (word[j] === close && --depth === 0) return j;
    }
    return word.length - 1;
  }
  if (/[A-Za-z_]/.test(next)) {
    let j = at + 1;
    while (j + 1 < word.length && /[A-Za-z0-9_]/.test(word[j + 1] as string)) j++;
    return j;
  }
  if (/[0-9@*#?$!-]/.test(next)) return at + 1;
  if (next === "'" || next === '"') return at; // $'…' / $"…" were already decoded by the parser
  return at;
}

/**
 * Could this segment become `name`? A literal segment must equal it; a segment with wildcards must have at least
 * one literal character (a wholly unknown segment such as `$DIR` or `*` proves nothing) and match it as a pattern.
 */
export function segmentCouldBe(seg: WordSegment, name: string): boolean {
  if (seg.literal) return seg.pieces.map((p) => (p.kind === "lit" ? p.text : "")).join("") === name;
  if (!seg.pieces.some((p) => p.kind === "lit" && p.text !== "")) return false;
  let re = "";
  for (const p of seg.pieces) {
    if (p.kind === "lit") re += p.text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    else if (p.kind === "any") re += ".*";
    else if (p.kind === "one") re += ".";
    else re += classRegex(p.body);
  }
  try {
    return new RegExp(`^${re}$`, "s").test(name);
  } catch {
    return false; // an invalid class like [z-a] matches nothing, as in the shell
  }
}

function classRegex(body: string): string {
  const negated = body.startsWith("!") || body.startsWith("^");
  const inner = (negated ? body.slice(1) : body).replace(/\\/g, "\\\\").replace(/\]/g, "\\]");
  return `[${negated ? "^" : ""}${inner}]`;
}
