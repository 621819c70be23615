/**
 * What the agent loop needs from the tool layer: specs for the model, execution with permission checks,
 * and a human title. `createToolHost` (tool-host-impl.ts) builds it from the builtin tools and the policy.
 */
import type { ToolSpec } from "../protocol/llm.ts";
import type { ImagePart } from "../protocol/message.ts";

export interface ToolCallRequest {
  id: string;
  name: string;
  /** Parsed arguments (already sanitized); undefined when they could not be parsed. */
  args: Record<string, unknown> | undefined;
  /** Why the args could not be parsed (goes back to the model). */
  argsError?: string;
  /** A text-protocol call: the dialect its markup was read from (shown as `recoveredFrom` on tool.started). */
  recoveredFrom?: string;
  /** A `!` command the user typed (agent/shell-passthrough): a plain ask counts as their approval. */
  typedByUser?: boolean;
}

export interface ToolRunResult {
  text: string;
  isError: boolean;
  errorCode?: string;
  details?: Record<string, unknown>;
  /** Images for a vision model (ToolOutput.images). */
  images?: ImagePart[];
}

/** What a tool call asks a person (the `approval.requested` event carries the same fields). */
export interface ApprovalRequest {
  tool: string;
  action: string;
  diff?: string;
  reason: string;
  outsideProject?: string[];
  /** No "always" is offered: nothing would be remembered (a protected path, the sandbox re-run question). */
  noAlways?: boolean;
}

export interface ToolRunContext {
  signal: AbortSignal;
  onUpdate(chunk: string): void;
  /** Ask the user; resolves with the decision. Headless resolves from the permission mode. */
  requestApproval(req: ApprovalRequest): Promise<"once" | "always" | "deny" | "deny_always">;
}

export interface ToolHost {
  specs(): ToolSpec[];
  /** Canonical tool name for a possibly aliased one, or undefined when unknown. */
  canonicalName(name: string): string | undefined;
  title(name: string, args: Record<string, unknown> | undefined): string;
  run(call: ToolCallRequest, ctx: ToolRunContext): Promise<ToolRunResult>;
  /** Calls of this tool in one batch run at the same time (the `agent` tool); others run one after another. */
  runsConcurrently?(name: string): boolean;
}
