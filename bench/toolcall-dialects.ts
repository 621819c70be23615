/**
 * Tool-call dialect recovery (issue 16): runs the parser over the whole fixture corpus
 * (test/fixtures/toolcalls/) and prints, per dialect family (`style`), recovered / total, plus false
 * executions: calls parsed from a negative case (prose, docs, examples) or calls a positive case did not expect.
 * Budget: ≥ 95 % recovered overall, 0 false executions. Run: `bun bench/toolcall-dialects.ts [--misses]`.
 */
import { parseToolCalls } from "../src/agent/toolcall-parser.ts";
import { loadCorpus } from "../test/support/toolcall-corpus.ts";

const GOAL = 0.95;
const showMisses = process.argv.includes("--misses");
const rows = new Map<string, { ok: number; total: number }>();
let negatives = 0;
let falseExec = 0;
let ok = 0;
let positives = 0;
const misses: string[] = [];

for (const c of loadCorpus()) {
  const r = parseToolCalls(c.input);
  const got = r.calls.map(({ name, args }) => ({ name, args }));
  const want = c.expected.calls;
  if (want.length === 0) {
    negatives++;
    if (got.length > 0) {
      falseExec += got.length;
      misses.push(`FALSE ${c.id}: ${JSON.stringify(got)}`);
    }
    continue;
  }
  positives++;
  const row = rows.get(c.style) ?? { ok: 0, total: 0 };
  row.total++;
  const same = JSON.stringify(got) === JSON.stringify(want);
  if (same) {
    row.ok++;
    ok++;
  } else {
    misses.push(`MISS ${c.id} (${c.style}): got ${JSON.stringify(got).slice(0, 200)} errors ${JSON.stringify(r.errors).slice(0, 200)}`);
    // a call nobody asked for (not just a wrong argument) is a false execution too
    for (const g of got) if (!want.some((w) => w.name === g.name)) falseExec++;
  }
  rows.set(c.style, row);
}

const pad = (s: string, n: number) => s + " ".repeat(Math.max(0, n - s.length));
console.log(`${pad("dialect", 22)} recovered / total`);
for (const [style, r] of [...rows].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`${pad(style, 22)} ${r.ok} / ${r.total}`);
const rate = positives ? ok / positives : 1;
console.log(`all: ${ok} / ${positives} recovered (${(rate * 100).toFixed(1)} %, goal ≥ ${GOAL * 100} %: ${rate >= GOAL ? "OK" : "UNDER"})`);
console.log(`negatives: ${negatives}; false executions: ${falseExec} (goal 0: ${falseExec === 0 ? "OK" : "OVER"})`);
if (showMisses) for (const m of misses) console.log(m);
