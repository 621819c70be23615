/**
 * Subagents (issue 20) in a wired session: the SubagentRuntime with the session's tool host (policy, sandbox),
 * model binding, prompt parts, usage ledger, approvals, hooks and settings (`providers.<ID>.concurrency`,
 * `providers.openaiCompatible[].concurrency`, `agents.maxConcurrent|maxDepth|maxTotal`). Building it costs
 * nothing until the model calls the `agent` tool.
 */
import type { Config } from "../config/load-config.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { SystemPart, ToolSpec } from "../protocol/llm.ts";
import type { ToolHost } from "../agent/tool-host.ts";
import type { ModelBinding, TextProtocol, TurnOptions } from "../agent/session/session-options.ts";
import type { ApprovalAnswer } from "../agent/run-deps.ts";
import type { ApprovalRequest } from "../agent/tool-host.ts";
import type { UsageTracker } from "../llm/usage.ts";
import type { ExtRuntime } from "../ext/ext-runtime.ts";
import type { Extensions } from "../ext/hooks/wire-extensions.ts";
import { SubagentRuntime, type SubagentDefinition } from "../agent/subagents/subagent-runtime.ts";
import { endpointSlots } from "../agent/subagents/endpoint-slots.ts";
import { toolAllowed } from "../ext/agents/tool-allowlist.ts";
import { saveOverflow } from "../agent/results/budget.ts";
import { switchModel } from "./interactive-commands.ts";

export interface SubagentWiring {
  cfg: Config;
  tools: ToolHost;
  skills: ExtRuntime;
  ext: Extensions | undefined;
  usage: UsageTracker;
  binding(): ModelBinding;
  /** The system prompt with the definition's prompt as the role (workspace files included). */
  systemPrompt(role: string, o: { nativeTools: boolean; tools: ToolSpec[] }): SystemPart[];
  textProtocol(): TextProtocol | undefined;
  sanitizeNativeArgs: TurnOptions["sanitizeNativeArgs"];
  requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  publish(e: AgentEvent): void;
  toolResultsDir(): string | undefined;
  /** Where `isolation: worktree` children's worktrees go (under the session workspace). */
  worktreeDir?: string;
  /** The tool host for a worktree child (the session's rules and sandbox, rooted there). */
  toolsFor(root: string): ToolHost;
  /** A resumed session's recorded events (its children keep their ids; new ones follow). */
  recorded?: readonly AgentEvent[];
}

export function wireSubagents(w: SubagentWiring): SubagentRuntime {
  const { cfg } = w;
  const agents = cfg.settings.agents ?? {};
  return new SubagentRuntime({
    findAgent: (name) => w.skills.findAgent(name),
    agents: () => [...w.skills.agents],
    binding: () => w.binding(),
    resolveModel: async (spec) => {
      const i = spec.indexOf(":");
      return switchModel(cfg, spec.slice(0, i), spec.slice(i + 1), w.binding().providerId);
    },
    tools: w.tools,
    toolAllowed: (tool, def: SubagentDefinition) => toolAllowed(tool, { ...(def.tools ? { allow: def.tools } : {}), ...(def.disallowedTools ? { deny: def.disallowedTools } : {}) }),
    projectRoot: cfg.projectRoot,
    systemPrompt: (def, o) => w.systemPrompt(def.prompt, o),
    get textProtocol() {
      return w.textProtocol();
    },
    ...(w.sanitizeNativeArgs ? { sanitizeNativeArgs: w.sanitizeNativeArgs } : {}),
    endpoint: (b) => endpointSlots(b.providerId, cfg.settings, cfg.env),
    limits: { maxConcurrent: agents.maxConcurrent ?? 8, maxDepth: agents.maxDepth ?? 2, maxTotal: agents.maxTotal ?? 50 },
    requestApproval: (req, signal) => w.requestApproval(req, signal),
    recordUsage: (agent, u, model, provider) => w.usage.record("main", provider, model, u, `${agent.name} (${agent.id})`),
    publish: (e) => w.publish(e),
    spill: (agentId, text) => {
      const dir = w.toolResultsDir();
      return dir === undefined ? undefined : saveOverflow(dir, `subagent_${agentId}`, text);
    },
    worktree: { baseDir: () => w.worktreeDir, toolsFor: (root) => w.toolsFor(root) },
    ...(w.ext ? { hooks: { start: (id: string, type: string) => w.ext!.runtime.subagentStart(id, type), stop: (id: string, type: string, active: boolean) => w.ext!.runtime.subagentStop(id, type, active) } } : {}),
  }, (w.recorded ?? []).filter((e) => e.type === "subagent.started").length);
}
