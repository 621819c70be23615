/** Keyword matching for memory: tokens (lower case, stop words out, a light stemmer), Jaccard overlap, BM25. */

const STOP = new Set(
  "a an the and or but if of to in on at for with by from as is are was were be been being it its this that these those i me my we our you your he she they them their user users has have had do does did not no so than then there here what which who whom how when where why can could should would will shall may might must also just very about into over under again more most some such only own same too s t don now".split(
    " ",
  ),
);

export function stem(w: string): string {
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 5 && w.endsWith("ation")) return w.slice(0, -5);
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("es") && /(?:ch|sh|x|ss)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_+#.-]*/gu) ?? [])
    .map((w) => w.replace(/[.-]+$/, ""))
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

export function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (!A.size || !B.size) return 0;
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / (A.size + B.size - inter);
}

/** BM25 score of each document against the query (k1 = 1.2, b = 0.75); 0 where no query term occurs. */
export function bm25(query: readonly string[], docs: ReadonlyArray<readonly string[]>): number[] {
  const n = docs.length;
  if (!n || !query.length) return docs.map(() => 0);
  const avg = docs.reduce((s, d) => s + d.length, 0) / n || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const q = [...new Set(query)];
  return docs.map((d) => {
    const tf = new Map<string, number>();
    for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
    let s = 0;
    for (const w of q) {
      const f = tf.get(w);
      if (!f) continue;
      const idf = Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * d.length) / avg));
    }
    return s;
  });
}
