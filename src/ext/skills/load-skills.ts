/**
 * Skills in the Agent Skills format: `<dir>/<skill>/SKILL.md` with YAML front matter (`name`, `description`,
 * optional `allowed-tools`, `disable-model-invocation`, `user-invocable`, and chatcli's own `paths` globs and `triggers` keywords).
 * Searched in `<project>/.chatcli/skills`, `.claude/skills`, `.agents/skills`, then `~/.chatcli/skills` and
 * `~/.claude/skills`: the first of a name wins (project over user) and each clash is reported once.
 *
 * A skill is data for the model: `allowed-tools` is read and shown but never grants a tool or skips an approval.
 */
import { join } from "node:path";
import { t } from "../../i18n/i18n.ts";
import { nameList } from "../front-matter.ts";
import { discoverEntries, nameAndDescription, type Candidate, type Discovered } from "../ext-entries.ts";
import { extDirs, listDir, type ExtRoots, type ExtScope } from "../ext-files.ts";

export interface Skill {
  name: string;
  description: string;
  /** As written (Claude Code names such as `Bash(git:*)` included); informational only. */
  allowedTools: string[];
  /** Only the user may load it (`/name`); it is not in the model's catalog and the `skill` tool refuses it. */
  disableModelInvocation: boolean;
  /** `user-invocable: false`: not offered as `/name` (the model may still load it). */
  userInvocable: boolean;
  /** Globs (relative to the project root): a file touched or mentioned that matches activates the skill. */
  paths: string[];
  /** Keywords: one of them as a word in a prompt activates the skill. */
  triggers: string[];
  body: string;
  file: string;
  /** The skill's folder: on the read allowlist, so files next to SKILL.md can be read. */
  dir: string;
  scope: ExtScope;
}

export const MAX_SKILL_DESCRIPTION = 1024;

export async function loadSkills(roots: ExtRoots): Promise<Discovered<Skill>> {
  const candidates: Candidate[] = [];
  for (const d of extDirs(roots, "skills")) {
    for (const e of await listDir(d.dir)) {
      if (e.isDir && !e.name.startsWith(".")) candidates.push({ file: join(d.dir, e.name, "SKILL.md"), scope: d.scope, fallbackName: e.name });
    }
  }
  return discoverEntries(candidates, "skill", validateSkill);
}

function validateSkill(c: Candidate, data: Record<string, unknown>, body: string, hasFrontMatter: boolean): Skill | { problem: string } {
  const head = nameAndDescription(c, data, hasFrontMatter);
  if ("problem" in head) return head;
  const { name, description } = head;
  if (description.length > MAX_SKILL_DESCRIPTION) return { problem: t("ext.problem.longDescription", { max: MAX_SKILL_DESCRIPTION }) };
  const disable = data["disable-model-invocation"];
  if (disable !== undefined && disable !== null && typeof disable !== "boolean") return { problem: t("ext.problem.notBoolean", { field: "disable-model-invocation" }) };
  const userInvocable = data["user-invocable"];
  if (userInvocable !== undefined && userInvocable !== null && typeof userInvocable !== "boolean") return { problem: t("ext.problem.notBoolean", { field: "user-invocable" }) };
  return {
    name,
    description,
    allowedTools: nameList(data["allowed-tools"], true),
    disableModelInvocation: disable === true,
    userInvocable: userInvocable !== false,
    paths: nameList(data.paths),
    triggers: nameList(data.triggers).map((s) => s.toLowerCase()),
    body: body.trim(),
    file: c.file,
    dir: join(c.file, ".."),
    scope: c.scope,
  };
}
