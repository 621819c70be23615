/**
 * Reading a tool-call tag's attributes (markup-scanner.ts): `name="read" args='{"path":"a"}'`, with the repairs
 * small models need — JSON values with unescaped inner quotes, unquoted values, a quote or tag never closed.
 */
import { decodeEntities } from "./entities.ts";
import { extractBalanced } from "./lenient-json.ts";
import { isWs, skipWs } from "./scan-util.ts";

export interface Attr {
  key: string;
  value: string;
  quote: string | undefined;
}

export interface TagHead {
  attrs: Attr[];
  end: number;
  kind: "self" | "open" | "unterminated";
}

/** The attributes of a tool-call tag from `j` (just after its name) to its end, and how the tag ends. */
export function readTagHead(text: string, j: number): TagHead {
  const attrs: Attr[] = [];
  for (;;) {
    const wsStart = j;
    j = skipWs(text, j);
    const sawNewline = text.slice(wsStart, j).includes("\n");
    if (j >= text.length) return { attrs, end: text.length, kind: "unterminated" };
    const c = text[j]!;
    if (c === "/" && text[j + 1] === ">") return { attrs, end: j + 2, kind: "self" };
    if (c === ">") return { attrs, end: j + 1, kind: "open" };
    if (c === "<") return { attrs, end: wsStart, kind: "unterminated" };
    const keyM = /^[A-Za-z_][\w:.\-]*/.exec(text.slice(j, j + 64));
    // a newline followed by something that is not another attribute: the tag was never closed
    if (sawNewline && attrs.length > 0 && !(keyM && /^\s*=/.test(text.slice(j + keyM[0].length, j + keyM[0].length + 8)))) {
      return { attrs, end: wsStart, kind: "unterminated" };
    }
    if (!keyM) {
      j++;
      continue;
    }
    const key = keyM[0];
    j += key.length;
    const eq = skipWs(text, j);
    if (text[eq] !== "=") {
      attrs.push({ key, value: "", quote: undefined });
      continue;
    }
    const v = readAttrValue(text, skipWs(text, eq + 1));
    attrs.push({ key, value: v.value, quote: v.quote });
    j = v.end;
  }
}

/** True when what follows index `k` can follow an attribute value: the tag end, another attribute, EOF. */
function attrValueMayEndBefore(text: string, k: number): boolean {
  const j = skipWs(text, k);
  if (j >= text.length || text[j] === ">" || (text[j] === "/" && text[j + 1] === ">")) return true;
  return j > k && /^[A-Za-z_][\w:.\-]*\s*=/.test(text.slice(j, j + 64));
}

function readAttrValue(text: string, j: number): { value: string; quote: string | undefined; end: number } {
  const q = text[j];
  if (q === '"' || q === "'") {
    const p = j + 1;
    const k = skipWs(text, p);
    const jsonLike = text[k] === "{" || text[k] === "[";
    if (jsonLike) {
      // JSON balances on its own, so unescaped inner quotes (`args="{"path":"a"}"`) don't end the value
      const b = extractBalanced(text, k);
      if (b > 0 && text[skipWs(text, b)] === q) return { value: text.slice(p, b), quote: q, end: skipWs(text, b) + 1 };
    }
    for (let x = p; x < text.length; x++) {
      const ch = text[x];
      if (ch === "\\") {
        x++;
        continue;
      }
      if (ch === q && (!jsonLike || attrValueMayEndBefore(text, x + 1))) return { value: text.slice(p, x), quote: q, end: x + 1 };
    }
    // the quote never closes: stop at the tag end
    const se = text.indexOf("/>", p);
    const stop = se >= 0 ? se : text.length;
    return { value: text.slice(p, stop), quote: q, end: stop };
  }
  if (q === "{" || q === "[") {
    const b = extractBalanced(text, j);
    if (b > 0) return { value: text.slice(j, b), quote: undefined, end: b };
  }
  let x = j;
  while (x < text.length && !isWs(text[x]) && text[x] !== ">" && !(text[x] === "/" && text[x + 1] === ">")) x++;
  return { value: text.slice(j, x), quote: undefined, end: x };
}

/** An attribute's value with entities decoded, and backslash escapes too when it was quoted. */
export function decodeAttr(a: Attr): string {
  let v = decodeEntities(a.value);
  if (a.quote) v = v.replace(/\\(["'\\])/g, "$1");
  return v;
}
