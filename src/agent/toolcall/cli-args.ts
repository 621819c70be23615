/**
 * The seed's CLI-style argument pipeline (reference §4.3), for the one place args really are a command line:
 * the `@coder` alias, where models trained on ChatCLI write `args="read --file main.go"`. Every step is
 * quote-aware and honours backslash escapes (the seed's step 6 did not: flaw #9), and none of it ever runs on
 * JSON arguments.
 */
import { decodeEntities } from "./entities.ts";

/** Steps 1–6 of the seed's sanitizer, in its order. */
export function sanitizeCliArgs(raw: string): string {
  let s = decodeEntities(raw); // 1
  s = s.replace(/\r\n?/g, "\n"); // 2
  s = processLineContinuations(s); // 3
  s = removeBogusBackslashSpace(s); // 4
  s = fixUnbalancedQuotesWithTrailingBackslash(s); // 4b
  s = trimTrailingBackslashesOutsideQuotes(s); // 5
  s = normalizeSpacesOutsideQuotes(s); // 6
  return s.trim();
}

/** Walks `s` reporting for each index whether it is inside quotes; quotes after a backslash don't count. */
function quoteStates(s: string): boolean[] {
  const inside: boolean[] = new Array<boolean>(s.length);
  let q: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    inside[i] = q !== undefined;
    if (c === "\\" && q !== "'") {
      if (i + 1 < s.length) inside[i + 1] = q !== undefined;
      i++;
      continue;
    }
    if (q === undefined && (c === '"' || c === "'")) q = c;
    else if (q === c) q = undefined;
  }
  return inside;
}

/** `\` + optional spaces + newline: one space outside quotes, removed inside quotes. */
export function processLineContinuations(s: string): string {
  const inside = quoteStates(s);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") {
      const m = /^\\[ \t]*\n/.exec(s.slice(i, i + 64));
      if (m) {
        out += inside[i] ? "" : " ";
        i += m[0].length - 1;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

/** Drops a `\ ` outside quotes (`--search \ "v"`). */
export function removeBogusBackslashSpace(s: string): string {
  const inside = quoteStates(s);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && s[i + 1] === " " && !inside[i]) {
      i++;
      out += " ";
      continue;
    }
    out += s[i];
  }
  return out;
}

function unbalancedQuote(s: string): string | undefined {
  let q: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && q !== "'") {
      i++;
      continue;
    }
    if (q === undefined && (c === '"' || c === "'")) q = c;
    else if (q === c) q = undefined;
  }
  return q;
}

/** Ends with `\` inside an open quote: drop the backslash and close the quote. */
export function fixUnbalancedQuotesWithTrailingBackslash(s: string): string {
  const t = s.replace(/\s+$/, "");
  if (!t.endsWith("\\")) return s;
  const q = unbalancedQuote(t.slice(0, -1));
  if (q === undefined) return s;
  return t.slice(0, -1) + q;
}

export function trimTrailingBackslashesOutsideQuotes(s: string): string {
  let t = s.replace(/\s+$/, "");
  while (t.endsWith("\\") && unbalancedQuote(t.slice(0, -1)) === undefined) t = t.slice(0, -1).replace(/\s+$/, "");
  return t;
}

/** Collapses runs of spaces/tabs outside quotes; text inside quotes (escaped quotes included) is untouched. */
export function normalizeSpacesOutsideQuotes(s: string): string {
  const inside = quoteStates(s);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ((c === " " || c === "\t") && !inside[i]) {
      if (out.endsWith(" ") && !inside[i - 1]) continue;
      out += " ";
      continue;
    }
    out += c;
  }
  return out;
}

/** Shell-like split: quotes (across newlines too), `\` escapes outside single quotes. Unclosed quotes are tolerated. */
export function splitCliArgs(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let q: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (q === "'") {
      if (c === "'") q = undefined;
      else cur += c;
      continue;
    }
    if (c === "\\" && i + 1 < s.length) {
      const n = s[i + 1]!;
      // inside double quotes only \" \\ \$ \` are escapes; elsewhere keep the backslash (Windows paths)
      if (q === '"' && !'"\\$`'.includes(n)) cur += c;
      else if (q === undefined && !/[\s"'\\]/.test(n)) cur += c;
      cur += n;
      has = true;
      i++;
      continue;
    }
    if (q === '"') {
      if (c === '"') q = undefined;
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      q = c;
      has = true;
      continue;
    }
    if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = "";
      has = false;
      continue;
    }
    cur += c;
    has = true;
  }
  if (has) out.push(cur);
  return out;
}

/** `--k v`, `--k=v`, bare `--flag` (true) and positionals. Keys keep their spelling minus the dashes. */
export function argvToFlags(argv: string[]): { flags: Record<string, unknown>; positional: string[] } {
  const flags: Record<string, unknown> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^--?[A-Za-z]/.test(a)) {
      const body = a.replace(/^--?/, "");
      const eq = body.indexOf("=");
      if (eq > 0) {
        flags[body.slice(0, eq)] = body.slice(eq + 1);
        continue;
      }
      const next = argv[i + 1];
      if (next === undefined || /^--[A-Za-z]/.test(next)) flags[body] = true;
      else {
        flags[body] = next;
        i++;
      }
      continue;
    }
    positional.push(a);
  }
  return { flags, positional };
}
