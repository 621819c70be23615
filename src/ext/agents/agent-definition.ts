/**
 * Agent definitions (personas): Markdown files with front matter in `<project>/.chatcli/agents/*.md`,
 * `<project>/.claude/agents/*.md`, `~/.chatcli/agents/*.md` and `~/.claude/agents/*.md`, then the built-in ones
 * (builtin-agents.ts). The first of a name wins: project over user over built-in; a clash with another file is
 * reported once (a file replacing a built-in is the intended way to edit one, and is not).
 *
 * The contract the main session's persona switch (ext-runtime.ts) and the Subagents feature build on: the body is
 * the system prompt's role part; `tools` is an allowlist (globs, Claude Code names mapped to ours); `model` is
 * `PROVIDER:model` or `inherit`; `permissionMode`, `maxTurns`, `skills`, `timeout` and `isolation` are kept as read.
 * A definition from the repository is data: it can narrow tools and permissions, never widen them.
 */
import { basename, join } from "node:path";
import { permissionModeSchema, type PermissionMode } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import { nameList } from "../front-matter.ts";
import { discoverEntries, nameAndDescription, stringField, type Candidate, type Discovered } from "../ext-entries.ts";
import { extDirs, listDir, type ExtRoots, type ExtScope } from "../ext-files.ts";
import { BUILTIN_AGENTS } from "./builtin-agents.ts";
import { parseDurationSeconds } from "../../util/duration.ts";

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool allowlist (our names, or globs such as `mcp__github__*`); undefined = every tool the session has. */
  tools?: string[];
  /** Tools taken away even when `tools` allows them (Claude Code's `disallowedTools`). */
  disallowedTools?: string[];
  /** `PROVIDER:model`, or undefined for `inherit` (and for values that name no provider, e.g. `sonnet`). */
  model?: string;
  /** The model field as written (shown by `/agent`). */
  modelAsWritten?: string;
  permissionMode?: PermissionMode;
  maxTurns?: number;
  /** Skills loaded with the persona. */
  skills: string[];
  /** Seconds a delegated run may take (Subagents). */
  timeout?: number;
  /** e.g. `worktree` (Subagents). */
  isolation?: string;
  /** The body: the persona's role prompt. */
  prompt: string;
  source: { scope: ExtScope; path?: string };
  /** Compatibility: the file's path (undefined for a built-in). */
  file?: string;
}

export interface LoadAgentOptions {
  /** The user's home directory, for `~/.claude/agents`. */
  userHome?: string;
  /** Include the built-in definitions (default true). */
  builtins?: boolean;
}

/** Every definition, highest precedence first for each name, with the warnings of the files skipped. */
export async function loadAgentDefinitions(projectRoot: string, home: string, o: LoadAgentOptions = {}): Promise<Discovered<AgentDefinition>> {
  const roots: ExtRoots = { projectRoot, chatcliHome: home, ...(o.userHome ? { userHome: o.userHome } : {}) };
  const candidates: Candidate[] = [];
  for (const d of extDirs(roots, "agents")) {
    for (const e of await listDir(d.dir)) {
      if (e.isFile && e.name.endsWith(".md") && !e.name.startsWith(".")) candidates.push({ file: join(d.dir, e.name), scope: d.scope, fallbackName: basename(e.name, ".md") });
    }
  }
  const found = await discoverEntries(candidates, "agent", validateAgent);
  if (o.builtins === false) return found;
  const names = new Set(found.entries.map((a) => a.name));
  return { entries: [...found.entries, ...BUILTIN_AGENTS.filter((b) => !names.has(b.name))], warnings: found.warnings };
}

const CLAUDE_MODES: Record<string, PermissionMode> = { acceptEdits: "accept-edits", bypassPermissions: "bypass", plan: "plan", default: "default" };

export function validateAgent(c: Candidate, data: Record<string, unknown>, body: string, hasFrontMatter: boolean): AgentDefinition | { problem: string } {
  const head = nameAndDescription(c, data, hasFrontMatter);
  if ("problem" in head) return head;
  const { name, description } = head;
  const model = stringField(data, "model");
  if (typeof model === "object") return model;
  const modeRaw = stringField(data, "permissionMode");
  if (typeof modeRaw === "object") return modeRaw;
  let permissionMode: PermissionMode | undefined;
  if (modeRaw) {
    const parsed = permissionModeSchema.safeParse(CLAUDE_MODES[modeRaw] ?? modeRaw);
    if (!parsed.success) return { problem: t("ext.problem.badValue", { field: "permissionMode", value: modeRaw }) };
    permissionMode = parsed.data;
  }
  const maxTurns = positiveInt(data.maxTurns);
  if (maxTurns === null) return { problem: t("ext.problem.notPositive", { field: "maxTurns" }) };
  // A duration (`90s`, `10m`) or a number of seconds.
  const timeout = data.timeout === undefined || data.timeout === null ? undefined : (parseDurationSeconds(data.timeout) ?? null);
  if (timeout === null) return { problem: t("ext.problem.notPositive", { field: "timeout" }) };
  const isolation = stringField(data, "isolation");
  if (typeof isolation === "object") return isolation;
  const tools = data.tools === undefined || data.tools === null ? undefined : nameList(data.tools);
  const disallowed = data.disallowedTools === undefined || data.disallowedTools === null ? undefined : nameList(data.disallowedTools);
  const path = c.file;
  return {
    name,
    description,
    ...(tools ? { tools } : {}),
    ...(disallowed ? { disallowedTools: disallowed } : {}),
    ...(model ? { modelAsWritten: model } : {}),
    ...(model && isProviderModel(model) ? { model } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    skills: nameList(data.skills),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(isolation ? { isolation } : {}),
    prompt: body.trim(),
    source: { scope: c.scope, path },
    file: path,
  };
}

/** `OLLAMA:qwen3:8b`, `OPENAI:gpt-4o`: an upper-case provider id, a colon, a model. `inherit`, `sonnet` are not. */
export function isProviderModel(v: string): boolean {
  return /^[A-Z][A-Z0-9_]*:\S/.test(v);
}

/** undefined when absent, null when present but not a positive integer. */
function positiveInt(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
}
