/**
 * The `skill` tool: the model loads a skill's instructions by name (progressive disclosure). Read-only, no
 * approval: it returns text chatcli already holds. The result is for the model (English, not in the i18n table).
 */
import type { ToolSpec } from "../../protocol/llm.ts";
import type { Skill } from "./load-skills.ts";

export const SKILL_TOOL = "skill";

export function skillToolSpec(): ToolSpec {
  return {
    name: SKILL_TOOL,
    description: "Load the full instructions of a skill listed in the system prompt's skill catalog. Call it with the skill's name before starting a task the skill covers, then follow the instructions it returns.",
    parameters: {
      type: "object",
      properties: { name: { type: "string", description: "The skill's name, exactly as listed in the catalog." } },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

/** The text the model gets for one skill: its instructions, and where its other files are. */
export function skillText(s: Skill): string {
  return `<skill name="${s.name}" dir="${s.dir}">\n${s.body}\n</skill>\nFiles this skill refers to are in ${s.dir} (read them with \`read\`). Scripts it mentions run only through \`exec\`, with the usual approval.`;
}

export function skillArgName(args: Record<string, unknown> | undefined): string | undefined {
  const v = args?.name ?? args?.skill ?? args?.skill_name;
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}
