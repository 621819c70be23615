/**
 * The subagents of one session: the `agent` tool's host, the request scheduler, the file locks, the limits
 * (depth, children running at once, children per session) and the registry of children (for `/agents`,
 * `/stats` and the UI's live group, through `subagent.*` events). A child shares the parent's tool host, so
 * the parent's permission policy and sandbox decide every call it makes; its approvals go to the parent's
 * UI with the child's name in the reason (headless sessions deny them, as they deny the parent's).
 */
import { resolve } from "node:path";
import type { AgentEvent } from "../../protocol/events.ts";
import type { SystemPart, ToolSpec, Usage } from "../../protocol/llm.ts";
import type { Message } from "../../protocol/message.ts";
import type { ApprovalAnswer } from "../run-deps.ts";
import type { ApprovalRequest, ToolCallRequest, ToolHost, ToolRunContext, ToolRunResult } from "../tool-host.ts";
import type { ModelBinding, TextProtocol, TurnOptions } from "../session/session-options.ts";
import { AGENT_TOOL, agentToolSpec, isAgentTool, readAgentArgs } from "./agent-tool.ts";
import { runChild } from "./child-run.ts";
import { FileLocks } from "./file-locks.ts";
import { resultText, type ChildStatus } from "./final-message.ts";
import { RequestScheduler, scheduledProvider } from "./scheduler.ts";
import { createWorktree, type Worktree } from "./worktree.ts";
import type { LlmProvider } from "../../llm/provider.ts";

/** What the runtime needs of an agent definition (src/ext/agents' AgentDefinition satisfies it). */
export interface SubagentDefinition {
  name: string;
  description: string;
  prompt: string;
  tools?: string[];
  disallowedTools?: string[];
  model?: string;
  maxTurns?: number;
  /** Seconds. */
  timeout?: number;
  isolation?: string;
}

export interface SubagentLimits {
  /** Children running at once in the whole session (`agents.maxConcurrent`). */
  maxConcurrent: number;
  /** Nesting: a child at this depth gets no `agent` tool (default 2). */
  maxDepth: number;
  /** Children started per session. */
  maxTotal: number;
}

export interface SubagentEnv {
  findAgent(name: string): SubagentDefinition | undefined;
  agents(): SubagentDefinition[];
  /** The parent's binding now (children inherit it). */
  binding(): ModelBinding;
  /** A definition's `PROVIDER:model`. */
  resolveModel?(spec: string): Promise<ModelBinding | string>;
  /** The session's own tool host (policy + sandbox), without the persona gate or the agent tool. */
  tools: ToolHost;
  /** Whether a definition's allowlist lets a tool (canonical name) through. */
  toolAllowed(tool: string, def: SubagentDefinition): boolean;
  projectRoot: string;
  systemPrompt(def: SubagentDefinition, o: { nativeTools: boolean; tools: ToolSpec[] }): SystemPart[];
  textProtocol?: TextProtocol;
  sanitizeNativeArgs?: TurnOptions["sanitizeNativeArgs"];
  /** Request slots for a binding's endpoint. */
  endpoint(binding: ModelBinding): { key: string; limit: number };
  limits: SubagentLimits;
  requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  recordUsage(agent: { id: string; name: string }, usage: Usage, model: string, provider: string): void;
  publish(e: AgentEvent): void;
  /** Saves a long final message; returns its path. */
  spill(agentId: string, text: string): string | undefined;
  hooks?: { start(agentId: string, type: string): Promise<string[]>; stop(agentId: string, type: string, active: boolean): Promise<string | undefined> };
  /** `isolation: worktree`: where worktrees go (under the session workspace) and the tool host for one. */
  worktree?: { baseDir(): string | undefined; toolsFor(root: string): ToolHost };
  now?: () => number;
}

export const DEFAULT_MAX_TURNS = 30;
export const DEFAULT_TIMEOUT_SECONDS = 600;
const WRITERS = new Set(["write", "edit"]);

export interface ChildInfo {
  agentId: string;
  parentId: string;
  agent: string;
  description: string;
  depth: number;
  status: "queued" | "running" | ChildStatus;
  turns: number;
  tokens: number;
  currentTool?: string;
  startedAt: number;
  endedAt?: number;
  cancel: AbortController;
  /** The child's conversation so far (its transcript), live while it runs. */
  history: Message[];
}

export class SubagentRuntime {
  readonly scheduler = new RequestScheduler();
  readonly locks = new FileLocks();
  readonly children: ChildInfo[] = [];
  private started = 0;

  /** `startedBefore`: children a resumed session already had (ids go on from there). */
  constructor(private readonly env: SubagentEnv, startedBefore = 0) {
    this.idBase = startedBefore;
  }

  private readonly idBase: number;

  /** The main session's tool host with the `agent` tool added (depth 0). */
  wrap(inner: ToolHost): ToolHost {
    return this.hostAt(inner, 0, "main");
  }

  /** Cancel one child (and its own children). */
  cancel(agentId: string): boolean {
    const c = this.children.find((x) => x.agentId === agentId);
    if (!c || c.endedAt !== undefined) return false;
    c.cancel.abort();
    return true;
  }

  running(): ChildInfo[] {
    return this.children.filter((c) => c.endedAt === undefined);
  }

  private now(): number {
    return (this.env.now ?? Date.now)();
  }

  private hostAt(inner: ToolHost, depth: number, parentId: string, mayDelegate = true): ToolHost {
    const offers = mayDelegate && depth < this.env.limits.maxDepth;
    return {
      specs: () => (offers ? [...inner.specs(), agentToolSpec(this.env.agents())] : inner.specs()),
      canonicalName: (name) => (offers && isAgentTool(name) ? AGENT_TOOL : inner.canonicalName(name)),
      title: (name, args) => {
        if (!offers || !isAgentTool(name)) return inner.title(name, args);
        const a = readAgentArgs(args);
        return typeof a === "string" ? AGENT_TOOL : `${a.agent ?? "general"}: ${a.description}`;
      },
      runsConcurrently: (name) => offers && isAgentTool(name),
      run: (call, ctx) => (offers && isAgentTool(call.name) ? this.runAgentCall(call, ctx, depth + 1, parentId) : inner.run(call, ctx)),
    };
  }

  private async runAgentCall(call: ToolCallRequest, ctx: ToolRunContext, depth: number, parentId: string): Promise<ToolRunResult> {
    const args = readAgentArgs(call.args);
    if (typeof args === "string") return { text: args, isError: true, errorCode: "invalid_args" };
    const name = args.agent ?? "general";
    const def = this.env.findAgent(name);
    if (!def) return { text: `Unknown agent "${name}". Agents: ${this.env.agents().map((a) => a.name).join(", ")}.`, isError: true, errorCode: "unknown_agent" };
    if (this.started >= this.env.limits.maxTotal) {
      return { text: `Subagent limit reached: this session may start ${this.env.limits.maxTotal} subagents and has. Do the task yourself.`, isError: true, errorCode: "subagent_limit" };
    }
    this.started++;
    const agentId = `agent_${this.idBase + this.started}`;
    const info: ChildInfo = { agentId, parentId, agent: def.name, description: args.description, depth, status: "queued", turns: 0, tokens: 0, startedAt: this.now(), cancel: new AbortController(), history: [] };
    this.children.push(info);
    this.env.publish({ type: "subagent.started", agentId, parentId, callId: call.id, agent: def.name, description: args.description, depth });
    let releaseSlot: (() => void) | undefined;
    try {
      releaseSlot = await this.scheduler.acquire("session:children", this.env.limits.maxConcurrent, depth, AbortSignal.any([ctx.signal, info.cancel.signal]));
    } catch {
      return this.finish(info, { status: "cancelled", text: "", turns: 0 }, call);
    }
    try {
      return await this.runDefinition(def, args.prompt, info, ctx, call);
    } finally {
      releaseSlot();
    }
  }

  private async runDefinition(def: SubagentDefinition, task: string, info: ChildInfo, ctx: ToolRunContext, call: ToolCallRequest): Promise<ToolRunResult> {
    const parent = this.env.binding();
    let binding = parent;
    if (def.model && this.env.resolveModel) {
      const r = await this.env.resolveModel(def.model);
      if (typeof r === "string") return this.finish(info, { status: "failed", text: "", turns: 0, error: r }, call);
      binding = r;
    }
    const ep = this.env.endpoint(binding);
    const provider = scheduledProvider(binding.provider, this.scheduler, { key: ep.key, limit: ep.limit, priority: info.depth });
    let worktree: Worktree | undefined;
    if (def.isolation === "worktree") {
      const base = this.env.worktree?.baseDir();
      const wt = base ? await createWorktree(this.env.projectRoot, base, info.agentId) : "worktree isolation needs a session workspace";
      if (typeof wt === "string") return this.finish(info, { status: "failed", text: "", turns: 0, error: wt }, call);
      worktree = wt;
    }
    try {
      const tools = this.childTools(def, info, worktree && this.env.worktree ? this.env.worktree.toolsFor(worktree.root) : this.env.tools);
      const r = await this.runWith(def, task, info, ctx, binding, provider, tools);
      if (!worktree) return this.finish(info, r, call);
      const patch = await worktree.diff();
      return this.finish(info, { ...r, text: r.text + worktreeNote(patch, patch ? this.env.spill(`${info.agentId}_worktree_diff`, patch) : undefined) }, call);
    } finally {
      await worktree?.remove();
    }
  }

  private async runWith(def: SubagentDefinition, task: string, info: ChildInfo, ctx: ToolRunContext, binding: ModelBinding, provider: LlmProvider, tools: ToolHost) {
    info.status = "running";
    const contexts = this.env.hooks ? await this.env.hooks.start(info.agentId, def.name).catch(() => []) : [];
    const r = await runChild({
      agentId: info.agentId,
      agent: def.name,
      description: info.description,
      task,
      binding: { ...binding, provider },
      tools,
      systemPrompt: (o) => this.env.systemPrompt(def, o),
      ...(this.env.textProtocol ? { textProtocol: this.env.textProtocol } : {}),
      ...(this.env.sanitizeNativeArgs ? { sanitizeNativeArgs: this.env.sanitizeNativeArgs } : {}),
      maxTurns: def.maxTurns ?? DEFAULT_MAX_TURNS,
      timeoutMs: (def.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
      signal: ctx.signal,
      cancel: info.cancel.signal,
      history: info.history,
      contexts,
      requestApproval: (req, signal) => this.env.requestApproval({ ...req, reason: `subagent ${def.name} (${info.agentId}): ${req.reason}` }, signal),
      recordUsage: (u, model, providerId) => {
        info.tokens += u.inputTokens + u.outputTokens;
        this.env.recordUsage({ id: info.agentId, name: def.name }, u, model, providerId ?? binding.providerId);
      },
      onEvent: (e) => this.onChildEvent(info, e),
      ...(this.env.hooks ? { onStop: (active: boolean) => this.env.hooks!.stop(info.agentId, def.name, active).catch(() => undefined) } : {}),
    });
    return r;
  }

  /** The parent's tools narrowed by the definition, writes under the file locks, and the agent tool if nesting allows. */
  private childTools(def: SubagentDefinition, info: ChildInfo, inner: ToolHost): ToolHost {
    const allowed = (name: string) => this.env.toolAllowed(name, def);
    const gated: ToolHost = {
      specs: () => inner.specs().filter((s) => allowed(s.name)),
      canonicalName: (n) => inner.canonicalName(n),
      title: (n, a) => inner.title(n, a),
      run: async (call, ctx) => {
        const canonical = inner.canonicalName(call.name) ?? call.name;
        if (!allowed(canonical)) {
          const names = inner.specs().map((s) => s.name).filter(allowed);
          return { text: `The tool "${canonical}" is not available to the ${def.name} subagent: it was not run. Available tools: ${names.join(", ") || "none"}.`, isError: true, errorCode: "tool_not_allowed" };
        }
        const path = WRITERS.has(canonical) ? writePath(call.args) : undefined;
        if (!path) return inner.run(call, ctx);
        return this.locks.with(resolve(inner === this.env.tools ? this.env.projectRoot : `worktree:${info.agentId}`, path), () => inner.run(call, ctx));
      },
    };
    return this.hostAt(gated, info.depth, info.agentId, allowed(AGENT_TOOL));
  }

  private onChildEvent(info: ChildInfo, e: AgentEvent): void {
    // The child's tool calls go out too, labelled: stream-json shows them, the session file keeps them (the
    // child's own transcript); UIs keep them out of the main transcript.
    if (e.type === "tool.started" || e.type === "tool.completed") this.env.publish({ ...e, agentId: info.agentId, parentId: info.parentId });
    if (e.type === "tool.started") info.currentTool = e.title || e.name;
    else if (e.type === "tool.completed") info.currentTool = undefined;
    else if (e.type === "message.completed") info.turns++;
    else return;
    this.env.publish({ type: "subagent.progress", agentId: info.agentId, parentId: info.parentId, turns: info.turns, tokens: info.tokens, ...(info.currentTool ? { currentTool: info.currentTool } : {}), elapsedMs: this.now() - info.startedAt });
  }

  private finish(info: ChildInfo, r: { status: ChildStatus; text: string; turns: number; error?: string; history?: Message[] }, call: ToolCallRequest): ToolRunResult {
    info.status = r.status;
    info.turns = Math.max(info.turns, r.turns);
    info.endedAt = this.now();
    info.currentTool = undefined;
    const outcome = { agentId: info.agentId, agent: info.agent, description: info.description, status: r.status, text: r.text, turns: info.turns, ...(r.error ? { error: r.error } : {}) };
    const text = resultText(outcome, (t) => this.env.spill(info.agentId, t));
    this.env.publish({
      type: "subagent.completed",
      agentId: info.agentId,
      parentId: info.parentId,
      callId: call.id,
      agent: info.agent,
      status: r.status,
      turns: info.turns,
      tokens: info.tokens,
      durationMs: info.endedAt - info.startedAt,
      result: text,
      description: info.description,
      ...(r.history ? { messages: r.history } : {}),
    });
    return { text, isError: r.status !== "completed", ...(r.status !== "completed" ? { errorCode: `subagent_${r.status}` } : {}), details: { agentId: info.agentId, agent: info.agent, status: r.status, turns: info.turns, tokens: info.tokens } };
  }
}

/** What the parent reads after a worktree child: the patch (cut when long) and how to apply it. */
function worktreeNote(patch: string, file: string | undefined): string {
  if (!patch.trim()) return "\n\n[worktree: the subagent changed no files]";
  const shown = patch.length > 8000 ? `${patch.slice(0, 8000)}\n… [cut]` : patch;
  const how = file ? `The patch is saved in ${file}: apply it with \`git apply ${file}\` (or show it to the user to apply).` : "Apply it with `git apply` if it is wanted.";
  return `\n\n[worktree: the subagent worked in a separate git worktree; its changes are NOT in the project yet. ${how}]\n\`\`\`diff\n${shown}\n\`\`\``;
}

function writePath(args: Record<string, unknown> | undefined): string | undefined {
  for (const k of ["path", "file_path", "filePath", "filepath", "file", "filename"]) {
    const v = args?.[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return undefined;
}
