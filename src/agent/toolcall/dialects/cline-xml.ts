/**
 * The XML tool style of Cline / Roo Code and agents fine-tuned on them: the tool name is the element and each
 * argument a child, `<read_file>\n<path>src/a.ts</path>\n</read_file>`, including the mangled forms small
 * models write (a lost `<` on the opener at a line start, `/read_file>` or `read_file>` as the closer,
 * `a.ts/path>` inside). Only names of our tools and their aliases count, and only when the body is nothing but
 * child elements, so HTML or XML in an answer stays prose. `replace_in_file` / `apply_diff` SEARCH/REPLACE
 * blocks become one edit per block.
 */
import type { Candidate } from "../candidate.ts";
import type { Dialect } from "./dialect.ts";
import { isKnownToolName, looksLikeArgsOf } from "./known-names.ts";
import { normalizeToolName } from "../../../tool/registry.ts";

/** Cline/Roo tool → ours, with their argument names that differ; keys listed as undefined are dropped. */
const MAP: Readonly<Record<string, { to: string; keys?: Record<string, string | undefined> }>> = {
  read_file: { to: "read" },
  write_to_file: { to: "write", keys: { line_count: undefined } },
  execute_command: { to: "exec", keys: { requires_approval: undefined } },
  list_files: { to: "tree", keys: { recursive: undefined } },
  search_files: { to: "search", keys: { regex: "pattern", file_pattern: "glob" } },
  replace_in_file: { to: "edit" },
  apply_diff: { to: "edit" },
};
/** Element names this dialect reads, lower case: for the display holdback (`<read_file>` hides while it streams). */
export const CLINE_ELEMENT_NAMES: readonly string[] = Object.keys(MAP);

const DROP = new Set(["task_progress", "requires_approval"]);
const NUMERIC = new Set(["start_line", "end_line", "timeout", "timeout_ms", "depth", "max_results", "limit", "offset"]);
/** Tag names the generic markup scanner owns. */
const GENERIC = new Set(["tool_call", "tool", "function_call", "tool_use", "function", "invoke", "toolcall"]);

function toolOf(tag: string): boolean {
  const n = normalizeToolName(tag);
  return !GENERIC.has(n) && (n in MAP || isKnownToolName(n));
}

/** Child elements `<k>v</k>` (also `v/k>` and `v\nk>`) filling the whole body; undefined when anything else is there. */
function children(body: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let j = 0;
  let n = 0;
  for (;;) {
    while (j < body.length && /\s/.test(body[j]!)) j++;
    if (j >= body.length) return n > 0 ? out : undefined;
    const m = /^<([A-Za-z_][\w\-]*)>/.exec(body.slice(j, j + 80));
    if (!m) return undefined;
    const key = m[1]!;
    const vs = j + m[0].length;
    let close = body.indexOf(`</${key}>`, vs);
    let closeLen = key.length + 3;
    if (close < 0) {
      close = body.indexOf(`/${key}>`, vs);
      closeLen = key.length + 2;
    }
    if (close < 0) {
      const re = new RegExp(`\\n${key}>`);
      const mm = re.exec(body.slice(vs));
      if (mm) {
        close = vs + mm.index + 1;
        closeLen = key.length + 1;
      }
    }
    if (close < 0) {
      // the last child runs to the end of the body
      out[key] = trimNl(body.slice(vs));
      return out;
    }
    out[key] = trimNl(body.slice(vs, close));
    j = close + closeLen;
    n++;
  }
}

function trimNl(s: string): string {
  return s.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

const BLOCK = /^(?:-{3,}|<{3,}) ?SEARCH[ \t]*\r?\n(?::start_line:\s*\d+[ \t]*\r?\n)?(?:-{3,}[ \t]*\r?\n)?([\s\S]*?)\r?\n?={5,}[ \t]*\r?\n([\s\S]*?)\r?\n?(?:\+{3,}|>{3,}) ?REPLACE/gm;

function diffBlocks(diff: string): Array<{ old_string: string; new_string: string }> {
  const out: Array<{ old_string: string; new_string: string }> = [];
  for (const m of diff.matchAll(BLOCK)) out.push({ old_string: m[1]!, new_string: m[2]! });
  return out;
}

function convert(tag: string, kids: Record<string, string>, raw: string, repaired: boolean): Candidate[] {
  const norm = normalizeToolName(tag);
  const map = MAP[norm];
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kids)) {
    if (DROP.has(k)) continue;
    if (map?.keys && k in map.keys) {
      const to = map.keys[k];
      if (to) args[to] = v;
      continue;
    }
    if (k === "args" || k === "file") {
      const inner = children(v); // Roo's <args><file><path>…</path></file></args>
      const innerFile = inner?.["file"] ? children(inner["file"]) : inner;
      if (innerFile) Object.assign(args, innerFile);
      continue;
    }
    args[k] = NUMERIC.has(k) && /^\d+$/.test(v.trim()) ? Number(v.trim()) : k === "replace_all" ? v.trim() === "true" : v;
  }
  const name = map?.to ?? tag;
  if (name === "edit" && typeof args["diff"] === "string") {
    const blocks = diffBlocks(args["diff"]);
    delete args["diff"];
    if (blocks.length > 0) return blocks.map((b) => ({ name, args: { kind: "value", value: { ...args, ...b } }, raw, repaired }));
  }
  return [{ name, args: { kind: "value", value: args }, raw, repaired }];
}

export const clineXml: Dialect = {
  id: "cline-xml",
  triggers: [],
  starts: (text, i, lineStart) => (text[i] === "<" && /[A-Za-z_]/.test(text[i + 1] ?? "")) || (lineStart && /[A-Za-z_]/.test(text[i] ?? "")),
  scan(text, i) {
    const m = /^(<?)([A-Za-z_][\w\-]*)>/.exec(text.slice(i, i + 80));
    if (!m || !toolOf(m[2]!)) return undefined;
    const tag = m[2]!;
    const bodyStart = i + m[0].length;
    // a lost `<`: only at a line start, and the body must begin with a child element
    if (!m[1] && !/^\s*<[A-Za-z_]/.test(text.slice(bodyStart, bodyStart + 40))) return undefined;
    const closers = [`</${tag}>`, `/${tag}>`, `\n${tag}>`];
    let close = -1;
    let closeLen = 0;
    for (const c of closers) {
      const k = text.indexOf(c, bodyStart);
      if (k >= 0 && (close < 0 || k < close)) {
        close = c.startsWith("\n") ? k + 1 : k;
        closeLen = c.startsWith("\n") ? c.length - 1 : c.length;
      }
    }
    const bodyEnd = close < 0 ? text.length : close;
    const kids = children(text.slice(bodyStart, bodyEnd));
    if (!kids) return undefined;
    const end = close < 0 ? text.length : close + closeLen;
    const repaired = !m[1] || close < 0 || text.slice(close, close + 2) !== "</";
    const candidates = convert(tag, kids, text.slice(i, end), repaired);
    const argsOk = candidates.every((c) => c.args.kind === "value" && typeof c.args.value === "object" && c.args.value !== null && looksLikeArgsOf(c.name, c.args.value as Record<string, unknown>));
    if (!argsOk) return undefined;
    return { end, candidates, errors: [] };
  },
};
