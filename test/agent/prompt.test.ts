// Bootstrap files (issue 10): project before ~/.chatcli, CLAUDE.md + GEMINI.md only without AGENTS.md, the mtime
// cache (BootstrapLoader.reads counts real disk reads), and the order of system prompt parts.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOTSTRAP_FILES, BootstrapLoader, composeSystemPrompt, MAX_BOOTSTRAP_CHARS } from "../../src/agent/prompt.ts";

let root: string;
let project: string;
let user: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chatcli-prompt-"));
  project = join(root, "project");
  user = join(root, "home", ".chatcli");
  mkdirSync(project, { recursive: true });
  mkdirSync(user, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const names = (l: BootstrapLoader) => l.load().map((f) => `${f.scope}:${f.name}`);

test("all six files, project first, then the user's, in the fixed order", () => {
  for (const n of [...BOOTSTRAP_FILES].reverse()) {
    writeFileSync(join(project, n), `project ${n}`);
    writeFileSync(join(user, n), `user ${n}`);
  }
  const l = new BootstrapLoader(project, user);
  expect(names(l)).toEqual([...BOOTSTRAP_FILES.map((n) => `project:${n}`), ...BOOTSTRAP_FILES.map((n) => `user:${n}`)]);
  const parts = composeSystemPrompt({ base: "BASE", bootstrap: l.load(), contexts: [{ name: "c", content: "CTX" }], textToolCatalog: "TOOLS" });
  expect(parts.map((p) => p.text.slice(0, 12))).toEqual(["BASE", "Workspace in", 'Attached con', "TOOLS"]);
  expect(parts.every((p) => p.cacheable)).toBe(true);
  const ws = parts[1]!.text;
  expect(ws.indexOf("project AGENTS.md")).toBeLessThan(ws.indexOf("user AGENTS.md"));
});

test("CLAUDE.md and GEMINI.md stand in for a missing AGENTS.md, per directory", () => {
  writeFileSync(join(project, "CLAUDE.md"), "claude rules");
  writeFileSync(join(project, "GEMINI.md"), "gemini rules");
  writeFileSync(join(user, "GEMINI.md"), "user gemini");
  const l = new BootstrapLoader(project, user);
  expect(names(l)).toEqual(["project:CLAUDE.md", "project:GEMINI.md", "user:GEMINI.md"]);
  writeFileSync(join(project, "AGENTS.md"), "agents wins");
  expect(names(l)).toEqual(["project:AGENTS.md", "user:GEMINI.md"]);
  // Empty files are not injected.
  writeFileSync(join(user, "RULES.md"), "  \n");
  expect(names(l)).toEqual(["project:AGENTS.md", "user:GEMINI.md"]);
});

test("unchanged files are not re-read; a change (mtime or size) or a new file is", () => {
  writeFileSync(join(project, "AGENTS.md"), "one");
  writeFileSync(join(user, "USER.md"), "me");
  const l = new BootstrapLoader(project, user);
  l.load();
  expect(l.reads).toBe(2);
  l.load();
  l.load();
  expect(l.reads).toBe(2);
  writeFileSync(join(project, "AGENTS.md"), "two");
  utimesSync(join(project, "AGENTS.md"), new Date(), new Date(Date.now() + 10_000));
  expect(l.load()[0]!.content).toBe("two");
  expect(l.reads).toBe(3);
  writeFileSync(join(project, "SOUL.md"), "soul");
  expect(names(l)).toContain("project:SOUL.md");
  expect(l.reads).toBe(4);
  rmSync(join(project, "SOUL.md"));
  expect(names(l)).not.toContain("project:SOUL.md");
  expect(l.reads).toBe(4);
});

test("a huge bootstrap file is cut with a marker", () => {
  writeFileSync(join(project, "MEMORY.md"), "m".repeat(MAX_BOOTSTRAP_CHARS + 5));
  const f = new BootstrapLoader(project, user).load()[0]!;
  expect(f.content).toContain("[... truncated: 5 more chars");
});
