/**
 * Character-safe string slicing. JS strings are UTF-16: a cut between a high and a low surrogate would leave
 * half a code point (which becomes U+FFFD on the wire). These helpers move the cut so pairs stay whole.
 */

/** True when index `i` falls between the two halves of a surrogate pair. */
export function splitsSurrogate(s: string, i: number): boolean {
  if (i <= 0 || i >= s.length) return false;
  const prev = s.charCodeAt(i - 1);
  const next = s.charCodeAt(i);
  return prev >= 0xd800 && prev <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}

/** The first `n` code units, moved back one if the cut would split a pair. */
export function safeHead(s: string, n: number): string {
  if (n >= s.length) return s;
  if (n <= 0) return "";
  return s.slice(0, splitsSurrogate(s, n) ? n - 1 : n);
}

/** The last `n` code units, moved forward one if the cut would split a pair. */
export function safeTail(s: string, n: number): string {
  if (n >= s.length) return s;
  if (n <= 0) return "";
  const start = s.length - n;
  return s.slice(splitsSurrogate(s, start) ? start + 1 : start);
}

/** `s.slice(start, end)` with both cuts moved off surrogate pairs. */
export function safeSlice(s: string, start: number, end = s.length): string {
  let a = Math.max(0, Math.min(start, s.length));
  let b = Math.max(a, Math.min(end, s.length));
  if (splitsSurrogate(s, a)) a += 1;
  if (splitsSurrogate(s, b)) b -= 1;
  return a >= b ? "" : s.slice(a, b);
}

/**
 * Keep the head and tail of an over-long text with a marker between them:
 * `[TRUNCATED N chars omitted, M kept]`. The result is at most `max` chars plus the marker line.
 */
export function truncateHeadTail(s: string, max: number, headShare = 0.8): { text: string; truncated: boolean; omitted: number } {
  if (s.length <= max) return { text: s, truncated: false, omitted: 0 };
  const headLen = Math.floor(max * headShare);
  const head = safeHead(s, headLen);
  const tail = safeTail(s, Math.max(0, max - head.length));
  const omitted = s.length - head.length - tail.length;
  const kept = head.length + tail.length;
  return { text: `${head}\n\n... [TRUNCATED ${omitted} chars omitted, ${kept} kept] ...\n\n${tail}`, truncated: true, omitted };
}

/**
 * The first `n` code units (safeHead), cut back to just before the last newline when that newline lies in the
 * second half: a cut at a line end reads better, yet a single huge line still shows something.
 */
export function headToLine(s: string, n: number): string {
  const head = safeHead(s, n);
  const nl = head.lastIndexOf("\n");
  return nl > head.length / 2 ? head.slice(0, nl) : head;
}

/** The last `n` code units (safeTail), cut forward past the first newline when it lies in the first half. */
export function tailFromLine(s: string, n: number): string {
  const tail = safeTail(s, n);
  const first = tail.indexOf("\n");
  return first !== -1 && first < tail.length / 2 ? tail.slice(first + 1) : tail;
}

/**
 * The first `n` code units cut where a person would cut: at the last line end, else the last space, when one
 * lies in the last third; only a text with neither (one long word, a hash) is cut mid-word.
 */
export function headAtBoundary(s: string, n: number): string {
  const head = safeHead(s, n);
  if (head.length >= s.length) return head;
  const floor = (head.length * 2) / 3;
  const nl = head.lastIndexOf("\n");
  if (nl > floor) return head.slice(0, nl);
  const sp = Math.max(head.lastIndexOf(" "), head.lastIndexOf("\t"));
  return sp > floor ? head.slice(0, sp) : head;
}

/** The last `n` code units starting where a line (else a word) starts, when one does in the first third. */
export function tailAtBoundary(s: string, n: number): string {
  const tail = safeTail(s, n);
  if (tail.length >= s.length) return tail;
  const ceil = tail.length / 3;
  const nl = tail.indexOf("\n");
  if (nl !== -1 && nl < ceil) return tail.slice(nl + 1);
  const m = /[ \t]/.exec(tail);
  return m && m.index < ceil ? tail.slice(m.index + 1) : tail;
}
