/**
 * The server protocol (issue 22): JSON-RPC 2.0 requests, results and notifications over every transport (stdio
 * now; HTTP/WebSocket/SSE and ACP later, docs/server.md). Built from the core's own unions: a request maps onto
 * one `Op` (src/protocol/events.ts), a notification carries one `AgentEvent` with its per-session sequence number.
 *
 * SERVER_PROTOCOL_VERSION is a public contract: every change to these schemas (test/server/schema-version.test.ts
 * compares the generated JSON Schema with a recorded fingerprint) needs a version bump and a new fingerprint.
 */
import { z } from "zod";
import { agentEventSchema, approvalDecisionSchema, EVENT_SCHEMA_VERSION, permissionModeSchema, rewindModeSchema } from "../protocol/events.ts";
import { messageSchema } from "../protocol/message.ts";

export const SERVER_PROTOCOL_VERSION = 1;

/** `session/checkpoints` without `planIds`: the plans of this many newest checkpoints. */
export const CHECKPOINT_PLANS = 10;
export { EVENT_SCHEMA_VERSION };

/** JSON-RPC error codes: the spec's own, then ours (-32000…-32099 is the spec's server-error range). */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The call came before `initialize`. */
  notInitialized: -32000,
  sessionNotFound: -32001,
  /** Another client drives this session: observers may not submit ops. */
  notDriver: -32002,
  /** The client's protocolVersion is not one this server speaks. */
  unsupportedVersion: -32003,
  /** A frame bigger than the per-connection cap. */
  messageTooLarge: -32004,
  /** session/new or session/load could not build the session (no such directory, provider down, bad settings). */
  sessionStartFailed: -32005,
} as const;

export const rpcIdSchema = z.union([z.string(), z.number().int()]);
export type RpcId = z.infer<typeof rpcIdSchema>;

/** Any inbound message before its method is known (a request has an id; a notification has none). */
export const rpcInboundSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: rpcIdSchema.optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
export type RpcInbound = z.infer<typeof rpcInboundSchema>;

export const rpcErrorSchema = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
export const rpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id: rpcIdSchema, result: z.unknown() }),
  z.object({ jsonrpc: z.literal("2.0"), id: z.union([rpcIdSchema, z.null()]), error: rpcErrorSchema }),
]);

const sessionRef = z.object({ sessionId: z.string().min(1) });
const empty = z.object({});

/** A session as `session/list` and the attach results describe it. */
export const sessionInfoSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  provider: z.string(),
  model: z.string(),
  cwd: z.string(),
  /** Hosted by this server now (its events stream); false: saved only, `session/load` resumes it. */
  live: z.boolean(),
  running: z.boolean(),
  updatedAt: z.number(),
  messages: z.number(),
  /** Clients attached now (live sessions). */
  clients: z.number(),
  /** Live sessions: the permission mode now and the model's context window (a remote TUI's status line). */
  permissionMode: permissionModeSchema.optional(),
  contextWindow: z.number().optional(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

/** What attaching (session/new, session/load) returns: the session, the last sequence number, whether this client drives. */
export const attachResultSchema = z.object({
  session: sessionInfoSchema,
  /** The newest event number at attach time; events with a higher `seq` follow as notifications. */
  seq: z.number().int().nonnegative(),
  driver: z.boolean(),
  /** session/load of a saved session: the history it resumes from. */
  history: z.array(messageSchema).optional(),
  /**
   * A live session's approval.requested events nobody has answered yet (with their seq): the turn waits on them,
   * and a client that becomes the driver answers them with session/approve. Also replayed when afterSeq covers them.
   */
  pending: z.array(z.object({ seq: z.number().int().positive(), event: agentEventSchema })).optional(),
});

/** A model the server can switch a session to (`models/list`, the remote TUI's /model picker). */
export const modelChoiceSchema = z.object({ provider: z.string(), model: z.string(), description: z.string().optional() });

/** A checkpoint as the rewind menu lists it (src/agent/checkpoints/schema.ts CheckpointSummary). */
export const checkpointSummarySchema = z.object({ id: z.string(), time: z.number(), label: z.string(), messageCount: z.number(), files: z.number(), conversationOnly: z.boolean() });

/** What restoring a checkpoint's code would do (RestorePlan); the rewind op recomputes it on the server. */
export const restorePlanSchema = z.object({
  checkpointId: z.string(),
  change: z.array(z.string()),
  created: z.array(z.string()),
  conflicts: z.array(z.object({ path: z.string(), action: z.enum(["change", "delete"]) })),
  notRestorable: z.array(z.object({ path: z.string(), reason: z.string() })),
  conversationOnly: z.boolean(),
});

/**
 * Each method: its params and its result. `session/prompt` and the other ops answer once the op is accepted;
 * what happens then arrives as `session/event` notifications (a turn ends with `turn.completed`).
 */
export const METHODS = {
  initialize: {
    params: z.object({
      protocolVersion: z.number().int(),
      clientInfo: z.object({ name: z.string(), version: z.string().optional() }).optional(),
    }),
    result: z.object({
      protocolVersion: z.number().int(),
      eventSchemaVersion: z.number().int(),
      serverInfo: z.object({ name: z.literal("chatcli"), version: z.string() }),
      methods: z.array(z.string()),
    }),
  },
  "session/new": {
    params: z.object({
      /** The project directory (default: the server's). */
      cwd: z.string().optional(),
      provider: z.string().optional(),
      model: z.string().optional(),
      permissionMode: permissionModeSchema.optional(),
    }),
    result: attachResultSchema,
  },
  "session/load": {
    params: z.object({
      /** An id, a name or a unique id prefix (as `--resume`). */
      sessionId: z.string().min(1),
      /** Reattach: replay the live session's events after this number (no gap, no duplicate). */
      afterSeq: z.number().int().nonnegative().optional(),
    }),
    result: attachResultSchema,
  },
  "session/list": { params: empty, result: z.object({ sessions: z.array(sessionInfoSchema) }) },
  "session/prompt": {
    params: sessionRef.extend({ text: z.string().min(1), display: z.string().optional() }),
    /** `queued`: a turn was running, the prompt waits behind it (type-ahead). */
    result: z.object({ queued: z.boolean() }),
  },
  "session/interrupt": { params: sessionRef, result: empty },
  "session/approve": { params: sessionRef.extend({ requestId: z.string().min(1), decision: approvalDecisionSchema }), result: empty },
  /** An empty `model`: the provider's default model (the TUI's `/provider X`). */
  "session/setModel": { params: sessionRef.extend({ provider: z.string().min(1), model: z.string() }), result: empty },
  "session/setMode": { params: sessionRef.extend({ mode: permissionModeSchema }), result: empty },
  "session/compact": { params: sessionRef.extend({ instruction: z.string().optional() }), result: empty },
  "session/rewind": {
    params: sessionRef.extend({ checkpointId: z.string().min(1), mode: rewindModeSchema, deleteCreated: z.boolean().optional(), force: z.boolean().optional() }),
    result: empty,
  },
  /** Op `remove_queued`: drop a waiting type-ahead prompt. */
  "session/removeQueued": { params: sessionRef.extend({ index: z.number().int().nonnegative() }), result: empty },
  /** Op `send_queued`: send what an interrupt left waiting in the queue. */
  "session/sendQueued": { params: sessionRef, result: empty },
  /** Op `clear`: a fresh conversation in the same session. */
  "session/clear": { params: sessionRef, result: empty },
  /** Op `shell`: a command the user typed (`!cmd`), run in the session's project; its output becomes context. */
  "session/shell": { params: sessionRef.extend({ command: z.string().min(1) }), result: empty },
  /**
   * The session's checkpoints, newest first, with the restore plans (or why none can be made) of the newest
   * CHECKPOINT_PLANS ones, or of `planIds` when given (a plan reads the files: never all of a long session's at once).
   */
  "session/checkpoints": {
    params: sessionRef.extend({ planIds: z.array(z.string()).max(100).optional() }),
    result: z.object({ checkpoints: z.array(checkpointSummarySchema), plans: z.record(z.string(), z.union([restorePlanSchema, z.object({ error: z.string() })])) }),
  },
  /** The models the server can switch to (for the given session's project, else the server's). */
  "models/list": { params: z.object({ sessionId: z.string().min(1).optional() }), result: z.object({ models: z.array(modelChoiceSchema) }) },
  /** Ends the session (its turn is interrupted, the session file is saved); every attached client gets session.ended. */
  "session/close": { params: sessionRef, result: z.object({ closed: z.boolean() }) },
} as const;

export type MethodName = keyof typeof METHODS;
export type MethodParams<M extends MethodName> = z.infer<(typeof METHODS)[M]["params"]>;
export type MethodResult<M extends MethodName> = z.infer<(typeof METHODS)[M]["result"]>;

export function isMethodName(m: string): m is MethodName {
  return Object.hasOwn(METHODS, m);
}

/** Server → client notifications. */
export const NOTIFICATIONS = {
  /** One AgentEvent of a session; `seq` counts from 1 per session, without gaps, across every client. */
  "session/event": z.object({ sessionId: z.string(), seq: z.number().int().positive(), event: agentEventSchema }),
  /** This connection is being closed by the server (slow client, shutdown); the reason is for logs and people. */
  "server/closing": z.object({ reason: z.enum(["shutdown", "slow_client", "too_large"]), message: z.string() }),
} as const;
export type SessionEventParams = z.infer<(typeof NOTIFICATIONS)["session/event"]>;
