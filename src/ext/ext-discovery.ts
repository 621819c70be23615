/**
 * One discovery of skills, agent definitions and custom commands per project and home, started as early as
 * main.ts knows the roots (so it overlaps the model look-up) and shared with the session that needs it. All reads
 * are asynchronous: the first frame never waits for them.
 */
import { t } from "../i18n/i18n.ts";
import { loadAgentDefinitions, type AgentDefinition } from "./agents/agent-definition.ts";
import { loadCustomCommands, type CustomCommand } from "./commands/custom-commands.ts";
import type { ExtRoots } from "./ext-files.ts";
import { loadSkills, type Skill } from "./skills/load-skills.ts";

export interface ExtCatalogue {
  skills: Skill[];
  agents: AgentDefinition[];
  commands: CustomCommand[];
  /** Skipped files and clashes, each said once, in the person's language. */
  warnings: string[];
  /** The part of `warnings` about skills. */
  skillWarnings: string[];
}

/**
 * Slash commands chatcli itself answers (the TUI's, the CLI's and this feature's): a custom command or a skill of
 * the same name is not offered as `/name` (reported). Kept by hand (ext/ cannot import the UI): a new built-in command
 * that is missing here fails test/ext/reserved-commands.test.ts.
 */
export const RESERVED_COMMANDS: readonly string[] = ["help", "model", "provider", "clear", "compact", "rewind", "session", "stats", "status", "ui", "exit", "quit", "context", "agent", "agents", "skills", "plugins", "hooks", "diff", "undo", "init", "todo", "theme", "vim", "mcp", "memory", "watch"];

const cache = new Map<string, Promise<ExtCatalogue>>();

export function discoverExtensions(roots: ExtRoots, reserved: readonly string[] = RESERVED_COMMANDS): Promise<ExtCatalogue> {
  const key = JSON.stringify([roots.projectRoot, roots.chatcliHome, roots.userHome ?? "", [...reserved].sort()]);
  let p = cache.get(key);
  if (!p) {
    p = load(roots, new Set(reserved.map((r) => r.toLowerCase())));
    cache.set(key, p);
  }
  return p;
}

/** Forget what was discovered (tests, and a future `/reload`). */
export function forgetDiscovery(): void {
  cache.clear();
}

async function load(roots: ExtRoots, reserved: ReadonlySet<string>): Promise<ExtCatalogue> {
  const [skills, agents, commands] = await Promise.all([
    loadSkills(roots),
    loadAgentDefinitions(roots.projectRoot, roots.chatcliHome, roots.userHome ? { userHome: roots.userHome } : {}),
    loadCustomCommands(roots, reserved),
  ]);
  const skillWarnings = [...skills.warnings];
  // A skill is also `/name` for the user: a built-in or a custom command of that name keeps it.
  const commandNames = new Set(commands.entries.map((c) => c.name));
  for (const s of skills.entries) {
    if (reserved.has(s.name)) skillWarnings.push(t("ext.warn.skillShadowsBuiltin", { name: s.name, file: s.file }));
    else if (commandNames.has(s.name)) skillWarnings.push(t("ext.warn.skillShadowedByCommand", { name: s.name }));
  }
  const warnings = [...skillWarnings, ...agents.warnings, ...commands.warnings];
  return { skills: skills.entries, agents: agents.entries, commands: commands.entries, warnings, skillWarnings };
}
