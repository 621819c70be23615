/** Index-preserving helpers for the scanners (String#toLowerCase can change a string's length). */

function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** Case-insensitive (ASCII) `text.startsWith(s, i)`; `s` must be lowercase. */
export function startsWithCI(text: string, i: number, s: string): boolean {
  if (i < 0 || i + s.length > text.length) return false;
  for (let k = 0; k < s.length; k++) {
    if (lowerAscii(text.charCodeAt(i + k)) !== s.charCodeAt(k)) return false;
  }
  return true;
}

export function isWs(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

export function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text[i])) i++;
  return i;
}

/** Strips a ```json … ``` wrapper around a whole value. */
export function stripFence(s: string): string {
  const t = s.trim();
  if (!t.startsWith("```")) return t;
  const nl = t.indexOf("\n");
  if (nl < 0) return t;
  const close = t.lastIndexOf("```");
  return (close > nl ? t.slice(nl + 1, close) : t.slice(nl + 1)).trim();
}
