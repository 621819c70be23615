/**
 * The boundary between the core and its consumers (TUI, headless).
 * `Op` flows UI → core through `Session.submit`; `AgentEvent` flows core → UI through `Session.subscribe`.
 * The stream-json output prints AgentEvents one per line: this schema is a public, versioned API
 * (EVENT_SCHEMA_VERSION; additive changes only within a version). Documented in docs/stream-json.md.
 */
import { z } from "zod";
import { messageSchema } from "./message.ts";
import { todoItemSchema } from "./todo.ts";

/**
 * 2: `message.delta` carries the delta only (`partial`, the whole answer so far, is gone: it made the output
 * grow with the square of the answer). A consumer that wants the text so far appends the deltas itself.
 */
export const EVENT_SCHEMA_VERSION = 2;

export const permissionModeSchema = z.enum(["default", "accept-edits", "plan", "bypass"]);
export type PermissionMode = z.infer<typeof permissionModeSchema>;

export const approvalDecisionSchema = z.enum(["once", "always", "deny", "deny_always"]);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const rewindModeSchema = z.enum(["both", "conversation", "code"]);
export type RewindMode = z.infer<typeof rewindModeSchema>;

export const opSchema = z.discriminatedUnion("type", [
  /** `display`: what the transcript shows for it (turn.started `input`) when that is not `text` (`/init`'s prompt). */
  z.object({ type: z.literal("user_input"), text: z.string(), display: z.string().optional() }),
  z.object({ type: z.literal("interrupt") }),
  z.object({ type: z.literal("approval"), requestId: z.string(), decision: approvalDecisionSchema }),
  z.object({
    type: z.literal("rewind"),
    checkpointId: z.string(),
    mode: rewindModeSchema,
    /** Delete files created after the checkpoint (the user confirmed). */
    deleteCreated: z.boolean().optional(),
    /** Restore even files changed outside chatcli since the snapshot. */
    force: z.boolean().optional(),
  }),
  z.object({ type: z.literal("set_model"), provider: z.string(), model: z.string() }),
  z.object({ type: z.literal("set_permission_mode"), mode: permissionModeSchema }),
  z.object({ type: z.literal("compact"), instruction: z.string().optional() }),
  z.object({ type: z.literal("remove_queued"), index: z.number().int().nonnegative() }),
  /** Send what an interrupt left waiting in the queue (the TUI: Enter on an empty prompt). */
  z.object({ type: z.literal("send_queued") }),
  z.object({ type: z.literal("clear") }),
  /** `!cmd`: run a command the user typed in the project (sandboxed, no model call); its output becomes context. */
  z.object({ type: z.literal("shell"), command: z.string() }),
  z.object({ type: z.literal("shutdown") }),
]);
export type Op = z.infer<typeof opSchema>;

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  reasoningTokens: z.number(),
});

const errorKindSchema = z.enum([
  "rate_limit",
  "overloaded",
  "server_error",
  "timeout",
  "network",
  "auth",
  "model_not_found",
  "context_too_long",
  "payload_too_large",
  "invalid_request",
  "aborted",
  "unknown",
]);

const llmErrorSchema = z.object({
  kind: errorKindSchema,
  message: z.string(),
  status: z.number().optional(),
  provider: z.string().optional(),
  retryable: z.boolean(),
  fallbackable: z.boolean(),
  retryAfterMs: z.number().optional(),
});

export const toolDetailsSchema = z.record(z.string(), z.unknown());

export const agentEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("session.started"),
    sessionId: z.string(),
    provider: z.string(),
    model: z.string(),
    cwd: z.string(),
    schemaVersion: z.number(),
  }),
  z.object({ type: z.literal("turn.started"), turnId: z.string(), input: z.string() }),
  z.object({
    type: z.literal("message.delta"),
    messageId: z.string(),
    /**
     * The delta itself, never the text so far: consumers append (see EVENT_SCHEMA_VERSION). A coalesced delta
     * (a replayed session) is simply one long delta.
     */
    text: z.string().optional(),
    thinking: z.string().optional(),
  }),
  z.object({
    type: z.literal("message.completed"),
    messageId: z.string(),
    message: messageSchema,
    /** The answer as a person should see it (text-protocol tool-call markup removed); defaults to message.content. */
    displayText: z.string().optional(),
  }),
  z.object({
    type: z.literal("tool.started"),
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    /** Short human description, e.g. `read src/main.ts`. */
    title: z.string(),
    batchId: z.string(),
    /** Text-protocol calls only: the dialect the call was recovered from (e.g. `harmony`, `cline-xml`, `json`). */
    recoveredFrom: z.string().optional(),
    /** A subagent's call (issue 20): the child and the agent that called it (`main`); absent for the session's own. */
    agentId: z.string().optional(),
    parentId: z.string().optional(),
  }),
  z.object({ type: z.literal("tool.updated"), callId: z.string(), output: z.string() }),
  z.object({
    type: z.literal("tool.completed"),
    callId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    errorCode: z.string().optional(),
    /** Text as sent to the model (after the tool's own cap). */
    result: z.string(),
    details: toolDetailsSchema.optional(),
    durationMs: z.number(),
    batchId: z.string(),
    agentId: z.string().optional(),
    parentId: z.string().optional(),
  }),
  z.object({ type: z.literal("tool_use_summary"), batchId: z.string(), label: z.string(), callIds: z.array(z.string()) }),
  z.object({
    type: z.literal("approval.requested"),
    requestId: z.string(),
    tool: z.string(),
    /** The action in full: the command, or the file path. */
    action: z.string(),
    /** Unified diff preview for edits/writes. */
    diff: z.string().optional(),
    reason: z.string(),
    /** Paths the action names outside the project (as written), for the person deciding. */
    outsideProject: z.array(z.string()).optional(),
    /** No "always" is offered: nothing would be remembered (a protected path, the sandbox re-run question). */
    noAlways: z.boolean().optional(),
  }),
  z.object({ type: z.literal("approval.resolved"), requestId: z.string(), decision: approvalDecisionSchema }),
  z.object({
    type: z.literal("pipeline"),
    stage: z.enum(["pairing", "budget", "microcompact"]),
    summary: z.string(),
  }),
  z.object({
    type: z.literal("compaction"),
    level: z.number(),
    messagesBefore: z.number(),
    messagesAfter: z.number(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    /** The details in words (what each level did, where the originals were saved), for logs and consumers. */
    summary: z.string(),
    /** What started it: before a model call (auto), `/compact` (manual), the provider said "too large" (overflow). */
    trigger: z.enum(["auto", "manual", "overflow"]).optional(),
    /** Older messages replaced by a model-written summary. */
    summarized: z.number().optional(),
    /** Older messages removed without a summary (their user requests are quoted in a note). */
    dropped: z.number().optional(),
    /** Messages kept but shortened (old outputs, long arguments, big pastes). */
    shortened: z.number().optional(),
    /** Why the summary level did not run or failed, when it did not. */
    summaryError: z.string().optional(),
  }),
  z.object({ type: z.literal("checkpoint.saved"), checkpointId: z.string(), label: z.string(), messageCount: z.number() }),
  z.object({ type: z.literal("rewound"), checkpointId: z.string(), mode: rewindModeSchema, prompt: z.string() }),
  z.object({ type: z.literal("retry"), attempt: z.number(), delayMs: z.number(), error: llmErrorSchema }),
  z.object({ type: z.literal("provider.switched"), from: z.string(), to: z.string(), reason: z.string() }),
  z.object({ type: z.literal("model.changed"), provider: z.string(), model: z.string(), contextWindow: z.number().optional() }),
  z.object({ type: z.literal("permission_mode.changed"), mode: permissionModeSchema }),
  /** The main session's persona (an agent definition, issue 18); no name: back to none. */
  z.object({ type: z.literal("persona.changed"), name: z.string().optional() }),
  /** `paused`: an interrupt holds the queue; it waits for `send_queued`, the next prompt, or removal. */
  z.object({ type: z.literal("queue.updated"), items: z.array(z.string()), paused: z.boolean().optional() }),
  z.object({ type: z.literal("notice"), level: z.enum(["info", "warn", "error"]), text: z.string() }),
  z.object({ type: z.literal("error"), message: z.string(), error: llmErrorSchema.optional() }),
  z.object({
    type: z.literal("turn.completed"),
    turnId: z.string(),
    stopReason: z.string(),
    usage: usageSchema,
    /** Session totals so far. */
    totalUsage: usageSchema,
    contextTokens: z.number(),
    contextWindow: z.number(),
    costUsd: z.number().optional(),
  }),
  z.object({ type: z.literal("history.replaced"), messages: z.array(messageSchema) }),
  /** The `todo` tool wrote the list (always the whole list; empty = cleared). Added in schema 2 (additive). */
  z.object({ type: z.literal("todo.updated"), items: z.array(todoItemSchema) }),
  z.object({ type: z.literal("session.ended"), reason: z.string() }),
  // Subagents (issue 20): a child's life. `parentId` is the agent that called it (`main` for the session).
  z.object({ type: z.literal("subagent.started"), agentId: z.string(), parentId: z.string(), callId: z.string(), agent: z.string(), description: z.string(), depth: z.number() }),
  z.object({ type: z.literal("subagent.progress"), agentId: z.string(), parentId: z.string(), turns: z.number(), tokens: z.number(), currentTool: z.string().optional(), elapsedMs: z.number() }),
  z.object({
    type: z.literal("subagent.completed"),
    agentId: z.string(),
    parentId: z.string(),
    callId: z.string(),
    agent: z.string(),
    status: z.enum(["completed", "failed", "timeout", "cancelled", "max_turns"]),
    turns: z.number(),
    tokens: z.number(),
    durationMs: z.number(),
    result: z.string(),
    description: z.string().optional(),
    /** The child's own transcript (additive): the session file keeps it as a `subagent` record; UIs may show it. */
    messages: z.array(messageSchema).optional(),
  }),
  // The Kubernetes watch (issue 23): its state after each check that changed something, and `active: false` when it
  // stops. `appeared` = findings new since the previous check (all of them on the first). Faults come as notices, once.
  z.object({
    type: z.literal("k8s.findings"),
    active: z.boolean(),
    context: z.string(),
    namespace: z.string(),
    checkedAt: z.number().optional(),
    counts: z.object({ critical: z.number(), warning: z.number(), info: z.number() }),
    appeared: z.array(z.object({ kind: z.string(), severity: z.enum(["critical", "warning", "info"]), object: z.string(), summary: z.string() })),
  }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent["type"];
