/**
 * The session file format: one JSON record per line, each carrying `v` (the record schema version) and `type`.
 * Readers skip records with a newer `v` (with a warning) instead of failing, so old builds can still list and
 * resume most of a file written by a newer one. Additive changes (new optional fields, new record types that
 * old readers skip) keep `v`; anything that changes the meaning of an existing field bumps it.
 *
 * Records:
 * - `meta`: written once, first line. `title` is the first user message on one line.
 * - `message`: one appended history message, with its entry id (`id`, unique in the file; absent in files
 *   written before entry ids: the loader then numbers entries `#<n>` in the order they appeared).
 * - `history`: the history rebuilt from parts (compaction, rewind, clear, overflow recovery): runs of entries
 *   kept from the history before (`keep: [firstId, lastId]`, inclusive, in that history's order) and new
 *   messages with their ids. A compaction is its summary messages followed by `keep: [firstKeptEntryId, …]`,
 *   so the record is as big as what changed, never a copy of the history.
 * - `replace`: the whole history replaced. Written by older builds (each pipeline pass, compaction, rewind);
 *   still read, no longer written.
 * - `compaction` / `checkpoint` / `tool_use_summary` / `model_switch`: events of note.
 * - `subagent`: a finished child's own transcript (issue 20; additive, older readers skip it as invalid): its id,
 *   the agent that called it, its definition, task, how it ended and its messages. The `subagent.completed`
 *   view record next to it is stored without the messages.
 * - `view`: the other AgentEvents the TUI reducer draws from (turns, answers, tools, notices), so a resumed
 *   session is rendered by the same reducer exactly as it was. Streaming deltas are coalesced into one delta
 *   per message (the markdown splitter is prefix-stable, so the result is the same).
 */
import { z } from "zod";
import { agentEventSchema, type AgentEvent } from "../protocol/events.ts";
import { messageSchema } from "../protocol/message.ts";

export const SESSION_RECORD_VERSION = 1;

const base = { v: z.number().int().positive(), ts: z.number() };

/** One part of a `history` record: a run of kept entries, or a new message with its entry id. */
export const historyPartSchema = z.union([
  z.object({ keep: z.tuple([z.string().min(1), z.string().min(1)]) }),
  z.object({ id: z.string().min(1), message: messageSchema }),
]);
export type HistoryPart = z.infer<typeof historyPartSchema>;

export const metaRecordSchema = z.object({
  ...base,
  type: z.literal("meta"),
  id: z.string().min(1),
  title: z.string(),
  cwd: z.string(),
  projectRoot: z.string(),
  provider: z.string(),
  model: z.string(),
  createdAt: z.number(),
  /** Set when the session was forked from, or imported into, another. */
  forkedFrom: z.string().optional(),
  importedFrom: z.string().optional(),
});

type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;
const eventSchemaOf = <T extends AgentEvent["type"]>(t: T) =>
  agentEventSchema.options.find((o) => o.shape.type.value === t) as unknown as z.ZodType<EventOf<T>>;

/**
 * Files written before event schema 2 stored a message's coalesced delta as `partial` (its whole text; `text`
 * absent, or in the oldest files the same text again). It becomes the `text` of one delta.
 */
function legacyDelta(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const e = raw as Record<string, unknown>;
  if (e.type !== "message.delta" || typeof e.partial !== "string") return raw;
  const { partial, ...rest } = e;
  return partial ? { ...rest, text: partial } : rest;
}

export const sessionRecordSchema = z.discriminatedUnion("type", [
  metaRecordSchema,
  z.object({ ...base, type: z.literal("message"), id: z.string().min(1).optional(), message: messageSchema }),
  z.object({ ...base, type: z.literal("history"), reason: z.string(), parts: z.array(historyPartSchema) }),
  z.object({ ...base, type: z.literal("replace"), reason: z.string(), messages: z.array(messageSchema) }),
  z.object({ ...base, type: z.literal("compaction"), event: eventSchemaOf("compaction") }),
  z.object({ ...base, type: z.literal("checkpoint"), event: eventSchemaOf("checkpoint.saved") }),
  z.object({ ...base, type: z.literal("tool_use_summary"), batchId: z.string(), label: z.string(), callIds: z.array(z.string()) }),
  z.object({ ...base, type: z.literal("model_switch"), provider: z.string(), model: z.string() }),
  z.object({
    ...base,
    type: z.literal("subagent"),
    agentId: z.string().min(1),
    parentId: z.string(),
    agent: z.string(),
    description: z.string(),
    status: z.string(),
    messages: z.array(messageSchema),
  }),
  /** `history.replaced` is stored without its messages: they are the history after the `history`/`replace` record just before. */
  z.object({ ...base, type: z.literal("view"), event: z.preprocess(legacyDelta, agentEventSchema) }),
]);

export type SessionRecord = z.infer<typeof sessionRecordSchema>;
export type MetaRecord = z.infer<typeof metaRecordSchema>;
/** A record as the writer takes it (version and timestamp are added on write). */
export type RecordInput = SessionRecord extends infer R ? (R extends SessionRecord ? Omit<R, "v" | "ts"> : never) : never;

/** The AgentEvent a note/view record stands for in the reducer replay, or undefined for history records. */
export function viewEventOf(r: SessionRecord): AgentEvent | undefined {
  switch (r.type) {
    case "meta":
    case "message":
    case "history":
    case "replace":
    case "subagent":
      return undefined;
    case "compaction":
    case "checkpoint":
    case "view":
      return r.event;
    case "tool_use_summary":
      return { type: "tool_use_summary", batchId: r.batchId, label: r.label, callIds: r.callIds };
    case "model_switch":
      return { type: "model.changed", provider: r.provider, model: r.model };
  }
}
