/**
 * The `agent` tool: the model delegates a task to a child agent (`{ agent?, description, prompt }`). Several
 * calls in one reply run at the same time (the loop runs a batch's concurrent calls together). The spec and the
 * argument reading are here; running the child is SubagentRuntime's. Text for the model: English.
 */
import type { ToolSpec } from "../../protocol/llm.ts";

export const AGENT_TOOL = "agent";

export interface AgentCallArgs {
  agent?: string;
  description: string;
  prompt: string;
}

export function agentToolSpec(agents: Array<{ name: string; description: string }>): ToolSpec {
  // Kept short: the spec goes with every request, and small local windows feel every token.
  const list = agents.map((a) => (a.name === "explore" ? "explore (read-only, fast)" : a.name)).join(", ");
  return {
    name: AGENT_TOOL,
    description: `Delegate a self-contained task to a subagent (fresh context; returns one final message). Several calls in one response run in parallel. Put everything it needs in the prompt. Agents: ${list}.`,
    parameters: {
      type: "object",
      properties: {
        agent: { type: "string", description: "Agent name (default: general)." },
        description: { type: "string", description: "Short task label." },
        prompt: { type: "string", description: "The full task." },
      },
      required: ["description", "prompt"],
      additionalProperties: false,
    },
  };
}

/** Reads the call's arguments, accepting the seed's `<agent_call agent="…" task="…"/>` names too. */
export function readAgentArgs(args: Record<string, unknown> | undefined): AgentCallArgs | string {
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const prompt = str(args?.prompt) ?? str(args?.task);
  if (!prompt) return 'The agent tool needs a "prompt": the full task for the subagent.';
  const agent = str(args?.agent) ?? str(args?.subagent_type) ?? str(args?.name);
  const description = str(args?.description) ?? (prompt.length > 60 ? `${prompt.slice(0, 57)}…` : prompt);
  return { ...(agent ? { agent } : {}), description, prompt };
}

export function isAgentTool(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n === AGENT_TOOL || n === "agent_call" || n === "task";
}
