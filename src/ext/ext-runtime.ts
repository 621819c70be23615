/**
 * Skills, personas and custom commands in one session (issue 18). Built by src/cli/wire-session.ts; the session
 * reaches it through four seams: the system prompt (`rolePrompt`, `systemParts`), the pipeline hook before each
 * request (`beforeRequest`: discovery awaited, prompts scanned for triggers and paths), the tool host
 * (`wrapTools`: the persona's allowlist, the `skill` tool) and the slash commands (ext-slash.ts).
 *
 * Trust: every file here may come from the repository. What they can do is add text for the model and narrow
 * tools, permissions and models chosen; never allow a call, skip an approval or widen the permission mode.
 */
import { isAbsolute, relative } from "node:path";
import type { AgentEvent, Op, PermissionMode } from "../protocol/events.ts";
import type { SystemPart } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import type { ToolCallRequest, ToolHost, ToolRunResult } from "../agent/tool-host.ts";
import { t } from "../i18n/i18n.ts";
import { safeHead } from "../util/text.ts";
import type { AgentDefinition } from "./agents/agent-definition.ts";
import { toolAllowed, type ToolFilter } from "./agents/tool-allowlist.ts";
import type { CustomCommand } from "./commands/custom-commands.ts";
import { discoverExtensions, type ExtCatalogue } from "./ext-discovery.ts";
import type { ExtRoots } from "./ext-files.ts";
import { gatedToolHost } from "./ext-tool-host.ts";
import { buildCatalog, catalogBudgetChars, type Catalog } from "./skills/skill-catalog.ts";
import { pathsInArgs, pathsMentioned, skillsForPath, triggeredSkills, type ActivationReason } from "./skills/skill-activation.ts";
import type { Skill } from "./skills/load-skills.ts";
import { skillArgName, skillText } from "./skills/skill-tool.ts";

/** What the runtime needs of the Session (agent/session/session.ts satisfies it). */
export interface ExtSessionPort {
  submit(op: Op): void;
  publish(e: AgentEvent): void;
  subscribe(listener: (e: AgentEvent) => void): () => void;
  readonly model: { providerId: string; model: string };
  readonly mode: PermissionMode;
  readonly contextWindow: number;
}

export interface ExtRuntimeOptions {
  roots: ExtRoots;
  /** Puts a folder on the read allowlist (each skill's folder). */
  addReadPath(dir: string): void;
  /** Announces the files skipped and the clashes (once, when discovery ends). */
  warn?(text: string): void;
}

/** Permission modes from the most restrictive: a persona may move the session left, never right. */
const MODE_ORDER: readonly PermissionMode[] = ["plan", "default", "accept-edits", "bypass"];

export class ExtRuntime {
  private cat: ExtCatalogue | undefined;
  private loading: Promise<ExtCatalogue> | undefined;
  private session: ExtSessionPort | undefined;
  private personaDef: AgentDefinition | undefined;
  /** What a persona changed, to put back when it is left. */
  private personaRestore: { model?: { provider: string; model: string }; mode?: PermissionMode } = {};
  /** The run a custom command started: its tools, and the model to go back to after it. */
  private runFilter: { filter?: ToolFilter; by: string; input: string; active: boolean; restoreModel?: { provider: string; model: string } } | undefined;
  private readonly active = new Map<string, ActivationReason>();
  private readonly seen = new WeakSet<Message>();
  private lastRequest = "";
  private lastCatalog: Catalog = { text: "", shortened: [], dropped: [] };

  constructor(private readonly o: ExtRuntimeOptions) {}

  /**
   * Starts discovery on the first call (the TUI calls it after its first frame, a request or `-p` at once) and
   * resolves once it has finished; never rejects (an unreadable folder is an empty one).
   */
  async ready(): Promise<void> {
    this.loading ??= discoverExtensions(this.o.roots).then((c) => {
      this.cat = c;
      // A skill inside the project is readable already; only folders elsewhere widen the allowlist.
      for (const s of c.skills) if (!isInside(s.dir, this.o.roots.projectRoot)) this.o.addReadPath(s.dir);
      for (const w of c.warnings) this.o.warn?.(w);
      return c;
    });
    await this.loading;
  }

  attach(session: ExtSessionPort): void {
    this.session = session;
    session.subscribe((e) => this.onEvent(e));
  }

  /** Discovery has finished. */
  get isReady(): boolean {
    return this.cat !== undefined;
  }
  get skills(): readonly Skill[] {
    return this.cat?.skills ?? [];
  }
  get agents(): readonly AgentDefinition[] {
    return this.cat?.agents ?? [];
  }
  get customCommands(): readonly CustomCommand[] {
    return this.cat?.commands ?? [];
  }
  get warnings(): readonly string[] {
    return this.cat?.warnings ?? [];
  }
  /** The warnings about skill files only (for `/skills`). */
  get skillWarnings(): readonly string[] {
    return this.cat?.skillWarnings ?? [];
  }
  get persona(): AgentDefinition | undefined {
    return this.personaDef;
  }
  get catalog(): Catalog {
    return this.lastCatalog;
  }
  activation(name: string): ActivationReason | undefined {
    return this.active.get(name);
  }

  // ---- the system prompt ----

  /** The persona's prompt: it replaces the base prompt's role part. */
  rolePrompt(): string | undefined {
    return this.personaDef?.prompt || undefined;
  }

  /** The skill catalog (bounded by the window) and the bodies of the skills activated other than by the tool. */
  systemParts(): SystemPart[] {
    const parts: SystemPart[] = [];
    const window = this.session?.contextWindow ?? 32_768;
    this.lastCatalog = buildCatalog(this.skills, { budgetChars: catalogBudgetChars(window), active: new Set(this.active.keys()), request: this.lastRequest });
    if (this.lastCatalog.text) parts.push({ text: this.lastCatalog.text, cacheable: true });
    // Active bodies share a quarter of the window; one that does not fit is cut and names its file.
    let room = Math.max(2_000, Math.floor(window * 4 * 0.25));
    for (const s of this.skills) {
      const why = this.active.get(s.name);
      if (!why || why.kind === "model") continue; // the tool result already carries it
      const full = skillText(s);
      const text = full.length <= room ? full : `${safeHead(full, Math.max(0, room))}\n[... cut to fit the context window: read the rest of ${s.file} with \`read\`]`;
      room = Math.max(0, room - full.length);
      parts.push({ text: `The skill "${s.name}" is active (${reasonForModel(why)}): follow its instructions where they apply.\n${text}`, cacheable: false });
    }
    return parts;
  }

  /** Before every model call: discovery is awaited, and the newest prompt is checked for triggers and paths. */
  async beforeRequest(history: readonly Message[]): Promise<void> {
    await this.ready();
    const last = history.findLast((m) => m.role === "user" && m.meta?.kind !== "tool_feedback");
    if (!last || this.seen.has(last)) return;
    this.seen.add(last);
    this.lastRequest = last.content;
    for (const { skill, trigger } of triggeredSkills(last.content, this.skills)) this.activate(skill.name, { kind: "trigger", trigger });
    for (const p of pathsMentioned(last.content)) this.activateForPath(p);
  }

  // ---- tools ----

  wrapTools(inner: ToolHost): ToolHost {
    return gatedToolHost(inner, {
      allowed: (tool) => this.toolAllowed(tool),
      restrictedBy: () => (this.runFilter?.active && this.runFilter.filter ? t("ext.by.command", { name: this.runFilter.by }) : this.personaDef ? t("ext.by.persona", { name: this.personaDef.name }) : undefined),
      offersSkillTool: () => this.skills.some((s) => !s.disableModelInvocation),
      runSkill: (call) => this.runSkillTool(call),
      observe: (call) => {
        for (const p of pathsInArgs(call.args)) this.activateForPath(p);
      },
    });
  }

  private toolAllowed(tool: string): boolean {
    const p = this.personaDef;
    if (p && !toolAllowed(tool, { ...(p.tools ? { allow: p.tools } : {}), ...(p.disallowedTools ? { deny: p.disallowedTools } : {}) })) return false;
    return !this.runFilter?.active || !this.runFilter.filter || toolAllowed(tool, this.runFilter.filter);
  }

  private runSkillTool(call: ToolCallRequest): ToolRunResult {
    const name = skillArgName(call.args);
    const offered = this.skills.filter((s) => !s.disableModelInvocation);
    const list = offered.map((s) => s.name).join(", ") || "none";
    if (!name) return { text: `Give the skill's name: skill({"name": "<one of: ${list}>"}).`, isError: true, errorCode: "invalid_args" };
    const skill = this.skills.find((s) => s.name === name) ?? this.skills.find((s) => s.name === name.toLowerCase());
    if (!skill || skill.disableModelInvocation) return { text: `There is no skill "${name}" you can load. Skills: ${list}.`, isError: true, errorCode: "unknown_skill" };
    if (!this.active.has(skill.name)) this.active.set(skill.name, { kind: "model" });
    return { text: skillText(skill), isError: false, details: { skill: skill.name, file: skill.file } };
  }

  // ---- activation ----

  /** `/skill-name`: the user loads a skill; its body goes with the next request. */
  activateByUser(name: string): Skill | undefined {
    const s = this.skills.find((x) => x.name === name);
    if (s) this.activate(s.name, { kind: "user" });
    return s;
  }

  private activate(name: string, why: ActivationReason): void {
    const had = this.active.get(name);
    // A deterministic reason replaces "chosen by the model" (the body then goes in the prompt too); else the first stays.
    if (had && had.kind !== "model") return;
    this.active.set(name, why);
    if (!had) this.session?.publish({ type: "notice", level: "info", text: t("ext.skillActivated", { name, why: reasonForPeople(why) }) });
  }

  private activateForPath(path: string): void {
    for (const m of skillsForPath(path, this.skills, this.o.roots.projectRoot)) this.activate(m.skill.name, { kind: "path", path: m.path, glob: m.glob });
  }

  // ---- personas ----

  findAgent(name: string): AgentDefinition | undefined {
    return this.agents.find((a) => a.name === name);
  }

  /**
   * Switches the persona (undefined: back to none). `applyModel` false when the caller already started the
   * session on the persona's model (`--agent`). Returns the notice to show.
   */
  setPersona(name: string | undefined, o: { applyModel?: boolean } = {}): string {
    const s = this.session;
    const next = name === undefined ? undefined : this.findAgent(name);
    if (name !== undefined && !next) return t("ext.agentUnknown", { name, names: this.agents.map((a) => a.name).join(", ") });
    const restore = this.personaRestore;
    this.personaRestore = {};
    if (this.personaDef) for (const sk of this.personaDef.skills) if (this.active.get(sk)?.kind === "persona") this.active.delete(sk);
    this.personaDef = next;
    const notes: string[] = [];
    if (s) {
      // The model and mode the session had before any persona; the new persona starts from them.
      const now = { provider: s.model.providerId, model: s.model.model };
      const baseModel = restore.model ?? now;
      const baseMode = restore.mode ?? s.mode;
      let target = baseModel;
      if (next?.model && o.applyModel !== false) {
        const [provider, ...rest] = next.model.split(":");
        target = { provider: provider!, model: rest.join(":") };
        this.personaRestore.model = baseModel;
      }
      if (target.provider !== now.provider || target.model !== now.model) s.submit({ type: "set_model", ...target });
      let mode = baseMode;
      if (next?.permissionMode && rank(next.permissionMode) < rank(baseMode)) {
        mode = next.permissionMode;
        this.personaRestore.mode = baseMode;
      } else if (next?.permissionMode && next.permissionMode !== baseMode) notes.push(t("ext.modeNotWidened", { mode: next.permissionMode, current: baseMode }));
      if (mode !== s.mode) s.submit({ type: "set_permission_mode", mode });
    }
    if (next) for (const sk of next.skills) if (this.skills.some((x) => x.name === sk) && !this.active.has(sk)) this.active.set(sk, { kind: "persona", persona: next.name });
    s?.publish({ type: "persona.changed", ...(next ? { name: next.name } : {}) });
    const head = next ? t("ext.agentSwitched", { name: next.name }) : t("ext.agentCleared");
    return [head, ...notes].join("\n");
  }

  // ---- custom commands ----

  /**
   * Sends a custom command's prompt. Its `allowed-tools` narrow the tools from the turn that carries the prompt
   * until that turn completes; its `model` is used for that turn and the session's model is put back after it.
   */
  runCommand(cmd: CustomCommand, input: string): void {
    this.prepareRun(cmd, input);
    this.session?.submit({ type: "user_input", text: input });
  }

  /** runCommand without the submit: headless sends the prompt itself. */
  prepareRun(cmd: CustomCommand, input: string): void {
    const s = this.session;
    if (!s) return;
    const now = { provider: s.model.providerId, model: s.model.model };
    let restoreModel: { provider: string; model: string } | undefined;
    if (cmd.model) {
      const [provider, ...rest] = cmd.model.split(":");
      const target = { provider: provider!, model: rest.join(":") };
      if (target.provider !== now.provider || target.model !== now.model) {
        s.submit({ type: "set_model", ...target });
        restoreModel = now;
      }
    }
    this.runFilter = cmd.allowedTools || restoreModel ? { ...(cmd.allowedTools ? { filter: { allow: cmd.allowedTools } } : {}), by: cmd.name, input, active: false, ...(restoreModel ? { restoreModel } : {}) } : undefined;
  }

  private onEvent(e: AgentEvent): void {
    // A cleared (or new) conversation starts with no skill active but the persona's.
    if (e.type === "history.replaced" && e.messages.length === 0) {
      for (const [name, why] of [...this.active]) if (why.kind !== "persona") this.active.delete(name);
      this.lastRequest = "";
    }
    const run = this.runFilter;
    if (!run) return;
    // Queued input may run first: the command's restrictions wait for its own turn.
    if (e.type === "turn.started" && !run.active) {
      if (e.input === run.input) run.active = true;
    } else if (e.type === "turn.completed" && run.active) this.endRun();
  }

  private endRun(): void {
    const back = this.runFilter?.restoreModel;
    this.runFilter = undefined;
    if (back) this.session?.submit({ type: "set_model", ...back });
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function rank(m: PermissionMode): number {
  return MODE_ORDER.indexOf(m);
}

/** English: it goes into the system prompt. */
function reasonForModel(r: ActivationReason): string {
  switch (r.kind) {
    case "trigger":
      return `the request mentions "${r.trigger}"`;
    case "path":
      return `the file ${r.path} matches ${r.glob}`;
    case "user":
      return "the user loaded it";
    case "persona":
      return `the persona ${r.persona} uses it`;
    case "model":
      return "you loaded it";
  }
}

export function reasonForPeople(r: ActivationReason): string {
  switch (r.kind) {
    case "trigger":
      return t("ext.why.trigger", { trigger: r.trigger });
    case "path":
      return t("ext.why.path", { path: r.path, glob: r.glob });
    case "user":
      return t("ext.why.user");
    case "persona":
      return t("ext.why.persona", { persona: r.persona });
    case "model":
      return t("ext.why.model");
  }
}
