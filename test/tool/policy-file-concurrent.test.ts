// Two chatcli processes answering "always" at the same moment (test/smoke/qa-resilience saw one rule lost):
// every rule both processes add lands in coder_policy.json.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MODULE = join(import.meta.dir, "../../src/tool/permission/policy-file.ts");

test("addRules from two processes at once loses no rule", async () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-race-"));
  try {
    const file = join(dir, ".chatcli", "coder_policy.json");
    const script = (tag: string) => `const { addRules } = await import(${JSON.stringify(MODULE)}); for (let i = 0; i < 40; i++) addRules(${JSON.stringify(file)}, [{ pattern: "exec touch ${tag}-" + i + ".txt", action: "allow" }]);`;
    const procs = ["a", "b"].map((tag) => Bun.spawn([process.execPath, "-e", script(tag)], { stdout: "ignore", stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual([0, 0]);
    const rules = (JSON.parse(readFileSync(file, "utf8")) as { rules: { pattern: string }[] }).rules.map((r) => r.pattern);
    expect(rules).toHaveLength(80);
    for (const tag of ["a", "b"]) for (let i = 0; i < 40; i++) expect(rules).toContain(`exec touch ${tag}-${i}.txt`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
