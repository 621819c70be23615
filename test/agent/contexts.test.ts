// Named context sets over a real temp project: mtime cache, directory expansion, caps, persistence.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONTEXT_FILE_CAP, ContextManager } from "../../src/agent/contexts.ts";

let root: string;
let project: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-ctx-"));
  project = join(root, "project");
  dir = join(root, "home", "contexts");
  mkdirSync(join(project, "docs", "deep"), { recursive: true });
  mkdirSync(join(project, "node_modules"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test("a file is read again only when it changes; sets survive a new manager", () => {
  writeFileSync(join(project, "a.md"), "v1");
  const m = new ContextManager({ dir, projectRoot: project });
  expect(m.create("a", ["a.md"]).ok).toBe(true);
  m.attach("a");
  expect(m.parts()[0]!.content).toContain("v1");
  m.parts();
  expect(m.reads).toBe(1);
  writeFileSync(join(project, "a.md"), "v2 longer");
  utimesSync(join(project, "a.md"), new Date(), new Date(Date.now() + 5000));
  expect(m.parts()[0]!.content).toContain("v2 longer");
  expect(m.reads).toBe(2);
  const fresh = new ContextManager({ dir, projectRoot: project });
  expect(fresh.list()).toEqual([expect.objectContaining({ name: "a", paths: ["a.md"], attached: false })]);
  expect(fresh.parts()).toEqual([]);
});

test("directories expand to their files (sorted, skipping hidden and node_modules); big files are cut; missing files are marked", () => {
  writeFileSync(join(project, "docs", "b.md"), "B");
  writeFileSync(join(project, "docs", "deep", "a.md"), "A");
  writeFileSync(join(project, "docs", ".hidden"), "H");
  writeFileSync(join(project, "node_modules", "x.js"), "X");
  writeFileSync(join(project, "big.txt"), "z".repeat(CONTEXT_FILE_CAP + 10));
  writeFileSync(join(project, "gone.txt"), "soon gone");
  const m = new ContextManager({ dir, projectRoot: project });
  expect(m.create("all", ["docs", "big.txt", "gone.txt", "."]).ok).toBe(true);
  rmSync(join(project, "gone.txt"));
  m.attach("all");
  const c = m.parts()[0]!.content;
  const order = ["docs/b.md", "docs/deep/a.md", "big.txt", "gone.txt"].map((p) => c.indexOf(`path="${p}"`));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order[0]).toBeLessThan(order[1]!);
  expect(c).not.toContain(".hidden");
  expect(c).not.toContain("node_modules");
  expect(c).toContain("[... truncated: 10 more characters]");
  expect(c).toContain('<file path="gone.txt" missing="true"/>');
  expect(m.create("bad name!", ["docs"]).ok).toBe(false);
  expect(m.create("empty", []).ok).toBe(false);
  expect(m.delete("all")).toBe(true);
  expect(m.attached()).toEqual([]);
});
