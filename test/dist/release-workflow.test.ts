/** The forge workflow (.github/workflows/release.yml) cannot run here; check it drives scripts/ for every target. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TARGETS } from "../../scripts/build.ts";

const workflow = readFileSync(join(import.meta.dir, "../../.github/workflows/release.yml"), "utf8");

test("the build matrix has every release target and builds it with npm run release", () => {
  const matrix = [...workflow.matchAll(/target:\s*([a-z0-9-]+)\s*,\s*runner:/g)].map((m) => m[1]);
  expect(matrix.sort()).toEqual(TARGETS.map((t) => t.name).sort());
  expect(workflow).toContain("npm run release -- --targets=${{ matrix.target }} --tag=${{ github.ref_name }}");
  expect(workflow).toContain("scripts/build.ts --merge=");
  expect(workflow).toMatch(/tags:\s*\[\s*"v\*"\s*\]/);
});

test("installs with npm install, not npm ci (the lockfile has no entries for other platforms' OpenTUI packages)", () => {
  const lock = JSON.parse(readFileSync(join(import.meta.dir, "../../package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
  const lockedNatives = Object.keys(lock.packages).filter((k) => k.startsWith("node_modules/@opentui/core-"));
  // Only meaningful while the lock lacks some platform's package (true whenever it was made on one platform).
  if (lockedNatives.length < TARGETS.length) expect(workflow).not.toMatch(/run:.*\bnpm ci\b/);
  expect(workflow).toContain("bash .ci/run");
});
