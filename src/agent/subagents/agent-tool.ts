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
  const list = agents.map((a) => `- ${a.name}: ${a.description}`).join("\n");
  return {
    name: AGENT_TOOL,
    description: `Delegate a self-contained task to a subagent that works on its own with a fresh context and returns one final message. Call it several times in one response to run independent tasks in parallel. The subagent does not see this conversation: put everything it needs in the prompt. Agents (default "general"):\n${list}`,
    parameters: {
      type: "object",
      properties: {
        agent: { type: "string", description: "The agent definition to use (default: general)." },
        description: { type: "string", description: "A short (3-8 word) label for the task." },
        prompt: { type: "string", description: "The full task for the subagent." },
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
