/** HTML/XML character references as models write them inside tool-call attributes. */

const NAMED: Record<string, string> = {
  quot: '"',
  apos: "'",
  amp: "&",
  lt: "<",
  gt: ">",
  nbsp: "\u00a0",
  tab: "\t",
  newline: "\n",
};

/** Decodes named (`&quot;`), decimal (`&#39;`) and hex (`&#x27;`) references; unknown ones stay as written. */
export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  let out = "";
  let i = 0;
  while (i < s.length) {
    const amp = s.indexOf("&", i);
    if (amp < 0) break;
    out += s.slice(i, amp);
    const semi = s.indexOf(";", amp + 1);
    const body = semi > amp && semi - amp <= 10 ? s.slice(amp + 1, semi) : undefined;
    const decoded = body === undefined ? undefined : decodeOne(body);
    if (decoded === undefined) {
      out += "&";
      i = amp + 1;
    } else {
      out += decoded;
      i = semi + 1;
    }
  }
  return out + s.slice(i);
}

function decodeOne(body: string): string | undefined {
  if (body.startsWith("#x") || body.startsWith("#X")) {
    if (!/^[0-9a-fA-F]{1,6}$/.test(body.slice(2))) return undefined;
    return fromCode(parseInt(body.slice(2), 16));
  }
  if (body.startsWith("#")) {
    if (!/^\d{1,7}$/.test(body.slice(1))) return undefined;
    return fromCode(parseInt(body.slice(1), 10));
  }
  return NAMED[body.toLowerCase()];
}

function fromCode(n: number): string | undefined {
  if (!Number.isFinite(n) || n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
  return String.fromCodePoint(n);
}

/**
 * True when quote characters themselves are entity-escaped, i.e. the JSON structure was escaped as a whole
 * (`{&quot;path&quot;:…}`). Without this, entities are content (an HTML file) and must be left alone.
 */
export function hasQuoteEntities(s: string): boolean {
  return /&(?:quot|apos|#0*3[49]|#x0*2[27]);/i.test(s);
}

/** Only the apostrophe references: safe to decode anywhere in JSON, since `'` needs no escaping there. */
export function decodeApostropheEntities(s: string): string {
  return s.replace(/&(?:apos|#0*39|#x0*27);/gi, "'");
}
