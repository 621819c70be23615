/**
 * System prompt composition: base prompt + workspace bootstrap files + (text protocol only) tool catalog.
 * Bootstrap files come from the project root and `~/.chatcli/`, project first; each is cached by mtime
 * so unchanged files are not re-read each turn. Parts are ordered stable-first for prompt caching.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SystemPart, ToolSpec } from "../protocol/llm.ts";
import { safeHead } from "../util/text.ts";

export const BOOTSTRAP_FILES = ["AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md", "MEMORY.md"] as const;
/** Read (all that exist) instead of AGENTS.md when it is absent, so existing projects work as they are. */
export const AGENTS_ALTERNATES = ["CLAUDE.md", "GEMINI.md"] as const;
export const MAX_BOOTSTRAP_CHARS = 40_000;

export interface BootstrapFile {
  path: string;
  name: string;
  content: string;
  scope: "project" | "user";
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  content: string;
}

/** Reads bootstrap files with an mtime cache. `reads` counts actual disk reads (for tests). */
export class BootstrapLoader {
  private cache = new Map<string, CacheEntry>();
  reads = 0;

  constructor(
    private readonly projectRoot: string,
    private readonly userDir: string,
  ) {}

  load(): BootstrapFile[] {
    const out: BootstrapFile[] = [];
    for (const [scope, dir] of [
      ["project", this.projectRoot],
      ["user", this.userDir],
    ] as const) {
      for (const name of BOOTSTRAP_FILES) {
        const f = this.readCached(join(dir, name));
        if (f !== undefined && f.trim()) out.push({ path: join(dir, name), name, content: f, scope });
        // Without AGENTS.md, both CLAUDE.md and GEMINI.md (whichever exist) stand in for it, in that order.
        if (f !== undefined || name !== "AGENTS.md") continue;
        for (const alt of AGENTS_ALTERNATES) {
          const a = this.readCached(join(dir, alt));
          if (a !== undefined && a.trim()) out.push({ path: join(dir, alt), name: alt, content: a, scope });
        }
      }
    }
    return out;
  }

  private readCached(path: string): string | undefined {
    let st: { mtimeMs: number; size: number; isFile(): boolean };
    try {
      st = statSync(path);
    } catch {
      this.cache.delete(path);
      return undefined;
    }
    if (!st.isFile()) return undefined;
    const hit = this.cache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.content;
    try {
      this.reads++;
      let content = readFileSync(path, "utf8");
      if (content.length > MAX_BOOTSTRAP_CHARS) content = `${safeHead(content, MAX_BOOTSTRAP_CHARS)}\n[... truncated: ${content.length - MAX_BOOTSTRAP_CHARS} more chars in ${path}]`;
      this.cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, content });
      return content;
    } catch {
      return undefined;
    }
  }
}

/**
 * The two agent flavours of the base prompt (ChatCLI's /coder and /agent): `coder` (default) is a software
 * engineer working on the project's code; `agent` is a general operator for terminal tasks (shell, files,
 * system inspection). Chosen with CHATCLI_AGENT_FLAVOUR (or CHATCLI_AGENT_FLAVOR) = coder | agent.
 */
export type PromptFlavour = "coder" | "agent";

export function flavourFromEnv(env: Readonly<Record<string, string | undefined>>): PromptFlavour {
  const v = (env.CHATCLI_AGENT_FLAVOUR ?? env.CHATCLI_AGENT_FLAVOR ?? "").trim().toLowerCase();
  return v === "agent" ? "agent" : "coder";
}

/** Issue 25: the plan tool. The list is sent again with every request, so it survives compaction. */
const TODO_GUIDANCE =
  "For a task with several steps, first write a plan with the `todo` tool (the whole list every time), keep one item in_progress while you work on it and mark each done as soon as it is finished; update the list when the plan changes.";

export function basePrompt(opts: { cwd: string; projectRoot: string; platform: string; date: string; hasTools: boolean; flavour?: PromptFlavour; role?: string }): string {
  const flavour = opts.flavour ?? "coder";
  const where = `Project root: ${opts.projectRoot}. Working directory: ${opts.cwd}. Platform: ${opts.platform}. Date: ${opts.date}.`;
  // A persona's prompt (issue 18) replaces the role and its guidance; where we are stays.
  if (opts.role) return `${opts.role.trim()}\n\n${where}`;
  const lines = [
    flavour === "coder"
      ? "You are chatcli, an AI coding agent working in the user's terminal, inside their project."
      : "You are chatcli, an AI agent that carries out tasks in the user's terminal: running commands, inspecting the system, and working with files.",
    where,
  ];
  if (opts.hasTools && flavour === "coder") {
    lines.push(
      "You can read, search, edit and run code with the tools provided. Read before you edit; keep changes minimal and focused; prefer `edit` over rewriting whole files.",
      "Call independent tools together in one response. When a tool fails, read its error and change approach instead of repeating the same call.",
      "Paths are relative to the project root unless absolute. Never touch files outside the project unless the user asks.",
      "When the task is done, reply with a short summary of what you did, without tool calls.",
      TODO_GUIDANCE,
    );
  } else if (opts.hasTools) {
    lines.push(
      "Use the tools to get things done: `exec` for shell commands, `read`/`search`/`tree`/`glob` to inspect, `write`/`edit` to change files.",
      "Plan briefly, then act. Call independent tools together in one response. Prefer read-only commands to find facts before changing anything.",
      "Before a destructive or irreversible command, say what it will do and prefer a safer alternative. When a tool fails, read its error and change approach instead of repeating the same call.",
      "When the task is done, reply with a short summary of what you did and what you found, without tool calls.",
      TODO_GUIDANCE,
    );
  } else {
    lines.push("Answer clearly and concisely. Use Markdown; put code in fenced blocks with a language tag.");
  }
  return lines.join("\n");
}

export function composeSystemPrompt(opts: {
  base: string;
  bootstrap: BootstrapFile[];
  /** Extra attached contexts (cacheable, stable order). */
  contexts?: Array<{ name: string; content: string }>;
  textToolCatalog?: string;
  tools?: ToolSpec[];
  /** Parts that go last (skills: the catalog and active bodies, issue 18). */
  extra?: SystemPart[];
  /** Recalled memory (issue 21): changes with the conversation, so last and not cacheable. */
  memory?: string | undefined;
}): SystemPart[] {
  const parts: SystemPart[] = [{ text: opts.base, cacheable: true }];
  if (opts.bootstrap.length) {
    const body = opts.bootstrap.map((f) => `<file path="${f.path}" scope="${f.scope}">\n${f.content.trim()}\n</file>`).join("\n\n");
    parts.push({ text: `Workspace instructions (project files take precedence over user files):\n\n${body}`, cacheable: true });
  }
  for (const c of opts.contexts ?? []) parts.push({ text: `Attached context "${c.name}":\n\n${c.content}`, cacheable: true });
  if (opts.textToolCatalog) parts.push({ text: opts.textToolCatalog, cacheable: true });
  parts.push(...(opts.extra ?? []));
  if (opts.memory) parts.push({ text: opts.memory });
  return parts;
}
