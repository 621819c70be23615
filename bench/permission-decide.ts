/**
 * Cost of one exec permission decision (parse, dangerous check, maybe-dangerous check, fail-closed read-only check)
 * over the issue-14 table (test/tool/permission/exec-attack-cases.ts: everyday commands and attacks). Budget: well
 * under a millisecond per decision (it runs once per exec, before a process spawn that costs several ms).
 * Run: `bun bench/permission-decide.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy } from "../src/tool/permission.ts";
import { ASK, DENY, EVERYDAY, MAYBE } from "../test/tool/permission/exec-attack-cases.ts";

const BUDGET_US = 1000;
const ROUNDS = 20;
const dir = mkdtempSync(join(tmpdir(), "chatcli-bench-perm-"));
try {
  const policy = createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: join(dir, "project"), userHome: "/home/tester" });
  const all = [...EVERYDAY, ...ASK, ...MAYBE, ...DENY];
  const run = (commands: string[]) => {
    const t0 = performance.now();
    for (let r = 0; r < ROUNDS; r++) for (const command of commands) policy.decide({ tool: "exec", args: { command } });
    return ((performance.now() - t0) * 1000) / (ROUNDS * commands.length);
  };
  run(all); // warm-up
  const everyday = run(EVERYDAY);
  const whole = run(all);
  // Per row: the best of 5 runs (a GC pause or a busy neighbour is not the row's cost), then the 95th percentile.
  const perRow = all.map((c) => Math.min(...Array.from({ length: 5 }, () => run([c])))).sort((a, b) => a - b);
  const p95 = perRow[Math.floor(perRow.length * 0.95)] as number;
  const worst = perRow[perRow.length - 1] as number;
  const line = (what: string, us: number) => console.log(`${what.padEnd(34)} ${us.toFixed(1).padStart(8)} µs   budget ${BUDGET_US} µs   ${us <= BUDGET_US ? "ok" : "OVER"}`);
  line(`everyday rows (${EVERYDAY.length}), mean`, everyday);
  line(`whole table (${all.length}), mean`, whole);
  line("per row (best of 5), p95", p95);
  line("per row (best of 5), slowest", worst);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
