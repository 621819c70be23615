/**
 * Element bodies of paired tool-call tags, in the shapes small models write:
 *   <name>read</name><args>{"path":"a.ts"}</args>          <arguments><path>a.ts</path></arguments>
 *   <function=read><parameter=path>a.ts</parameter></function>   (Qwen3-Coder)
 *   <invoke name="read"><parameter name="path">a.ts</parameter></invoke>
 * Small anchored regexes on short slices; the walk itself is a scanner.
 */
import { decodeEntities } from "./entities.ts";
import { tryStrictJson } from "./lenient-json.ts";
import { startsWithCI } from "./scan-util.ts";

export interface ChildResult {
  name?: string;
  argsRaw?: string;
  argsObj: Record<string, unknown>;
  hasParams: boolean;
  /** index in the input just past the last element read */
  end: number;
}

interface Element {
  tag: string;
  /** `<function=read>` / `<parameter=path>` or a name="…" attribute */
  label?: string;
  content: string;
  end: number;
  closed: boolean;
}

const NAME_TAGS = new Set(["name", "tool_name", "toolname", "function_name", "tool"]);
const ARGS_TAGS = new Set(["args", "arguments", "parameters", "input", "params"]);
const CALL_TAGS = new Set(["function", "invoke", "call"]);
const PARAM_TAGS = new Set(["parameter", "param", "arg", "argument"]);
/** Values of these keys stay strings even when they look like numbers or JSON. */
const TEXTUAL_KEY = /content|text|body|data|string|code|patch|diff|replace|search|command|cmd|pattern|query|message|old|new/i;

export function parseChildren(s: string): ChildResult {
  const out: ChildResult = { argsObj: {}, hasParams: false, end: 0 };
  let pos = 0;
  while (pos < s.length) {
    const lt = s.indexOf("<", pos);
    if (lt < 0) break;
    const el = readElement(s, lt);
    if (!el) {
      pos = lt + 1;
      continue;
    }
    pos = el.end;
    out.end = el.end;
    const tag = el.tag.toLowerCase();
    if (NAME_TAGS.has(tag)) {
      out.name = decodeEntities(el.content).trim();
    } else if (ARGS_TAGS.has(tag)) {
      const c = el.content.trim();
      if (c.startsWith("{") || c.startsWith("[")) out.argsRaw = c;
      else mergeParams(out, parseChildren(c));
    } else if (CALL_TAGS.has(tag)) {
      if (el.label !== undefined) out.name = el.label;
      const c = el.content.trim();
      if (c.startsWith("{")) out.argsRaw = c;
      else {
        const inner = parseChildren(c);
        if (inner.name !== undefined && out.name === undefined) out.name = inner.name;
        if (inner.argsRaw !== undefined) out.argsRaw = inner.argsRaw;
        mergeParams(out, inner);
      }
    } else if (PARAM_TAGS.has(tag) && el.label !== undefined) {
      out.argsObj[el.label] = paramValue(el.label, el.content);
      out.hasParams = true;
    } else if (!PARAM_TAGS.has(tag)) {
      out.argsObj[el.tag] = paramValue(el.tag, el.content);
      out.hasParams = true;
    }
  }
  return out;
}

function mergeParams(into: ChildResult, from: ChildResult): void {
  Object.assign(into.argsObj, from.argsObj);
  into.hasParams ||= from.hasParams;
}

function readElement(s: string, lt: number): Element | undefined {
  const head = /^<([A-Za-z_][\w\-]*)(?:=\s*["']?([^>"'\s]+)["']?)?([^<>]*)>/.exec(s.slice(lt, lt + 400));
  if (!head) return undefined;
  const tag = head[1]!;
  const attrs = head[3] ?? "";
  const nameAttr = /\bname\s*=\s*["']([^"']*)["']/i.exec(attrs)?.[1];
  const label = head[2] ?? nameAttr;
  const bodyStart = lt + head[0].length;
  const base: Omit<Element, "content" | "end" | "closed"> = label === undefined ? { tag } : { tag, label };
  if (attrs.trimEnd().endsWith("/")) return { ...base, content: "", end: bodyStart, closed: true };
  // the matching closer; when it is missing, up to the next sibling opener, else the parent's closer
  for (let k = s.indexOf("<", bodyStart); k >= 0; k = s.indexOf("<", k + 1)) {
    if (s[k + 1] === "/" && startsWithCI(s, k + 2, tag.toLowerCase()) && /[\s>]/.test(s[k + 2 + tag.length] ?? "")) {
      const gt = s.indexOf(">", k);
      if (gt > 0) return { ...base, content: s.slice(bodyStart, k), end: gt + 1, closed: true };
    }
    if (startsWithCI(s, k + 1, tag.toLowerCase()) && /[\s=>]/.test(s[k + 1 + tag.length] ?? "")) {
      return { ...base, content: s.slice(bodyStart, k), end: k, closed: false };
    }
  }
  const parentClose = s.indexOf("</", bodyStart);
  const end = parentClose >= 0 ? parentClose : s.length;
  return { ...base, content: s.slice(bodyStart, end), end, closed: false };
}

function paramValue(key: string, content: string): unknown {
  // values often sit on their own lines: <parameter=path>\na.ts\n</parameter>
  const v = content.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
  if (TEXTUAL_KEY.test(key)) return v;
  const t = v.trim();
  if (/^-?\d{1,15}$/.test(t)) return Number(t);
  if (t === "true" || t === "false") return t === "true";
  if (t.startsWith("{") || t.startsWith("[")) {
    const j = tryStrictJson(t);
    if (j.ok) return j.value;
  }
  return t;
}
