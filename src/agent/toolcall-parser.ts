/**
 * The text tool-call protocol: finds the tool calls a model wrote into its reply (for models without native
 * tools, and for native models that print calls as text anyway) and returns them with the reply's prose.
 *
 * One left-to-right scan (no regex over the whole text). At each position:
 * - a ``` fence: ```json / ```tool_call fences are scanned like the text; fences in other languages are
 *   examples and skipped; unlabelled fences are scanned only when the text outside fences had no call.
 * - `inline code` is skipped.
 * - markup (toolcall/markup-scanner.ts): <tool_call …/>, paired and element forms, <function=x>, <invoke>,
 *   DeepSeek, Mistral; markers such as <|tool_call|> / [TOOL_CALLS] that announce JSON.
 * - JSON that has the shape of a call (native-text-recovery.ts), strict first, then leniently repaired.
 * Consumed spans are cut from the prose. Names are normalized (`@read` → `read`, `functions.read` → `read`),
 * `@coder` calls are mapped onto our tools (toolcall/coder-alias.ts), arguments go through sanitizeToolArgs.
 *
 * Never throws: a call that cannot be recovered becomes an entry in `errors` (say what to fix, for the model).
 */
import type { Candidate, ScanHit } from "./toolcall/candidate.ts";
import { scanMarkerAt, scanMarkupAt } from "./toolcall/markup-scanner.ts";
import { extractBalanced, parseLenientJson, tryStrictJson } from "./toolcall/lenient-json.ts";
import { skipWs } from "./toolcall/scan-util.ts";
import { callsFromJsonValue } from "./native-text-recovery.ts";
import { finalizeCall } from "./toolcall/finalize-call.ts";
import { labelGeneric, scanDialectAt } from "./toolcall/dialects/registry.ts";
import { NAME_KEY_RE } from "./toolcall/dialects/known-names.ts";

export { CODER_ALIASES, CODER_SUBCOMMAND_ALIASES, resolveCoderCall } from "./toolcall/coder-alias.ts";
export { formatToolCatalogForText, formatToolResultsForText } from "./toolcall/text-protocol-prompt.ts";
export { PLAIN_STRING_ARG } from "./toolcall/finalize-call.ts";

export interface ParsedToolCall {
  name: string;
  args: Record<string, unknown>;
  /** the markup or JSON the call was read from */
  raw: string;
  /** the markup or the arguments had to be repaired to be read */
  repaired: boolean;
  /** the dialect that recognised the call (toolcall/dialects/registry.ts), e.g. `harmony`, `cline-xml`, `json` */
  dialect: string;
}

export interface ParseResult {
  calls: ParsedToolCall[];
  /** the prose with tool-call markup removed */
  text: string;
  errors: string[];
}

const JSON_FENCES = new Set(["json", "jsonc", "json5", "tool_call", "tool_calls", "tool_code", "tool", "function_call", "xml-tool_call"]);
const MAX_INPUT = 2_000_000;

export function parseToolCalls(text: string): ParseResult {
  try {
    if (typeof text !== "string" || text.length === 0) return { calls: [], text: "", errors: [] };
    const input = text.length > MAX_INPUT ? text.slice(0, MAX_INPUT) : text;
    return parseAll(input);
  } catch (e) {
    return { calls: [], text, errors: [`tool-call parser failure: ${String(e)}`] };
  }
}

interface Span {
  start: number;
  end: number;
}

interface ScanOut {
  candidates: Candidate[];
  errors: string[];
  spans: Span[];
}

function parseAll(text: string): ParseResult {
  const out: ScanOut = { candidates: [], errors: [], spans: [] };
  const plainFences: Fence[] = [];
  const keys = new KeyIndex(text);
  scanRegion(text, 0, text.length, out, plainFences, true, keys);
  if (out.candidates.length === 0) {
    for (const f of plainFences) scanFence(text, f, out, keys, false);
  }
  const calls: ParsedToolCall[] = [];
  const errors = [...out.errors];
  for (const c of out.candidates) {
    const r = finalizeCall(c);
    if ("error" in r) errors.push(r.error);
    else calls.push(r.call);
  }
  return { calls, text: prose(text, out.spans), errors };
}

/**
 * Scans [from, to). Fences are recognized only at the top level. `bare`: markup-less dialects (a python call
 * or `>>>name` at a line start) count; off inside unlabelled fences, which are often examples.
 */
function scanRegion(text: string, from: number, to: number, out: ScanOut, plainFences: Fence[], top: boolean, keys: KeyIndex, bare = true): void {
  let i = from;
  let looseUntil = -1; // JSON starting at or before this index follows a marker: looser shapes count
  let marker = "";
  while (i < to) {
    const c = text[i]!;
    // the dialect registry first (a dialect's markup may begin with `<`, `[`, or a word at a line start)
    if (c === "<" || c === "[" || c === ">" || /[A-Za-z_]/.test(c)) {
      const lineStart = bare && atLineStart(text, i);
      // a > blockquote (a quoted log or message) is never a call; functionary's >>> is not a quote
      if (c === ">" && atLineStart(text, i) && text[i + 1] !== ">" && !/^>[A-Za-z_]/.test(text.slice(i, i + 2))) {
        const nl = text.indexOf("\n", i);
        i = nl < 0 || nl > to ? to : nl + 1;
        continue;
      }
      const d = c === "<" || c === "[" || c === ">" || lineStart ? scanDialectAt(text, i, lineStart) : undefined;
      if (d) {
        take(out, i, { ...d, end: Math.min(d.end, to) });
        i = Math.min(d.end, to);
        continue;
      }
    }
    if (c === "`") {
      if (top && text.startsWith("```", i) && atLineStart(text, i)) {
        const f = readFence(text, i, to);
        if (f.lang !== undefined && JSON_FENCES.has(f.lang)) scanFence(text, f, out, keys);
        else if (f.lang === "xml") scanXmlFence(text, f, out, keys);
        else if (f.lang === "") plainFences.push(f);
        i = f.end;
        continue;
      }
      if (!text.startsWith("```", i)) {
        const close = text.indexOf("`", i + 1);
        const nl = text.indexOf("\n", i + 1);
        if (close > 0 && close < to && (nl < 0 || close < nl)) {
          i = close + 1;
          continue;
        }
      }
      i = text.startsWith("```", i) ? i + 3 : i + 1;
      continue;
    }
    if (c === "<" || c === "[") {
      const h = scanMarkupAt(text, i);
      if (h && h.end > i) {
        for (const cand of h.candidates) cand.dialect ??= labelGeneric(cand.raw, false);
        take(out, i, h);
        i = h.end;
        continue;
      }
      const m = scanMarkerAt(text, i);
      if (m > i) {
        out.spans.push({ start: i, end: m });
        marker = text.slice(i, m);
        i = m;
        looseUntil = skipWs(text, m);
        continue;
      }
    }
    if (c === "{" || c === "[") {
      const h = scanJsonAt(text, i, to, i <= looseUntil, keys);
      if (h && h.candidates.length > 0) {
        const afterMarker = i <= looseUntil;
        const label = afterMarker ? markerDialect(marker) : "json";
        for (const cand of h.candidates) cand.dialect ??= label;
        take(out, i, h);
        i = h.end;
        // `<|python_tag|>{…}; {…}`: a call after `;` still follows the marker
        const k = skipWs(text, i);
        if (afterMarker && text[k] === ";") {
          out.spans.push({ start: k, end: k + 1 });
          looseUntil = skipWs(text, k + 1);
          i = k + 1;
        }
        continue;
      }
      if (h) {
        i = h.end; // JSON that is not a call (data in the answer): skip it whole, it stays prose
        continue;
      }
    }
    i++;
  }
}

function markerDialect(marker: string): string {
  if (/python_tag/.test(marker)) return "llama-python-tag";
  if (/TOOL_CALLS/.test(marker)) return "mistral";
  if (/[▁｜]/.test(marker)) return "deepseek";
  return "tool-token";
}

function take(out: ScanOut, start: number, h: ScanHit): void {
  out.candidates.push(...h.candidates);
  out.errors.push(...h.errors);
  out.spans.push({ start, end: h.end });
}

function atLineStart(text: string, i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const c = text[k];
    if (c === "\n") return true;
    if (c !== " " && c !== "\t") return false;
  }
  return true;
}

interface Fence extends Span {
  lang: string | undefined;
  bodyStart: number;
  bodyEnd: number;
}

function readFence(text: string, start: number, to: number): Fence {
  const nl = text.indexOf("\n", start);
  const infoEnd = nl < 0 || nl > to ? to : nl;
  const lang = text.slice(start + 3, infoEnd).trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const bodyStart = Math.min(infoEnd + 1, to);
  let k = bodyStart;
  while (k < to) {
    const lineEnd = text.indexOf("\n", k);
    const e = lineEnd < 0 || lineEnd > to ? to : lineEnd;
    if (text.slice(k, e).trim().startsWith("```")) {
      const close = text.indexOf("```", k);
      return { start, end: close + 3, lang, bodyStart, bodyEnd: k };
    }
    k = e + 1;
  }
  return { start, end: to, lang, bodyStart, bodyEnd: to }; // unclosed: runs to the end
}

/** Scans a fence body; when what it holds is only calls, the whole fence leaves the prose. */
function scanFence(text: string, f: Fence, out: ScanOut, keys: KeyIndex, bare = true): void {
  const inner: ScanOut = { candidates: [], errors: [], spans: [] };
  const bs = f.bodyStart;
  const be = f.bodyEnd;
  scanRegion(text, bs, be, inner, [], false, keys, bare);
  if (inner.candidates.length === 0 && inner.errors.length === 0) return;
  out.candidates.push(...inner.candidates);
  out.errors.push(...inner.errors);
  const leftover = textOutside(text, bs, be, inner.spans);
  if (leftover.trim() === "") out.spans.push({ start: f.start, end: f.end });
  else out.spans.push(...inner.spans);
}

/**
 * An ```xml fence is usually an example of syntax. It holds real calls only when they are wrapped in other
 * tags and nothing else (`<response><tool_call>…</tool_call></response>`), or when the fence is the whole reply.
 */
function scanXmlFence(text: string, f: Fence, out: ScanOut, keys: KeyIndex): void {
  const inner: ScanOut = { candidates: [], errors: [], spans: [] };
  scanRegion(text, f.bodyStart, f.bodyEnd, inner, [], false, keys);
  if (inner.candidates.length === 0) return;
  const leftover = textOutside(text, f.bodyStart, f.bodyEnd, inner.spans);
  const wrapperOnly = /^\s*(?:<\/?[A-Za-z_][\w-]*\s*>\s*)+$/.test(leftover);
  const alone = (text.slice(0, f.start) + text.slice(f.end)).trim() === "";
  if (!wrapperOnly && !(alone && leftover.trim() === "")) return;
  out.candidates.push(...inner.candidates);
  out.errors.push(...inner.errors);
  out.spans.push({ start: f.start, end: f.end });
}

function textOutside(text: string, from: number, to: number, spans: Span[]): string {
  let s = "";
  let pos = from;
  for (const sp of [...spans].sort((a, b) => a.start - b.start)) {
    if (sp.start > pos) s += text.slice(pos, sp.start);
    pos = Math.max(pos, sp.end);
  }
  return s + text.slice(pos, to);
}

/** Lenient JSON recovery looks this far at most, so broken data in a long reply stays linear. */
const LENIENT_WINDOW = 64 * 1024;

/**
 * JSON with the shape of a call at `i`: strict when it balances, else the lenient parser decides the extent.
 * A hit without candidates is JSON that is not a call (the caller skips it); undefined is not JSON.
 */
function scanJsonAt(text: string, i: number, to: number, loose: boolean, keys: KeyIndex): ScanHit | undefined {
  const k = skipWs(text, i + 1);
  const next = text[k];
  if (text[i] === "{" ? next !== '"' && next !== "'" : next !== "{") return undefined;
  if (keys.budget <= 0 || !keys.anyIn(i, Math.min(to, i + LENIENT_WINDOW))) return undefined;
  const b = extractBalanced(text, i, to);
  keys.budget -= (b > 0 ? b : to) - i;
  if (b > 0) {
    const j = tryStrictJson(text.slice(i, b));
    if (j.ok) return { end: b, candidates: callsFromJsonValue(j.value, text.slice(i, b), false, loose), errors: [] };
    // `{"name=\"edit\"", "arguments": …}`: the name written into its key
    const fixed = repairNameKey(text.slice(i, b));
    if (fixed !== undefined) {
      const f = tryStrictJson(fixed);
      const v = f.ok ? f : parseLenientJson(fixed, "loose");
      const calls = v.ok ? callsFromJsonValue(v.value, text.slice(i, b), true, loose) : [];
      if (calls.length > 0) return { end: b, candidates: calls, errors: [] };
    }
  }
  const r = parseLenientJson(text.slice(0, Math.min(to, i + LENIENT_WINDOW)), "loose", i);
  keys.budget -= r.ok ? r.end - i : Math.min(to - i, LENIENT_WINDOW);
  if (!r.ok) return undefined;
  const calls = callsFromJsonValue(r.value, text.slice(i, r.end), true, loose);
  // a repaired non-call is not skipped whole: the repair may have swallowed a real call after it
  return calls.length > 0 ? { end: r.end, candidates: calls, errors: [] } : undefined;
}

/** `"name=\"edit\""` / `"name="edit"` as a key → `"name": "edit"`; undefined when there is no such key. */
function repairNameKey(s: string): string | undefined {
  const re = /"(name|tool|tool_name|function)\s*=\s*\\?"?([A-Za-z_][\w.\-]*)\\?"?"/;
  return re.test(s) ? s.replace(re, '"$1": "$2"') : undefined;
}

/**
 * Where keys that every call shape needs (`"name":`, `"tool":`, `"function":`, `"cmd":`, …) occur: a
 * prefilter, so JSON-looking data without them costs nothing, plus a work budget for the JSON fallback.
 */
class KeyIndex {
  private readonly at: number[] = [];
  /**
   * Characters the JSON fallback may still scan. Pathological input (thousands of unclosed `{"name":`) would
   * otherwise be quadratic; ordinary replies never come near it.
   */
  budget: number;

  constructor(text: string) {
    this.budget = 4_000_000 + 20 * text.length;
    const re = /["']?(?:name|tool|tool_name|tool_call|tool_calls|function|functionCall|function_call|cmd|argv)["']?\s*[:=]/g;
    for (let m = re.exec(text); m; m = re.exec(text)) this.at.push(m.index);
    for (let m = NAME_KEY_RE.exec(text); m; m = NAME_KEY_RE.exec(text)) this.at.push(m.index);
    this.at.sort((a, b) => a - b);
  }

  /** Is there a key position p with from <= p < to? */
  anyIn(from: number, to: number): boolean {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.at.length && this.at[lo]! < to;
  }
}

/** The text minus the spans, with the blank lines they leave collapsed. */
function prose(text: string, spans: Span[]): string {
  if (spans.length === 0) return text.trim();
  // a call alone on its line takes its line break with it
  const widened = spans.map((sp) => {
    let a = sp.start;
    while (a > 0 && (text[a - 1] === " " || text[a - 1] === "\t")) a--;
    let b = sp.end;
    while (b < text.length && (text[b] === " " || text[b] === "\t" || text[b] === "\r")) b++;
    const ownLine = (a === 0 || text[a - 1] === "\n") && (b === text.length || text[b] === "\n");
    return ownLine ? { start: sp.start, end: b < text.length ? b + 1 : b } : sp;
  });
  const s = textOutside(text, 0, text.length, widened);
  return s
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
