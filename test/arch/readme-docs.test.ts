/**
 * Issue 2: the README documents every flag and environment variable that exists. Scans the sources for the
 * env vars they read and the options args.ts declares, and checks README.md names each one.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Names read as `env.X`, `env["X"]`, `readInt(env, "X", …)`-style helpers, and `$X` / `${X:-…}` in shell. */
function envVarsRead(): Set<string> {
  const names = new Set<string>();
  const sources = [...files("src", /\.ts$/), ...files("scripts", /\.(ts|sh)$/), ...files("npm", /^chatcli$/)];
  for (const f of sources) {
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/\benv\s*(?:\.|\[\s*["'`])([A-Z][A-Z0-9]*_[A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\(\s*(?:opts\.)?env\s*,\s*["'`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)["'`]/g)) names.add(m[1]!);
    if (f.endsWith(".sh")) for (const m of text.matchAll(/\$\{?(CHATCLI_[A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return names;
}

test("every environment variable the code reads is in the README", () => {
  const names = envVarsRead();
  expect(names.size).toBeGreaterThan(30); // the scan finds the variables (it is not silently empty)
  const missing = [...names].filter((n) => !readme.includes(n)).sort();
  expect(missing).toEqual([]);
});

test("every command-line option and command is in the README", () => {
  const args = readFileSync(join(root, "src/cli/args.ts"), "utf8");
  const options = [...args.matchAll(/\.option\("([a-z-]+)"/g)].map((m) => m[1]!);
  const commands = [...args.matchAll(/\.command\("([a-z]+)/g)].map((m) => m[1]!);
  expect(options.length).toBeGreaterThan(10);
  expect(commands.length).toBeGreaterThan(4);
  // --tui is documented as its negation.
  const missingOptions = options.filter((o) => !readme.includes(o === "tui" ? "--no-tui" : `--${o}`));
  const missingCommands = commands.filter((c) => !readme.includes(`chatcli ${c}`));
  expect({ missingOptions, missingCommands }).toEqual({ missingOptions: [], missingCommands: [] });
});
