import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionPolicy } from "../../src/tool/permission.ts";

function policy(rules: { pattern: string; action: string }[]) {
  const root = mkdtempSync(join(tmpdir(), "mcp-perm-"));
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "coder_policy.json"), JSON.stringify({ rules }));
  return createPermissionPolicy({ homeDir: home, projectRoot: join(root, "proj"), userHome: root });
}

describe("permission policy for MCP tools", () => {
  test("default: an MCP tool asks; mcp_search (reads the local catalog) is allowed", () => {
    const p = policy([]);
    expect(p.decide({ tool: "mcp__github__create_issue", args: { title: "x" } }).action).toBe("ask");
    expect(p.decide({ tool: "mcp_search", args: { query: "x" } }).action).toBe("allow");
  });

  test("`mcp__github__*` allows every tool of that server only; a deny rule wins over it", () => {
    const p = policy([{ pattern: "mcp__github__*", action: "allow" }, { pattern: "mcp__github__delete_repo", action: "deny" }]);
    expect(p.decide({ tool: "mcp__github__create_issue", args: {} }).action).toBe("allow");
    expect(p.decide({ tool: "mcp__github__delete_repo", args: {} }).action).toBe("deny");
    expect(p.decide({ tool: "mcp__gitlab__create_issue", args: {} }).action).toBe("ask");
  });

  test("an \"always\" answer remembers the exact tool name", () => {
    const p = policy([]);
    expect(p.suggestPatterns({ tool: "mcp__fs__write", args: { path: "/x" } })).toEqual(["mcp__fs__write"]);
  });
});
