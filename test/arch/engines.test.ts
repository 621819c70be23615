// Issue 15: README, package.json `engines` and what npm warns about must agree. Node and npm only install;
// Bun (a dev dependency) runs chatcli, its build and its tests. The figures are read from the installed
// @opentui/core, so a dependency bump that moves its floors fails here until the README and engines follow.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const json = (p: string) => JSON.parse(readFileSync(join(root, p), "utf8")) as { engines?: Record<string, string>; devDependencies?: Record<string, string>; version?: string };
const floor = (range: string | undefined) => (/^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range ?? "")?.[1] ?? "").split(".").map(Number);
const atLeast = (v: number[], min: number[]) => {
  for (let i = 0; i < Math.max(v.length, min.length); i++) if ((v[i] ?? 0) !== (min[i] ?? 0)) return (v[i] ?? 0) > (min[i] ?? 0);
  return true;
};

test("the Bun that runs chatcli satisfies @opentui/core, and package.json and the README say so", () => {
  const pkg = json("package.json");
  const otui = json("node_modules/@opentui/core/package.json");
  const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\s+/g, " ");
  const bunFloor = floor(pkg.engines?.bun);
  expect(bunFloor.length).toBeGreaterThan(0);
  expect(atLeast(bunFloor, floor(otui.engines?.bun))).toBe(true);
  const devBun = (pkg.devDependencies?.bun ?? "").split(".").map(Number);
  expect(atLeast(devBun, bunFloor)).toBe(true);
  expect(atLeast(Bun.version.split(".").map(Number), bunFloor)).toBe(true);
  expect(readme).toContain(`Bun (≥ ${pkg.engines!.bun!.replace(">=", "")}`);
  expect(readme).toContain(`brings ${pkg.devDependencies!.bun}`);
});

test("the Node floor in the README is package.json's, and the README names the npm warning @opentui/core causes", () => {
  const pkg = json("package.json");
  const otui = json("node_modules/@opentui/core/package.json");
  const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\s+/g, " ");
  const node = pkg.engines?.node?.replace(">=", "");
  expect(readme).toContain(`Node ≥ ${node} and npm`);
  const otuiNode = otui.engines?.node?.replace(">=", "");
  if (otuiNode && !atLeast(floor(pkg.engines?.node), floor(otui.engines?.node))) {
    expect(readme).toContain("EBADENGINE");
    expect(readme).toContain(`Node ≥ ${otuiNode}`);
  }
});
