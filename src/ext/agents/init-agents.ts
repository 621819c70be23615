/**
 * `chatcli agents init`: the built-in personas as editable files in `<project>/.chatcli/agents/NAME.md` (a file
 * there replaces the built-in of its name). Existing files are kept unless `force`.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentDefinition } from "./agent-definition.ts";
import { BUILTIN_AGENTS } from "./builtin-agents.ts";

export interface InitResult {
  dir: string;
  written: string[];
  kept: string[];
}

export async function initAgents(projectRoot: string, o: { force?: boolean } = {}): Promise<InitResult> {
  const dir = join(projectRoot, ".chatcli", "agents");
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  for (const a of BUILTIN_AGENTS) {
    const file = join(dir, `${a.name}.md`);
    if (existsSync(file) && !o.force) {
      kept.push(file);
      continue;
    }
    await writeFile(file, agentFileText(a));
    written.push(file);
  }
  return { dir, written, kept };
}

/** A definition as the Markdown file that loads back to it. */
export function agentFileText(a: AgentDefinition): string {
  const lines = ["---", `name: ${a.name}`, `description: ${JSON.stringify(a.description)}`];
  if (a.tools) lines.push(`tools: ${a.tools.join(", ")}`);
  lines.push(`model: ${a.model ?? "inherit"}`);
  if (a.permissionMode) lines.push(`permissionMode: ${a.permissionMode}`);
  if (a.maxTurns) lines.push(`maxTurns: ${a.maxTurns}`);
  if (a.skills.length) lines.push(`skills: ${a.skills.join(", ")}`);
  lines.push("---", "", a.prompt, "");
  return lines.join("\n");
}
