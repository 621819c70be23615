// A main run (runAgent over a plain history) whose tool host has the `agent` tool, and children that each get
// their own ScriptedProvider (definition `model: SCRIPTED:<name>`), all on one endpoint with `limit` slots.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "../../../src/agent/loop.ts";
import type { RunDeps } from "../../../src/agent/run-deps.ts";
import { finishAssistant } from "../../../src/agent/session/assistant-reply.ts";
import { createToolHost } from "../../../src/agent/tool-host-impl.ts";
import type { ToolHost } from "../../../src/agent/tool-host.ts";
import { createPathPolicy } from "../../../src/tool/workspace.ts";
import { createPermissionPolicy } from "../../../src/tool/permission.ts";
import type { AgentEvent } from "../../../src/protocol/events.ts";
import type { LlmEvent, LlmRequest } from "../../../src/protocol/llm.ts";
import type { Message } from "../../../src/protocol/message.ts";
import type { LlmProvider } from "../../../src/llm/provider.ts";
import type { ModelBinding, TextProtocol } from "../../../src/agent/session/session-options.ts";
import { SubagentRuntime, type SubagentDefinition } from "../../../src/agent/subagents/subagent-runtime.ts";
import { toolAllowed } from "../../../src/ext/agents/tool-allowlist.ts";
import { parseToolCalls, formatToolResultsForText } from "../../../src/agent/toolcall-parser.ts";
import { ScriptedProvider } from "../../support/scripted-provider.ts";

/** Counts the streams in flight across every provider it wraps (what the server would see). */
export class InFlight {
  now = 0;
  peak = 0;
  wrap(p: LlmProvider): LlmProvider {
    const self = this;
    return {
      id: p.id,
      listModels: (s) => p.listModels(s),
      modelInfo: (m, s) => p.modelInfo(m, s),
      stream: (r: LlmRequest, s?: AbortSignal): AsyncIterable<LlmEvent> => ({
        async *[Symbol.asyncIterator]() {
          self.now++;
          self.peak = Math.max(self.peak, self.now);
          try {
            yield* p.stream(r, s);
          } finally {
            self.now--;
          }
        },
      }),
    };
  }
}

export interface RigOptions {
  main: ScriptedProvider;
  children: Record<string, { provider: ScriptedProvider; def?: Partial<SubagentDefinition> }>;
  limit: number;
  nativeTools?: boolean;
  wrapTools?: (t: ToolHost) => ToolHost;
  maxConcurrent?: number;
  /** Worktrees go under this directory (isolation: worktree). */
  worktreeDir?: string;
  /** The spill file writer (default: none). */
  spill?: (id: string, text: string) => string | undefined;
  /** Every event of the main run and every `subagent.*` event, as a UI would get them. */
  onEvent?: (e: AgentEvent) => void;
}

export interface Rig {
  project: string;
  runtime: SubagentRuntime;
  inFlight: InFlight;
  history: Message[];
  events: AgentEvent[];
  published: AgentEvent[];
  mainBinding: ModelBinding;
  run(signal?: AbortSignal): ReturnType<typeof runAgent>;
  cleanup(): void;
}

export function subagentRig(o: RigOptions): Rig {
  const project = mkdtempSync(join(tmpdir(), "chatcli-subagents-"));
  const hostAt = (root: string) =>
    createToolHost({
      projectRoot: root,
      cwd: root,
      paths: createPathPolicy({ projectRoot: root, extraReadPaths: [] }),
      policy: createPermissionPolicy({ homeDir: join(project, ".home"), projectRoot: root, mode: "bypass" }),
      env: {},
    });
  const base = hostAt(project);
  const baseTools = o.wrapTools ? o.wrapTools(base) : base;
  const inFlight = new InFlight();
  const native = o.nativeTools ?? true;
  const mainBinding: ModelBinding = { providerId: "SCRIPTED", model: "main", provider: o.main, nativeTools: native, contextWindow: 32768 };
  const defs: SubagentDefinition[] = Object.entries(o.children).map(([name, c]) => ({ name, description: `${name} agent`, prompt: `You are ${name}.`, model: `SCRIPTED:${name}`, ...c.def }));
  const textProtocol: TextProtocol = {
    parse: (text) => {
      const r = parseToolCalls(text);
      return { text: r.text, calls: r.calls.map((c) => ({ name: c.name, args: c.args, recoveredFrom: c.dialect })), errors: r.errors };
    },
    formatResults: (r) => formatToolResultsForText(r),
  };
  const published: AgentEvent[] = [];
  const runtime = new SubagentRuntime({
    findAgent: (n) => defs.find((d) => d.name === n),
    agents: () => defs,
    binding: () => mainBinding,
    resolveModel: async (spec) => {
      const name = spec.slice("SCRIPTED:".length);
      const c = o.children[name];
      return c ? { ...mainBinding, model: name, provider: inFlight.wrap(c.provider) } : `no provider for ${spec}`;
    },
    tools: baseTools,
    toolAllowed: (tool, def) => toolAllowed(tool, { ...(def.tools ? { allow: def.tools } : {}) }),
    projectRoot: project,
    systemPrompt: (def) => [{ text: def.prompt }],
    textProtocol,
    endpoint: () => ({ key: "SCRIPTED@test", limit: o.limit }),
    limits: { maxConcurrent: o.maxConcurrent ?? 8, maxDepth: 2, maxTotal: 20 },
    requestApproval: async () => "deny",
    recordUsage: () => undefined,
    publish: (e) => {
      published.push(e);
      o.onEvent?.(e);
    },
    spill: o.spill ?? (() => undefined),
    ...(o.worktreeDir ? { worktree: { baseDir: () => o.worktreeDir, toolsFor: (root: string) => hostAt(root) } } : {}),
  });
  const tools = runtime.wrap(baseTools);
  const history: Message[] = [{ role: "user", content: "task" }];
  const events: AgentEvent[] = [];
  let seq = 0;
  const newId = (p: string) => `${p}_${++seq}`;
  const opts = { tools, ...(native ? {} : { textProtocol }) };
  const deps: RunDeps = {
    tools,
    limits: { maxTurns: 10, earlyExitTurns: 3 },
    emit: (e) => {
      events.push(e);
      o.onEvent?.(e);
    },
    newId,
    now: () => Date.now(),
    drainQueue: () => undefined,
    buildRequest: async () => ({ provider: o.main, request: { model: "main", system: [], messages: [...history], purpose: "main", ...(native ? { tools: tools.specs() } : {}) } }),
    finishAssistant: (text, thinking, calls) => finishAssistant({ opts, seq, newId }, text, thinking, calls),
    append: (m) => void history.push(m),
    appendToolResults: (results) => {
      if (native) history.push(...results);
      else history.push({ role: "user", content: textProtocol.formatResults(results.map((r) => ({ name: r.role === "tool" ? r.name : "tool", content: r.content, isError: r.role === "tool" && r.isError === true }))), meta: { kind: "tool_feedback" } });
    },
    requestApproval: async () => "once",
    recordUsage: () => undefined,
  };
  return {
    project,
    runtime,
    inFlight,
    history,
    events,
    published,
    mainBinding,
    run: (signal) => runAgent(deps, signal ?? new AbortController().signal),
    cleanup: () => rmSync(project, { recursive: true, force: true }),
  };
}

export const toolResults = (h: Message[]) => h.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");

export function agentCall(agent: string, prompt: string, id?: string) {
  return { name: "agent", args: { agent, description: `${agent} task`, prompt }, ...(id ? { id } : {}) };
}
