/** The persisted shape of a session's checkpoints (`<dir>/index.json`), parsed with zod on load. */
import { z } from "zod";

/** A file's content just before its first change after a checkpoint. */
export const priorStateSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("content"), hash: z.string(), size: z.number() }),
  /** The file did not exist: restoring deletes it (only when the user confirms). */
  z.object({ kind: z.literal("absent") }),
  z.object({ kind: z.literal("unrestorable"), reason: z.string() }),
]);
export type PriorState = z.infer<typeof priorStateSchema>;

export const checkpointRecordSchema = z.object({
  id: z.string(),
  time: z.number(),
  label: z.string(),
  /** Messages the conversation has after restoring this checkpoint. */
  messageCount: z.number(),
  historyLength: z.number(),
  /** Set when the copy ends with the turn's user message: restoring drops it and puts it back in the prompt. */
  promptIndex: z.number().optional(),
  prompt: z.string(),
  /** Key of the last message, to skip saving an identical checkpoint twice. */
  lastKey: z.string(),
  /** The snapshot store failed: code cannot be restored to this checkpoint. */
  conversationOnly: z.boolean(),
  /** Absolute path → content before its first change after this checkpoint (and before the next one). */
  before: z.record(z.string(), priorStateSchema),
});
export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;

/** The state chatcli last left a file in (null hash: deleted / absent); the base of conflict detection. */
export const knownFileSchema = z.object({
  hash: z.string().nullable(),
  size: z.number(),
  mtimeNs: z.string(),
  /** A copy of this content is in the blob store (lets exec-changed files be restored). */
  stored: z.boolean(),
});
export type KnownFile = z.infer<typeof knownFileSchema>;

export const checkpointIndexSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  projectRoot: z.string(),
  seq: z.number(),
  checkpoints: z.array(checkpointRecordSchema),
  known: z.record(z.string(), knownFileSchema),
  /**
   * Copies of project files taken just before an `exec` (only files chatcli holds no copy of, within a byte budget),
   * so a file a command changes can be restored even when chatcli never wrote it. Regenerable: pruned first.
   */
  execCache: z.record(z.string(), knownFileSchema).optional(),
  /** Blob hash → size in bytes (the store's size cap counts these plus the history copies). */
  blobs: z.record(z.string(), z.number()),
  historyBytes: z.record(z.string(), z.number()),
});
export type CheckpointIndex = z.infer<typeof checkpointIndexSchema>;

export interface CheckpointSummary {
  id: string;
  time: number;
  label: string;
  messageCount: number;
  /** Files changed after this checkpoint. */
  files: number;
  conversationOnly: boolean;
}

export interface RestorePlan {
  checkpointId: string;
  /** Files rewritten to their content at the checkpoint. */
  change: string[];
  /** Files created after the checkpoint: deleted only with `deleteCreated`. */
  created: string[];
  /** Changed outside chatcli since chatcli last wrote them: skipped unless `force`. */
  conflicts: Array<{ path: string; action: "change" | "delete" }>;
  notRestorable: Array<{ path: string; reason: string }>;
  conversationOnly: boolean;
}
