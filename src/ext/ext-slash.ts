/**
 * The slash commands of skills, personas and custom commands, for both UIs (main.ts chains them after the
 * others): `/skills`, `/agent [NAME|off]`, `/<skill-name> [request]`, `/<custom-command> [arguments]`.
 * `handle` returns undefined for a name that is not ours.
 */
import { t } from "../i18n/i18n.ts";
import { expandCommand } from "./commands/custom-commands.ts";
import { RESERVED_COMMANDS } from "./ext-discovery.ts";
import { reasonForPeople, type ExtRuntime } from "./ext-runtime.ts";

export interface ExtSlashCommand {
  name: string;
  description: string;
}

/** Completion and `/help` entries: ours, then each custom command and skill marked project or user. */
export function extSlashCommands(rt: ExtRuntime): ExtSlashCommand[] {
  const out: ExtSlashCommand[] = [
    { name: "agent", description: t("ext.cmd.agent") },
    { name: "skills", description: t("ext.cmd.skills") },
  ];
  const taken = new Set(RESERVED_COMMANDS);
  for (const c of rt.customCommands) {
    taken.add(c.name);
    const hint = c.argumentHint ? ` ${c.argumentHint}` : "";
    const mark = c.namespace ? scopeMark(c.scope).replace(/\)$/, `:${c.namespace})`) : scopeMark(c.scope);
    out.push({ name: c.name, description: `${mark}${hint} ${c.description ?? t("ext.cmd.customDefault")}`.trim() });
  }
  for (const s of rt.skills) {
    if (taken.has(s.name) || !s.userInvocable) continue;
    out.push({ name: s.name, description: `${scopeMark(s.scope)} ${t("ext.cmd.skillPrefix")} ${s.description}` });
  }
  return out;
}

function scopeMark(scope: string): string {
  return scope === "project" ? t("ext.scope.project") : scope === "user" ? t("ext.scope.user") : t("ext.scope.builtin");
}

/**
 * The prompt text `-p "/name args"` sends (headless has no slash commands of its own): a custom command expanded,
 * or a skill loaded with the rest as the request. Undefined: not ours, send the text as typed.
 */
export function expandHeadlessPrompt(rt: ExtRuntime, prompt: string): { text: string; command?: import("./commands/custom-commands.ts").CustomCommand } | undefined {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(prompt.trim());
  if (!m) return undefined;
  const [, name, args = ""] = m;
  const cmd = rt.customCommands.find((c) => c.name === name);
  if (cmd) return { text: expandCommand(cmd.template, args), command: cmd };
  if (RESERVED_COMMANDS.includes(name!)) return undefined;
  const skill = rt.skills.some((s) => s.name === name && s.userInvocable) ? rt.activateByUser(name!) : undefined;
  if (skill) return { text: args.trim() || t("ext.skillUseNow", { name: skill.name }) };
  return undefined;
}

export function handleExtSlash(rt: ExtRuntime, name: string, args: string): Promise<string> | undefined {
  // Typed in the first moments, before discovery ended: answered once it has.
  if (!rt.isReady && !RESERVED_COMMANDS.includes(name)) return rt.ready().then(() => handleExtSlash(rt, name, args) ?? t("slash.unknownCommand", { name }));
  if (name === "skills") return rt.ready().then(() => skillsText(rt));
  if (name === "agent") return rt.ready().then(() => agentCommand(rt, args.trim()));
  const cmd = rt.customCommands.find((c) => c.name === name);
  if (cmd) {
    rt.runCommand(cmd, expandCommand(cmd.template, args));
    return Promise.resolve("");
  }
  if (RESERVED_COMMANDS.includes(name)) return undefined;
  const skill = rt.skills.find((s) => s.name === name && s.userInvocable);
  if (!skill) return undefined;
  rt.activateByUser(skill.name);
  if (args.trim()) {
    rt.runCommand({ name: skill.name, template: "", file: skill.file, scope: skill.scope }, args.trim());
    return Promise.resolve("");
  }
  return Promise.resolve(t("ext.skillLoaded", { name: skill.name }));
}

function agentCommand(rt: ExtRuntime, arg: string): string {
  if (!arg) return agentsText(rt);
  if (arg === "off" || arg === "none") return rt.setPersona(undefined);
  return rt.setPersona(arg);
}

function agentsText(rt: ExtRuntime): string {
  const current = rt.persona?.name;
  const lines = rt.agents.map((a) => {
    const mark = a.name === current ? "●" : "○";
    const tools = a.tools ? t("ext.agentTools", { tools: a.tools.join(", ") }) : t("ext.agentAllTools");
    const model = a.modelAsWritten ? ` · ${a.modelAsWritten}` : "";
    return `${mark} ${a.name} ${scopeMark(a.source.scope)} — ${a.description}\n    ${tools}${model}${a.source.path ? ` · ${a.source.path}` : ""}`;
  });
  return [current ? t("ext.agentCurrent", { name: current }) : t("ext.agentNone"), ...lines, t("ext.agentUsage")].join("\n");
}

function skillsText(rt: ExtRuntime): string {
  if (!rt.skills.length) return [t("ext.noSkills"), ...rt.skillWarnings].join("\n");
  const cat = rt.catalog;
  const lines = rt.skills.map((s) => {
    const why = rt.activation(s.name);
    const status = why
      ? t("ext.skillActive", { why: reasonForPeople(why) })
      : s.disableModelInvocation
        ? t("ext.skillUserOnly")
        : cat.dropped.includes(s.name)
          ? t("ext.skillDropped")
          : t("ext.skillNotChosen");
    const short = cat.shortened.includes(s.name) ? ` ${t("ext.skillShortened")}` : "";
    return `${why ? "●" : "○"} ${s.name} ${scopeMark(s.scope)} — ${status}${short}\n    ${s.file}`;
  });
  const notes: string[] = [];
  if (cat.shortened.length || cat.dropped.length) notes.push(t("ext.catalogBounded", { shortened: cat.shortened.length, dropped: cat.dropped.length }));
  return [...lines, ...notes, ...rt.skillWarnings].join("\n");
}
