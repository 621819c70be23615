/**
 * Is Bun's runtime transpiler what module plugins cost at start-up (issue 19)? Measures, in fresh processes, the CPU
 * of importing 5 copies of examples/plugins/line-count.ts (the way plugin-host.ts does, with the `chatcli/plugin`
 * module registered) against importing the same 5 files transpiled to .js beforehand, and what the transpiling
 * itself costs (Bun.Transpiler). If `.ts` ≈ `.js`, a cache of transpiled plugins cannot pay for itself.
 * Run: bun bench/plugin-transpile.ts [--runs N]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 9;
const N = 5;

if (process.env.PLUGIN_BENCH_CHILD) {
  // Child: warm what the binary has loaded by then, then import the files and print the CPU milliseconds.
  const { registerPluginModule } = await import("../src/ext/plugins/plugin-module.ts");
  await import("node:fs/promises");
  registerPluginModule();
  const files = process.env.PLUGIN_BENCH_CHILD.split("\n");
  const c0 = process.cpuUsage();
  for (const f of files) await import(f);
  const c = process.cpuUsage(c0);
  console.log((c.user + c.system) / 1000);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "chatcli-plugin-bench-"));
const example = readFileSync(join(import.meta.dir, "../examples/plugins/line-count.ts"), "utf8");
const transpiler = new Bun.Transpiler({ loader: "ts" });
const ts: string[] = [];
const js: string[] = [];
let transpileMs = 0;
for (let i = 1; i <= N; i++) {
  const source = example.replaceAll("line_count", `line_count_${i}`).replaceAll('"line-count"', `"line-count-${i}"`);
  mkdirSync(join(dir, "ts"), { recursive: true });
  mkdirSync(join(dir, "js"), { recursive: true });
  writeFileSync(join(dir, "ts", `p${i}.ts`), source);
  const t0 = performance.now();
  const out = transpiler.transformSync(source);
  transpileMs += performance.now() - t0;
  writeFileSync(join(dir, "js", `p${i}.js`), out);
  ts.push(join(dir, "ts", `p${i}.ts`));
  js.push(join(dir, "js", `p${i}.js`));
}

function child(files: string[]): number {
  const r = Bun.spawnSync([process.execPath, import.meta.path], { env: { ...process.env, PLUGIN_BENCH_CHILD: files.join("\n") }, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return Number(r.stdout.toString().trim());
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(child(ts));
    b.push(child(js));
  }
  console.log(`${N} plugins, ${RUNS} fresh processes each (CPU of the imports)`);
  console.log(`  .ts (runtime transpiler): median ${median(a).toFixed(2)} ms`);
  console.log(`  .js (transpiled before):  median ${median(b).toFixed(2)} ms`);
  console.log(`  Bun.Transpiler on the ${N} sources (its first use, in this process): ${transpileMs.toFixed(2)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
