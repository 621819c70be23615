import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createPermissionPolicy } from "../../src/tool/permission.ts";
import fixture from "../fixtures/permission/exec-cases.json";

const caseSchema = z.object({
  command: z.string(),
  expect: z.enum(["allow", "ask", "deny"]),
  source: z.enum(["dangerous", "rule", "protected", "mode", "safety", "default"]).optional(),
  mode: z.enum(["default", "accept-edits", "plan", "bypass"]).optional(),
  note: z.string().optional(),
});
const cases = z.object({ cases: z.array(caseSchema) }).parse(fixture).cases;

const dir = mkdtempSync(join(tmpdir(), "chatcli-perm-table-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const policy = createPermissionPolicy({ homeDir: join(dir, "home"), projectRoot: join(dir, "project"), userHome: "/home/tester" });

describe("exec decisions with no rules (test/fixtures/permission/exec-cases.json)", () => {
  for (const c of cases) {
    test(`${JSON.stringify(c.command)} → ${c.expect}${c.source ? ` (${c.source})` : ""}`, () => {
      policy.setMode(c.mode ?? "default");
      const d = policy.decide({ tool: "exec", args: { command: c.command } });
      expect({ action: d.action, ...(c.source ? { source: d.source } : {}) }).toEqual({ action: c.expect, ...(c.source ? { source: c.source } : {}) });
      expect(d.reason.length).toBeGreaterThan(0);
    });
  }
});

describe("every dangerous case stays denied in bypass mode", () => {
  for (const c of cases.filter((x) => x.expect === "deny")) {
    test(JSON.stringify(c.command), () => {
      policy.setMode("bypass");
      expect(policy.decide({ tool: "exec", args: { command: c.command } }).action).toBe("deny");
    });
  }
});
