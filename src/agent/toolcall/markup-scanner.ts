/**
 * Tool-call markup at one position of the text: `<tool_call …/>` and its paired/element forms, `<function=x>`,
 * `<invoke name="x">`, DeepSeek's `<｜tool▁call▁begin｜>` and the bare markers (`<|tool_call|>`,
 * `<|python_tag|>`, `[TOOL_CALLS]`) that only announce JSON. Called by the parser's left-to-right scan.
 */
import type { Candidate, ScanHit } from "./candidate.ts";
import { decodeApostropheEntities, decodeEntities } from "./entities.ts";
import { extractBalanced, parseLenientJson, tryStrictJson } from "./lenient-json.ts";
import { isWs, skipWs, startsWithCI, stripFence } from "./scan-util.ts";
import { parseChildren } from "./child-elements.ts";
import { decodeAttr, readTagHead, type Attr } from "./tag-head.ts";
import { safeHead } from "../../util/text.ts";
import { callsFromJsonValue } from "../native-text-recovery.ts";

/** Longest first, so `tool_call` is tried before `tool`. */
const TAG_NAMES = ["tool_call", "tool-call", "toolcall", "function_call", "tool_use", "tool"];
const NAME_ATTRS = ["name", "tool", "tool_name", "function"];
const ARGS_ATTRS = ["args", "arguments", "parameters", "input", "params"];

/** A tool-call tag name at `i` (just after `<` or `</`), with the boundary check that rejects `<toolbox>`. */
function matchTagName(text: string, i: number): number {
  for (const n of TAG_NAMES) {
    if (!startsWithCI(text, i, n)) continue;
    const c = text[i + n.length];
    if (c === undefined || isWs(c) || c === ">" || c === "/") return i + n.length;
  }
  return -1;
}

export function isToolOpenerAt(text: string, i: number): boolean {
  return text[i] === "<" && matchTagName(text, i + 1) > 0;
}

/** End of a closing tag `</tool_call>` (any of the tag names) at `i`, or -1. */
function closerEnd(text: string, i: number): number {
  if (text[i] !== "<" || text[i + 1] !== "/") return -1;
  const j = matchTagName(text, skipWs(text, i + 2));
  if (j < 0) return -1;
  const k = skipWs(text, j);
  return text[k] === ">" ? k + 1 : -1;
}

/** Markers that only announce a call (their JSON follows); consumed and removed from the prose. */
const MARKER_RES = [
  /^<[｜|]\/?(?:tool[▁_]calls?(?:[▁_](?:begin|end))?|python_tag|tool[▁_]sep)[｜|]>/i,
  /^<\/?(?:tool_calls|function_calls)\s*>/i,
  /^\[\/?TOOL_CALLS\]/,
];

export function scanMarkerAt(text: string, i: number): number {
  const c = text[i];
  if (c !== "<" && c !== "[") return -1;
  const slice = text.slice(i, i + 40);
  for (const re of MARKER_RES) {
    const m = re.exec(slice);
    if (m) return i + m[0].length;
  }
  const orphanCloser = closerEnd(text, i); // a `</tool_call>` whose opener was lost
  return orphanCloser;
}

export function scanMarkupAt(text: string, i: number): ScanHit | undefined {
  if (text[i] === "[") return scanMistralV11(text, i) ?? scanBracketShorthand(text, i);
  if (text[i] !== "<") return undefined;
  if (matchTagName(text, i + 1) > 0) return scanToolTag(text, i);
  if (startsWithCI(text, i + 1, "function=")) return scanCallElement(text, i, "function");
  if (startsWithCI(text, i + 1, "invoke") && /^<invoke\s+name\s*=/i.test(text.slice(i, i + 20))) return scanCallElement(text, i, "invoke");
  if (/^<[｜|]tool[▁_]call[▁_]begin[｜|]>/.test(text.slice(i, i + 24))) return scanDeepseek(text, i);
  return undefined;
}

function hit(end: number, candidates: Candidate[], errors: string[] = []): ScanHit {
  return { end, candidates, errors };
}

// ---------------------------------------------------------------------------------------------- <tool_call>

function scanToolTag(text: string, start: number): ScanHit {
  const afterName = matchTagName(text, start + 1);
  const head = readTagHead(text, afterName);
  const find = (keys: string[]): Attr | undefined => head.attrs.find((a) => keys.includes(a.key.toLowerCase()));
  const nameAttr = find(NAME_ATTRS);
  const argsAttr = find(ARGS_ATTRS);
  const name = nameAttr ? cleanName(nameAttr.value) : undefined;
  let argsRaw: string | undefined;
  if (argsAttr) argsRaw = argsAttr.quote === "'" ? decodeApostropheEntities(argsAttr.value) : argsAttr.value;
  // <tool_call name="read" path="a.ts" />: the other attributes are the arguments
  const extras = head.attrs.filter((a) => a !== nameAttr && a !== argsAttr && a.key.toLowerCase() !== "id");
  const extraArgs = extras.length > 0 && !argsAttr ? Object.fromEntries(extras.map((a) => [a.key, decodeAttr(a)])) : undefined;
  const fromAttrs = (end: number, repaired: boolean): ScanHit => {
    const raw = text.slice(start, end);
    if (!name) return hit(end, [], [`A <tool_call> tag without a name was ignored: ${clip(raw)}`]);
    const args: Candidate["args"] =
      argsRaw !== undefined ? { kind: "raw", text: argsRaw } : extraArgs ? { kind: "value", value: extraArgs } : { kind: "none" };
    return hit(end, [{ name, args, raw, repaired }]);
  };
  // a bare `<tool` at the end of a reply, or `<tool and more prose`, is no attempt at a call
  if (head.kind === "unterminated" && head.attrs.every((a) => a.value === "")) return hit(start, []);
  if (head.kind !== "open") return fromAttrs(head.end, head.kind === "unterminated");

  // paired form: find the closer before the next opener
  let closer: { start: number; end: number } | undefined;
  let nextOpener = text.length;
  // a JSON body is skipped whole, so a `</tool_call>` inside one of its strings does not end the tag
  const bodyJson = skipWs(text, head.end);
  const jsonEnd = text[bodyJson] === "{" || text[bodyJson] === "[" ? extractBalanced(text, bodyJson) : -1;
  for (let k = text.indexOf("<", jsonEnd > 0 ? jsonEnd : head.end); k >= 0; k = text.indexOf("<", k + 1)) {
    const e = closerEnd(text, k);
    if (e > 0) {
      closer = { start: k, end: e };
      break;
    }
    if (isToolOpenerAt(text, k)) {
      nextOpener = k;
      break;
    }
  }
  let body: string;
  let end: number;
  let repaired = false;
  if (closer) {
    body = text.slice(head.end, closer.start);
    end = closer.end;
  } else {
    // no closing tag: take what clearly belongs to this call and leave the rest as prose
    repaired = true;
    const b = skipWs(text, head.end);
    if (text[b] === "{" || text[b] === "[") {
      const r = parseLenientJson(text.slice(0, nextOpener), "loose", b);
      end = r.ok ? r.end : nextOpener;
    } else if (text.startsWith("```", b)) {
      const close = text.indexOf("```", b + 3);
      end = close > 0 && close < nextOpener ? close + 3 : nextOpener;
    } else if (text[b] === "<" && !name) {
      end = head.end + parseChildren(text.slice(head.end, nextOpener)).end;
    } else {
      end = head.end;
    }
    body = text.slice(head.end, end);
  }
  const t = dropLeadingProse(stripFence(body), name);
  if (t === "") return fromAttrs(end, repaired);
  const raw = text.slice(start, end);

  if (t.startsWith("{") || t.startsWith("[")) {
    if (name) {
      // the body may be a whole call repeating the name: {"name":"read","arguments":{…}}
      const j = tryStrictJson(t);
      const whole = j.ok ? callsFromJsonValue(j.value, raw, repaired, false) : [];
      const only = whole[0];
      if (whole.length === 1 && only && cleanName(only.name) === name) return hit(end, [only]);
      return hit(end, [{ name, args: { kind: "raw", text: t }, raw, repaired }]);
    }
    const j = tryStrictJson(t);
    const parsed = j.ok ? { ok: true as const, value: j.value, repaired: false } : parseLenientJson(t, "loose");
    if (!parsed.ok) return hit(end, [], [`A <tool_call> body is not valid JSON (${parsed.error}): ${clip(raw)}`]);
    const calls = callsFromJsonValue(parsed.value, raw, repaired || parsed.repaired, true);
    if (calls.length === 0) return hit(end, [], [`A <tool_call> body has no tool name: ${clip(raw)}`]);
    return hit(end, calls);
  }
  if (t.startsWith("<")) {
    const ch = parseChildren(t);
    const n = ch.name !== undefined ? cleanName(ch.name) : name;
    if (!n) return hit(end, [], [`A <tool_call> without a tool name was ignored: ${clip(raw)}`]);
    const args: Candidate["args"] =
      ch.argsRaw !== undefined
        ? { kind: "raw", text: ch.argsRaw }
        : ch.hasParams
          ? { kind: "value", value: ch.argsObj }
          : argsRaw !== undefined
            ? { kind: "raw", text: argsRaw }
            : { kind: "none" };
    return hit(end, [{ name: n, args, raw, repaired }]);
  }
  if (name) return hit(end, [{ name, args: { kind: "raw", text: argsRaw ?? t }, raw, repaired }]);
  // <tool_call>read {"path":"a.ts"}</tool_call>
  const m = /^(@?[A-Za-z_][\w.\-]*)\s*[:(]?\s*([{[][\s\S]*)?$/.exec(t);
  if (m) return hit(end, [{ name: m[1]!, args: m[2] ? { kind: "raw", text: m[2].replace(/\)\s*$/, "") } : { kind: "none" }, raw, repaired }]);
  return hit(end, [], [`A <tool_call> without a tool name was ignored: ${clip(raw)}`]);
}

/** Prose a model wrote inside the wrapper before the call itself (`<tool_call>\nI will…\n<function=read>…`). */
function dropLeadingProse(t: string, name: string | undefined): string {
  if (name || /^[<{[]/.test(t)) return t;
  const m = /\n\s*(<function=|<invoke\s|\{\s*"(?:name|tool|function)")/.exec(t);
  return m ? t.slice(m.index).trim() : t;
}

function cleanName(raw: string): string {
  return decodeEntities(raw).replace(/\\(["'\\])/g, "$1").trim().replace(/^["']|["']$/g, "").trim();
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > 160 ? `${safeHead(one, 157)}...` : one;
}

// ------------------------------------------------------------------------------- <function=x> / <invoke>

function scanCallElement(text: string, start: number, tag: "function" | "invoke"): ScanHit | undefined {
  const head =
    tag === "function"
      ? /^<function=\s*["']?([^>"'\s]+)["']?\s*>/i.exec(text.slice(start, start + 200))
      : /^<invoke\s+name\s*=\s*["']([^"']+)["']\s*>/i.exec(text.slice(start, start + 200));
  if (!head) return undefined;
  const name = head[1]!;
  const bodyStart = start + head[0].length;
  let end = text.length;
  let bodyEnd = text.length;
  let repaired = true;
  for (let k = text.indexOf("<", bodyStart); k >= 0; k = text.indexOf("<", k + 1)) {
    if (startsWithCI(text, k, `</${tag}`)) {
      const gt = text.indexOf(">", k);
      bodyEnd = k;
      end = gt > 0 ? gt + 1 : text.length;
      repaired = false;
      break;
    }
    if (startsWithCI(text, k, `<${tag}`) || isToolOpenerAt(text, k)) {
      bodyEnd = end = k;
      break;
    }
  }
  const t = stripFence(text.slice(bodyStart, bodyEnd));
  if (t.startsWith("{") && repaired) {
    const r = parseLenientJson(text.slice(0, bodyEnd), "loose", skipWs(text, bodyStart));
    if (r.ok) end = r.end;
  }
  const raw = text.slice(start, end);
  if (t.startsWith("{") || t === "") {
    return hit(end, [{ name, args: t === "" ? { kind: "none" } : { kind: "raw", text: t.startsWith("{") && repaired ? text.slice(skipWs(text, bodyStart), end) : t }, raw, repaired }]);
  }
  const ch = parseChildren(t);
  const args: Candidate["args"] =
    ch.argsRaw !== undefined ? { kind: "raw", text: ch.argsRaw } : { kind: "value", value: ch.argsObj };
  if (repaired && !ch.hasParams && ch.argsRaw === undefined) end = bodyStart;
  return hit(end, [{ name, args, raw: text.slice(start, end), repaired }]);
}

// ---------------------------------------------------------------------------------------- DeepSeek / Mistral

function scanDeepseek(text: string, start: number): ScanHit | undefined {
  const begin = /^<[｜|]tool[▁_]call[▁_]begin[｜|]>/.exec(text.slice(start, start + 24));
  if (!begin) return undefined;
  const from = start + begin[0].length;
  let bodyEnd = text.length;
  let end = text.length;
  for (let k = text.indexOf("<", from); k >= 0; k = text.indexOf("<", k + 1)) {
    const m = /^<[｜|]tool[▁_]call[▁_]end[｜|]>/.exec(text.slice(k, k + 24));
    if (m) {
      bodyEnd = k;
      end = k + m[0].length;
      break;
    }
  }
  const inner = text.slice(from, bodyEnd);
  const sep = /<[｜|]tool[▁_]sep[｜|]>/.exec(inner);
  if (!sep) return hit(end, [], ["A DeepSeek tool call without a separator was ignored."]);
  const before = inner.slice(0, sep.index).trim();
  const after = inner.slice(sep.index + sep[0].length);
  let name: string;
  let argsText: string;
  if (before === "" || before.toLowerCase() === "function") {
    const m = /^\s*([^\s`{]+)/.exec(after);
    if (!m) return hit(end, [], ["A DeepSeek tool call without a name was ignored."]);
    name = m[1]!;
    argsText = after.slice(m[0].length);
  } else {
    name = before;
    argsText = after;
  }
  const t = stripFence(argsText);
  return hit(end, [{ name, args: t === "" ? { kind: "none" } : { kind: "raw", text: t }, raw: text.slice(start, end), repaired: end === text.length }]);
}

/** Mistral's newer `[TOOL_CALLS]read[ARGS]{…}`. */
function scanMistralV11(text: string, start: number): ScanHit | undefined {
  const m = /^\[TOOL_CALLS\]\s*([@A-Za-z_][\w.\-]*)\s*\[ARGS\]\s*/.exec(text.slice(start, start + 120));
  if (!m) return undefined;
  const j = start + m[0].length;
  const r = parseLenientJson(text, "loose", j);
  const end = r.ok ? r.end : j;
  return hit(end, [{ name: m[1]!, args: r.ok ? { kind: "raw", text: text.slice(j, end) } : { kind: "none" }, raw: text.slice(start, end), repaired: r.ok && r.repaired }]);
}

/**
 * The seed's bracket shorthand (reference §4.1 stage 4): `[tool: @name {json}]`, `[tool_call: name flat args]`.
 * The colon is required (`[tool docs]` is prose) and a missing `]` is tolerated.
 */
function scanBracketShorthand(text: string, start: number): ScanHit | undefined {
  const m = /^\[(?:tool|tool_call)\s*:\s*(@?[A-Za-z_][\w.\-]*)[ \t]*/i.exec(text.slice(start, start + 120));
  if (!m) return undefined;
  const j = start + m[0].length;
  let end: number;
  let args: Candidate["args"] = { kind: "none" };
  let repaired = false;
  if (text[j] === "{") {
    const b = extractBalanced(text, j);
    const r = b > 0 ? undefined : parseLenientJson(text, "loose", j);
    const e = b > 0 ? b : r?.ok ? r.end : -1;
    if (e < 0) return undefined;
    args = { kind: "raw", text: text.slice(j, e) };
    end = skipWs(text, e);
    if (text[end] === "]") end++;
    else repaired = true;
  } else {
    const close = text.indexOf("]", j);
    const nl = text.indexOf("\n", j);
    const stop = close >= 0 && (nl < 0 || close < nl) ? close : nl >= 0 ? nl : text.length;
    const flat = text.slice(j, stop).trim();
    if (flat !== "") args = { kind: "raw", text: flat };
    end = stop === close ? close + 1 : stop;
    repaired = stop !== close;
  }
  return hit(end, [{ name: m[1]!, args, raw: text.slice(start, end), repaired }]);
}
