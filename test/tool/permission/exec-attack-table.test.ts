import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy } from "../../../src/tool/permission.ts";
import { ASK, DENY, EVERYDAY, EXPECT, MAYBE, MODES, PROTECTED, SENSITIVE, type Klass } from "./exec-attack-cases.ts";

const dir = mkdtempSync(join(tmpdir(), "chatcli-attack-table-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const policy = createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: join(dir, "project"), userHome: "/home/tester" });

const rows: Array<[string, Klass]> = [
  ...EVERYDAY.map((c): [string, Klass] => [c, "allow"]),
  ...ASK.map((c): [string, Klass] => [c, "ask"]),
  ...MAYBE.map((c): [string, Klass] => [c, "maybe"]),
  ...PROTECTED.map((c): [string, Klass] => [c, "protected"]),
  ...SENSITIVE.map((c): [string, Klass] => [c, "sensitive"]),
  ...DENY.map((c): [string, Klass] => [c, "deny"]),
];

test("the table has at least 300 distinct commands, and 150 everyday ones", () => {
  expect(new Set(rows.map(([c]) => c)).size).toBe(rows.length);
  expect(rows.length).toBeGreaterThanOrEqual(300);
  expect(EVERYDAY.length).toBeGreaterThanOrEqual(150);
});

describe("issue 14 exec table: the decision in every mode (no rules, no sandbox)", () => {
  for (const [command, klass] of rows) {
    test(`${klass}: ${JSON.stringify(command)}`, () => {
      const got: Record<string, string> = {};
      for (const mode of MODES) {
        policy.setMode(mode);
        got[mode] = policy.decide({ tool: "exec", args: { command } }).action;
      }
      expect(got).toEqual(EXPECT[klass]);
    });
  }
});
