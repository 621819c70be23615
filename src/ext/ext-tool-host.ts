/**
 * The session's ToolHost seen through the active persona and command: disallowed tools are not advertised and a
 * call to one is refused with an error result (the model may still name it: text protocol, a stale catalog). The
 * `skill` tool is added when there are skills the model may load. Everything else is the inner host's: the
 * permission policy decides every call that passes, so nothing here can allow what the policy would not.
 */
import type { ToolSpec } from "../protocol/llm.ts";
import type { ToolCallRequest, ToolHost, ToolRunContext, ToolRunResult } from "../agent/tool-host.ts";
import { SKILL_TOOL, skillToolSpec } from "./skills/skill-tool.ts";

export interface ToolGate {
  /** Whether a tool (canonical name) may be offered and called now. */
  allowed(tool: string): boolean;
  /** Who restricts the tools now (a persona or command name), for the refusal's text. */
  restrictedBy(): string | undefined;
  /** Whether the `skill` tool is offered. */
  offersSkillTool(): boolean;
  /** The model called `skill`. */
  runSkill(call: ToolCallRequest): ToolRunResult;
  /** Every call the inner host will see (path-activated skills). */
  observe(call: ToolCallRequest): void;
}

export function gatedToolHost(inner: ToolHost, gate: ToolGate): ToolHost {
  return {
    specs: (): ToolSpec[] => {
      const specs = inner.specs().filter((s) => gate.allowed(s.name));
      return gate.offersSkillTool() ? [...specs, skillToolSpec()] : specs;
    },
    canonicalName: (name) => (isSkill(name) ? SKILL_TOOL : inner.canonicalName(name)),
    runsConcurrently: (name) => inner.runsConcurrently?.(name) === true,
    title: (name, args) => (isSkill(name) ? `skill ${typeof args?.name === "string" ? args.name : ""}`.trim() : inner.title(name, args)),
    run: async (call: ToolCallRequest, ctx: ToolRunContext): Promise<ToolRunResult> => {
      if (isSkill(call.name)) return gate.runSkill(call);
      const canonical = inner.canonicalName(call.name) ?? call.name;
      if (!gate.allowed(canonical)) {
        const allowedNames = inner.specs().map((s) => s.name).filter((n) => gate.allowed(n));
        const by = gate.restrictedBy() ?? "the current persona";
        return {
          text: `The tool "${canonical}" is not available to ${by}: it was not run. Available tools: ${allowedNames.join(", ") || "none"}. Use one of them, or tell the user what you would change and let them do it.`,
          isError: true,
          errorCode: "tool_not_allowed",
          details: { action: canonical, deniedBy: "persona", restrictedBy: by },
        };
      }
      gate.observe({ ...call, name: canonical });
      return inner.run(call, ctx);
    },
  };
}

function isSkill(name: string): boolean {
  return name.trim().toLowerCase() === SKILL_TOOL;
}
