// webFetch and --offline in the configuration: either settings file can turn fetch off, only the user's own
// settings let it reach private networks (a repository's settings are untrusted), --offline turns it and the
// sandbox's network off; the flag parses.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { parseArgs } from "../../src/cli/args.ts";

let dir: string;
let home: string;
let project: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chatcli-webcfg-"));
  home = join(dir, "home");
  project = join(dir, "proj");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, ".chatcli"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const load = (flags = {}) => loadConfig({ cwd: project, env: { CHATCLI_HOME: home }, flags });
const user = (s: unknown) => writeFileSync(join(home, "settings.json"), JSON.stringify(s));
const proj = (s: unknown) => writeFileSync(join(project, ".chatcli", "settings.json"), JSON.stringify(s));

test("on by default, private networks refused; the user's settings may allow them", () => {
  expect(load().webFetch).toEqual({ enabled: true, allowPrivateNetworks: false });
  user({ webFetch: { allowPrivateNetworks: true } });
  expect(load().webFetch).toEqual({ enabled: true, allowPrivateNetworks: true });
});

test("a project's settings may turn it off but never widen it", () => {
  proj({ webFetch: { allowPrivateNetworks: true } });
  const c = load();
  expect(c.webFetch).toEqual({ enabled: true, allowPrivateNetworks: false });
  expect(c.warnings.join("\n")).toContain("webFetch.allowPrivateNetworks");
  user({ webFetch: false });
  proj({ webFetch: true });
  expect(load().webFetch.enabled).toBe(false);
  user({});
  proj({ webFetch: false });
  expect(load().webFetch.enabled).toBe(false);
});

test("--offline: no fetch tool and no sandbox network, whatever the settings say", () => {
  user({ webFetch: { allowPrivateNetworks: true }, sandbox: { network: true } });
  const c = load({ offline: true });
  expect(c.offline).toBe(true);
  expect(c.webFetch).toEqual({ enabled: false, allowPrivateNetworks: false });
  expect(c.sandbox.network).toBe(false);
  expect(load().sandbox.network).toBe(true);
});

test("--offline parses for every command", () => {
  expect(parseArgs(["--offline"], "0")).toMatchObject({ kind: "interactive", flags: { offline: true } });
  expect(parseArgs(["-p", "x", "--offline"], "0")).toMatchObject({ kind: "oneshot", flags: { offline: true } });
  expect(parseArgs(["update", "--offline"], "0")).toMatchObject({ kind: "update", flags: { offline: true } });
  expect(parseArgs([], "0")).toMatchObject({ flags: {} });
});
