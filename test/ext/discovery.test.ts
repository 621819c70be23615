// Discovery of skills, agent definitions and custom commands from the fixture folders (real-world files written
// for Claude Code and Codex, and malformed ones): precedence, clashes reported once, bad files skipped with a
// warning naming the file and the problem while the others load.
import { beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { discoverExtensions, forgetDiscovery } from "../../src/ext/ext-discovery.ts";
import { loadAgentDefinitions } from "../../src/ext/agents/agent-definition.ts";
import { parseFrontMatter, parseSimpleYaml } from "../../src/ext/front-matter.ts";
import { expandCommand } from "../../src/ext/commands/custom-commands.ts";

const F = join(import.meta.dir, "../fixtures/ext");
const roots = { projectRoot: join(F, "project"), chatcliHome: join(F, "user/.chatcli"), userHome: join(F, "user") };

beforeEach(() => forgetDiscovery());

describe("front matter", () => {
  test("flat keys, lists and the lenient plain scalar (a colon inside a description)", async () => {
    const r = await parseFrontMatter("---\nname: a\ndescription: Use when: the user asks\ntriggers: [x, 'y z']\npaths:\n  - src/**\n  - \"*.md\"\nflag: true\n---\nBody\n");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toEqual({ name: "a", description: "Use when: the user asks", triggers: ["x", "y z"], paths: ["src/**", "*.md"], flag: true });
    expect(r.body).toBe("Body\n");
  });

  test("what the small parser reads, it reads as YAML does; the rest goes to the YAML parser", async () => {
    const { parse } = await import("yaml");
    const same = [
      "description: >-\n  folded\n  text\n\n  second para\nname: x\n",
      "body: |\n  line 1\n    indented\n  line 3\nafter: 1\n",
      "metadata:\n  short-description: Draft entries\n  version: 1.2.0\nname: y\n",
      "tools:\n- read\n- 'search'\nflag: false\nempty:\n",
      "triggers: [a, \"b c\", 3]\nx: ~\n",
    ];
    for (const y of same) expect(parseSimpleYaml(y)).toEqual(parse(y));
    for (const y of ["a: &x 1\nb: *x\n", "m:\n  n:\n    o: 1\n", "f: {a: 1}\n", "s: \"esc\\n\"\n"]) expect(parseSimpleYaml(y)).toBeUndefined();
    const r = await parseFrontMatter("---\nm:\n  n:\n    o: 1\n---\nx");
    expect(r.ok && r.data).toEqual({ m: { n: { o: 1 } } });
  });

  test("broken YAML and an unclosed block are problems; no front matter is no problem", async () => {
    const bad = await parseFrontMatter("---\ntools: [a, b\n  c: d\n---\n");
    expect(!bad.ok && bad.error.code).toBe("yaml");
    const open = await parseFrontMatter("---\nname: x\n");
    expect(!open.ok && open.error.code).toBe("unclosed");
    const none = await parseFrontMatter("just text");
    expect(none.ok && none.hasFrontMatter).toBe(false);
  });
});

describe("skills", () => {
  test("project .chatcli wins over .claude, .agents and the user's; each clash is reported once", async () => {
    const c = await discoverExtensions(roots);
    const names = c.skills.map((s) => s.name);
    expect(names).toEqual(["deploy-checklist", "manual-only", "react-components", "style-background", "pdf-forms", "changelog-writer", "sql-style"]);
    const deploy = c.skills.find((s) => s.name === "deploy-checklist")!;
    expect(deploy.file).toBe(join(F, "project/.chatcli/skills/deploy-checklist/SKILL.md"));
    expect(deploy.scope).toBe("project");
    expect(deploy.triggers).toEqual(["deploy", "release", "rollout"]);
    expect(deploy.paths).toEqual(["deploy/**", "*.tf"]);
    const clashes = c.warnings.filter((w) => w.includes('"deploy-checklist"') && w.includes("hidden"));
    expect(clashes).toHaveLength(2);
    expect(clashes.some((w) => w.includes(join(F, "user/.chatcli/skills/deploy-checklist/SKILL.md")))).toBe(true);
    expect(c.skills.find((s) => s.name === "sql-style")!.scope).toBe("user");
  });

  test("files written for Claude Code and Codex load as they are", async () => {
    const c = await discoverExtensions(roots);
    const pdf = c.skills.find((s) => s.name === "pdf-forms")!;
    expect(pdf.allowedTools).toEqual(["Read", "Bash(python3:*)"]);
    expect(pdf.dir).toBe(join(F, "project/.claude/skills/pdf-forms"));
    expect(pdf.body).toContain("SKILL-BODY-MARKER: pdf-forms");
    const codex = c.skills.find((s) => s.name === "changelog-writer")!;
    expect(codex.description).toStartWith("Write CHANGELOG entries from the commits since the last tag");
    expect(c.skills.find((s) => s.name === "manual-only")!.disableModelInvocation).toBe(true);
    expect(c.skills.find((s) => s.name === "style-background")!.userInvocable).toBe(false);
  });

  test("malformed skills are skipped with a warning naming the file and the problem", async () => {
    const c = await discoverExtensions(roots);
    const w = (dir: string) => c.warnings.find((x) => x.includes(join(F, "project/.chatcli/skills", dir, "SKILL.md")));
    expect(w("broken-yaml")).toContain("no closing --- line");
    expect(w("bad-name")).toContain('"Bad_Name"');
    expect(w("no-description")).toContain("description is missing");
  });
});

describe("agent definitions", () => {
  test("project over user over built-in, Claude Code fields read, malformed skipped", async () => {
    const r = await loadAgentDefinitions(roots.projectRoot, roots.chatcliHome, { userHome: roots.userHome });
    const byName = new Map(r.entries.map((a) => [a.name, a]));
    const cr = byName.get("code-reviewer")!;
    expect(cr.source).toEqual({ scope: "project", path: join(F, "project/.claude/agents/code-reviewer.md") });
    expect(cr.tools).toEqual(["Read", "Grep", "Glob", "Bash"]);
    expect(cr.model).toBeUndefined(); // `sonnet` names no provider: inherit
    expect(cr.modelAsWritten).toBe("sonnet");
    expect(cr.description).toContain("Examples: <example>Context:");
    expect(cr.prompt).toContain("PERSONA-MARKER: code-reviewer");
    const db = byName.get("db-expert")!;
    expect(db).toMatchObject({ tools: ["read", "search", "mcp__postgres__*"], model: "OLLAMA:llama3.2:3b", permissionMode: "plan", maxTurns: 12, skills: ["sql-style"], timeout: 600, isolation: "worktree" });
    expect(byName.get("wide-open")!.permissionMode).toBe("bypass");
    for (const b of ["planner", "coder", "reviewer", "tester", "refactorer", "documenter", "security-auditor", "devops"]) expect(byName.get(b)?.source.scope).toBe("builtin");
    expect(byName.has("broken")).toBe(false);
    expect(r.warnings.find((w) => w.includes("broken.md"))).toContain("not valid YAML");
    expect(r.warnings.filter((w) => w.includes("code-reviewer")).length).toBe(1);
  });
});

describe("custom commands", () => {
  test("file name is the command; built-ins cannot be shadowed; Claude Code and Codex files load", async () => {
    const c = await discoverExtensions(roots);
    expect(c.commands.map((x) => `${x.name}:${x.scope}`).sort()).toEqual(["commit:project", "draftpr:user", "fix-issue:project", "review-file:project", "summarize:project"]);
    // A subfolder organises, it does not rename: .claude/commands/git/commit.md is /commit.
    expect(c.commands.find((x) => x.name === "commit")).toMatchObject({ namespace: "git", allowedTools: ["Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"] });
    expect(c.warnings.find((w) => w.includes("help.md"))).toContain("/help is a built-in command");
    const fix = c.commands.find((x) => x.name === "fix-issue")!;
    expect(fix.argumentHint).toBe("[issue-number]");
    expect(fix.allowedTools).toEqual(["Bash(gh issue view:*)", "Read", "Edit"]);
    expect(c.commands.find((x) => x.name === "draftpr")!.argumentHint).toBe('[FILES=<paths>] [PR_TITLE="<title>"]');
  });

  test("$ARGUMENTS, $1…$9 (shell-like words) and arguments appended when the template names none", () => {
    expect(expandCommand("Fix issue $ARGUMENTS now", "123 urgent")).toBe("Fix issue 123 urgent now");
    expect(expandCommand("Review $1 for $2 (@$1)", 'src/a.ts "error handling"')).toBe("Review src/a.ts for error handling (@src/a.ts)");
    expect(expandCommand("Only $1 and $3", "a")).toBe("Only a and ");
    expect(expandCommand("Summarize.", "briefly")).toBe("Summarize.\n\nARGUMENTS: briefly");
    expect(expandCommand("Summarize.", "")).toBe("Summarize.");
  });
});
