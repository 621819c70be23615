// The pure parts: the catalog bounded by the window (descriptions dropped first, then the least relevant
// skills), activation by trigger word and by path glob, and tool allowlists with other agents' names and globs.
import { describe, expect, test } from "bun:test";
import { buildCatalog, catalogBudgetChars } from "../../src/ext/skills/skill-catalog.ts";
import { pathsInArgs, pathsMentioned, skillsForPath, triggeredSkills } from "../../src/ext/skills/skill-activation.ts";
import type { Skill } from "../../src/ext/skills/load-skills.ts";
import { toolAllowed } from "../../src/ext/agents/tool-allowlist.ts";

function skill(name: string, o: Partial<Skill> = {}): Skill {
  return { name, description: `${name} description ${"words ".repeat(20)}`, allowedTools: [], disableModelInvocation: false, userInvocable: true, paths: [], triggers: [], body: `body of ${name}`, file: `/s/${name}/SKILL.md`, dir: `/s/${name}`, scope: "project", ...o };
}

describe("catalog bounding", () => {
  const many = Array.from({ length: 40 }, (_, i) => skill(`skill-${String(i).padStart(2, "0")}`, i >= 30 ? { scope: "user" } : {}));

  test("a large window lists every skill with its description", () => {
    const c = buildCatalog(many, { budgetChars: catalogBudgetChars(200_000), active: new Set() });
    expect(c.shortened).toEqual([]);
    expect(c.dropped).toEqual([]);
    for (const s of many) expect(c.text).toContain(`- ${s.name}: ${s.name} description`);
  });

  test("a smaller window drops descriptions first, least relevant first, and keeps every name", () => {
    const budget = 2_500;
    const c = buildCatalog(many, { budgetChars: budget, active: new Set(), request: "please look at skill-35" });
    expect(c.text.length).toBeLessThanOrEqual(budget);
    expect(c.dropped).toEqual([]);
    expect(c.shortened.length).toBeGreaterThan(0);
    // User-scope skills rank below project ones: their descriptions go first.
    expect(c.shortened).toContain("skill-39");
    expect(c.text).toContain("- skill-00: skill-00 description");
    for (const s of many) expect(c.text).toContain(`- ${s.name}`);
  });

  test("a tiny window drops the least relevant skills too; active ones stay; user-only skills are never listed", () => {
    const withManual = [...many, skill("manual", { disableModelInvocation: true })];
    const c = buildCatalog(withManual, { budgetChars: catalogBudgetChars(4_096), active: new Set(["skill-38"]) });
    expect(c.text.length).toBeLessThanOrEqual(catalogBudgetChars(4_096));
    expect(c.dropped.length).toBeGreaterThan(0);
    expect(c.text).toContain("- skill-38");
    expect(c.dropped).not.toContain("skill-38");
    expect(c.dropped).toContain("skill-39");
    expect(c.text).not.toContain("manual");
  });
});

describe("activation", () => {
  const skills = [skill("deploy", { triggers: ["deploy", "roll out"] }), skill("react", { paths: ["src/components/**/*.tsx"] }), skill("tf", { paths: ["*.tf"] })];

  test("a trigger counts as a whole word or phrase, any case", () => {
    expect(triggeredSkills("Please DEPLOY the api", skills).map((m) => m.skill.name)).toEqual(["deploy"]);
    expect(triggeredSkills("we will roll out today", skills).map((m) => m.trigger)).toEqual(["roll out"]);
    expect(triggeredSkills("the deployment failed", skills)).toEqual([]);
  });

  test("paths: relative or absolute inside the project; a glob without / matches a file name at any depth", () => {
    expect(skillsForPath("src/components/ui/Button.tsx", skills, "/p").map((m) => m.skill.name)).toEqual(["react"]);
    expect(skillsForPath("/p/src/components/Button.tsx", skills, "/p").map((m) => m.skill.name)).toEqual(["react"]);
    expect(skillsForPath("infra/main.tf", skills, "/p").map((m) => m.skill.name)).toEqual(["tf"]);
    expect(skillsForPath("/elsewhere/src/components/B.tsx", skills, "/p")).toEqual([]);
    expect(pathsMentioned("look at @src/components/Button.tsx, and main.tf.")).toEqual(["src/components/Button.tsx", "main.tf"]);
    expect(pathsInArgs({ path: "a.ts", file_path: "b.ts", content: "c.ts" })).toEqual(["a.ts", "b.ts"]);
  });
});

describe("tool allowlists", () => {
  test("our names, Claude Code names, Bash(pattern) and globs", () => {
    const claude = { allow: ["Read", "Grep", "Glob", "Bash(git diff:*)"] };
    expect(["read", "search", "glob", "exec"].every((t) => toolAllowed(t, claude))).toBe(true);
    expect(toolAllowed("write", claude)).toBe(false);
    expect(toolAllowed("edit", claude)).toBe(false);
    const mcp = { allow: ["read", "mcp__github__*"] };
    expect(toolAllowed("mcp__github__create_issue", mcp)).toBe(true);
    expect(toolAllowed("mcp__slack__post", mcp)).toBe(false);
    expect(toolAllowed("write", { deny: ["Write", "Edit"] })).toBe(false);
    expect(toolAllowed("exec", {})).toBe(true);
  });
});
