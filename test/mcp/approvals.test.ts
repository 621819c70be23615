import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, symlinkSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approve, approvalsPath, entryHash, isApproved, pendingServers, revoke } from "../../src/mcp/approvals.ts";

function fresh() {
  const root = mkdtempSync(join(tmpdir(), "mcp-appr-"));
  const home = join(root, "home");
  const project = join(root, "proj");
  mkdirSync(project);
  return { home, project, root };
}

describe("mcp approvals", () => {
  test("nothing is approved at first; approve makes that exact entry approved, 0600", () => {
    const { home, project } = fresh();
    const entry = { command: "node", args: ["server.js"] };
    expect(isApproved(project, "fs", entry, { home })).toBe(false);
    expect(pendingServers(project, { fs: entry, other: { command: "x" } }, { home })).toEqual(["fs", "other"]);
    approve(project, "fs", entry, { home });
    expect(isApproved(project, "fs", entry, { home })).toBe(true);
    expect(pendingServers(project, { fs: entry, other: { command: "x" } }, { home })).toEqual(["other"]);
    expect(statSync(approvalsPath({ home })).mode & 0o777).toBe(0o600);
  });

  test("a changed entry needs approval again; key order does not matter", () => {
    const { home, project } = fresh();
    approve(project, "fs", { command: "node", args: ["a.js"], env: { A: "1", B: "2" } }, { home });
    expect(isApproved(project, "fs", { env: { B: "2", A: "1" }, args: ["a.js"], command: "node" }, { home })).toBe(true);
    expect(isApproved(project, "fs", { command: "node", args: ["evil.js"], env: { A: "1", B: "2" } }, { home })).toBe(false);
    expect(entryHash({ command: "a" })).not.toBe(entryHash({ command: "b" }));
  });

  test("approvals are per project (by real path) and can be revoked", () => {
    const { home, project, root } = fresh();
    const other = join(root, "other");
    mkdirSync(other);
    const link = join(root, "link");
    symlinkSync(project, link);
    const entry = { url: "http://127.0.0.1:1/mcp" };
    approve(project, "web", entry, { home });
    expect(isApproved(other, "web", entry, { home })).toBe(false);
    expect(isApproved(link, "web", entry, { home })).toBe(true);
    expect(revoke(project, "web", { home })).toBe(true);
    expect(isApproved(project, "web", entry, { home })).toBe(false);
  });

  test("a corrupt store counts as nothing approved and is replaced by approve", () => {
    const { home, project } = fresh();
    mkdirSync(home, { recursive: true });
    require("node:fs").writeFileSync(approvalsPath({ home }), "{not json");
    expect(isApproved(project, "fs", { command: "x" }, { home })).toBe(false);
    approve(project, "fs", { command: "x" }, { home });
    expect(JSON.parse(readFileSync(approvalsPath({ home }), "utf8")).v).toBe(1);
  });
});
