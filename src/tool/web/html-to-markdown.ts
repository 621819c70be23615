/**
 * HTML → readable Markdown for the fetch tool: no DOM, one pass over the tags. Drops what a reader never sees
 * (script, style, head, svg, forms' chrome, comments), keeps `<main>`/`<article>` when the page has one (the
 * navigation and footers around it are noise for a model), and writes headings, paragraphs, links, lists, code
 * blocks, emphasis, block quotes and table rows as Markdown. Malformed HTML degrades to its text, never throws.
 */

const DROP = ["script", "style", "noscript", "svg", "template", "iframe", "canvas", "object", "select", "button"];
const BLOCK = new Set(["p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "form", "figure", "figcaption", "table", "thead", "tbody", "tfoot", "dl", "dt", "dd", "address", "details", "summary", "hr"]);

const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", trade: "™", hellip: "…", mdash: "—",
  ndash: "–", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»", middot: "·", bull: "•", times: "×",
};

export function decodeHtmlEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (m, body: string) => {
    if (body[0] === "#") {
      const n = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : m;
    }
    return NAMED[body.toLowerCase()] ?? m;
  });
}

export interface HtmlPage {
  title?: string;
  markdown: string;
}

export function htmlToMarkdown(html: string, baseUrl?: string): HtmlPage {
  const titleMatch = html.match(/<title[^>]*>([\s\S]*?)<\/title>/i);
  const title = titleMatch ? decodeHtmlEntities(titleMatch[1]!.replace(/\s+/g, " ").trim()) : undefined;
  let body = html.replace(/<!--[\s\S]*?-->/g, "").replace(/<head[\s>][\s\S]*?<\/head>/i, "");
  for (const tag of DROP) body = body.replace(new RegExp(`<${tag}[\\s>][\\s\\S]*?</${tag}\\s*>`, "gi"), "");
  const focus = body.match(/<main[\s>][\s\S]*<\/main\s*>/i) ?? body.match(/<article[\s>][\s\S]*<\/article\s*>/i);
  if (focus) body = focus[0];
  const markdown = convert(body, baseUrl);
  return title ? { title, markdown } : { markdown };
}

interface State {
  out: string[];
  lists: Array<{ ordered: boolean; n: number }>;
  pre: number;
  links: Array<{ href?: string; at: number }>;
  quote: number;
}

function convert(html: string, baseUrl: string | undefined): string {
  const s: State = { out: [], lists: [], pre: 0, links: [], quote: 0 };
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|([^<]+|<)/g;
  for (const m of html.matchAll(re)) {
    if (m[4] !== undefined) {
      text(s, decodeHtmlEntities(m[4]));
      continue;
    }
    const closing = m[1] === "/";
    const tag = m[2]!.toLowerCase();
    const attrs = m[3] ?? "";
    if (closing) close(s, tag, baseUrl);
    else open(s, tag, attrs);
  }
  return s.out
    .join("")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function text(s: State, t: string): void {
  if (s.pre) {
    s.out.push(t);
    return;
  }
  let collapsed = t.replace(/\s+/g, " ");
  if (/\s/.test(lastChar(s))) collapsed = collapsed.replace(/^ /, "");
  if (collapsed) s.out.push(collapsed);
}

function lastChar(s: State): string {
  for (let i = s.out.length - 1; i >= 0; i--) {
    const p = s.out[i]!;
    if (p) return p[p.length - 1]!;
  }
  return "\n";
}

function block(s: State): void {
  const prefix = s.quote ? "\n" + "> ".repeat(s.quote) : "\n";
  s.out.push(s.lists.length ? "\n" : `\n${prefix}`);
}

/** Emphasis and inline code: the same mark opens and closes them (inline code is plain text inside `<pre>`). */
const INLINE_MARK = new Map([["code", "`"], ["strong", "**"], ["b", "**"], ["em", "_"], ["i", "_"]]);

function inlineMark(s: State, tag: string): boolean {
  const mark = INLINE_MARK.get(tag);
  if (mark === undefined) return false;
  if (tag !== "code" || !s.pre) s.out.push(mark);
  return true;
}

function open(s: State, tag: string, attrs: string): void {
  const h = /^h([1-6])$/.exec(tag);
  if (h) {
    block(s);
    s.out.push(`${"#".repeat(Number(h[1]))} `);
    return;
  }
  if (inlineMark(s, tag)) return;
  switch (tag) {
    case "br":
      s.out.push(s.pre ? "\n" : "  \n");
      return;
    case "hr":
      block(s);
      s.out.push("---");
      block(s);
      return;
    case "pre":
      block(s);
      s.out.push("```\n");
      s.pre++;
      return;
    case "blockquote":
      s.quote++;
      block(s);
      return;
    case "ul":
    case "ol":
      if (!s.lists.length) block(s);
      s.lists.push({ ordered: tag === "ol", n: 0 });
      return;
    case "li": {
      const list = s.lists.at(-1);
      const depth = Math.max(0, s.lists.length - 1);
      if (list) list.n++;
      s.out.push(`\n${"  ".repeat(depth)}${list?.ordered ? `${list.n}.` : "-"} `);
      return;
    }
    case "a": {
      const href = attrs.match(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i);
      const value = href ? decodeHtmlEntities(href[1] ?? href[2] ?? href[3] ?? "") : undefined;
      s.links.push({ ...(value ? { href: value } : {}), at: s.out.length });
      return;
    }
    case "img": {
      const alt = attrs.match(/\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i);
      const a = alt ? decodeHtmlEntities(alt[1] ?? alt[2] ?? "").trim() : "";
      if (a) s.out.push(`[image: ${a}]`);
      return;
    }
    case "tr":
      s.out.push("\n|");
      return;
    case "td":
    case "th":
      s.out.push(" ");
      return;
    default:
      if (BLOCK.has(tag)) block(s);
  }
}

function close(s: State, tag: string, baseUrl: string | undefined): void {
  if (/^h[1-6]$/.test(tag)) {
    block(s);
    return;
  }
  if (inlineMark(s, tag)) return;
  switch (tag) {
    case "pre":
      if (s.pre) s.pre--;
      s.out.push("\n```");
      block(s);
      return;
    case "blockquote":
      if (s.quote) s.quote--;
      block(s);
      return;
    case "ul":
    case "ol":
      s.lists.pop();
      if (!s.lists.length) block(s);
      return;
    case "a": {
      const link = s.links.pop();
      if (!link?.href || link.href.startsWith("#") || /^javascript:/i.test(link.href)) return;
      const label = s.out.splice(link.at).join("").trim();
      if (!label) return;
      s.out.push(`[${label}](${absolute(link.href, baseUrl)})`);
      return;
    }
    case "td":
    case "th":
      s.out.push(" |");
      return;
    default:
      if (BLOCK.has(tag)) block(s);
  }
}

function absolute(href: string, baseUrl: string | undefined): string {
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return href;
  }
}
