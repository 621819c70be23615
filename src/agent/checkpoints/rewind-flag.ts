/**
 * `--resume <session> --rewind <n>`: rewinds the resumed session to its n-th newest checkpoint (conversation and
 * code; conflicts skipped, files created after the checkpoint kept) through the session's own `rewind` op, so the
 * session file records the replaced history like any interactive rewind.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { SessionLike } from "../../protocol/session-like.ts";
import type { CheckpointSummary } from "./schema.ts";

export interface RewindFlagResult {
  event: Extract<AgentEvent, { type: "rewound" }>;
  checkpoint: CheckpointSummary;
  /** Info notices of the restore (files restored, skipped, not restorable). */
  notes: string[];
}

export function rewindFlag(session: SessionLike, checkpoints: { list(): CheckpointSummary[] }, n: number): Promise<RewindFlagResult | string> {
  const list = checkpoints.list();
  const cp = list[n - 1];
  if (!cp) return Promise.resolve(list.length ? `--rewind ${n}: this session has ${list.length} checkpoint${list.length === 1 ? "" : "s"} (1 = newest).` : "--rewind: this session has no checkpoints.");
  return new Promise((resolve) => {
    const notes: string[] = [];
    const off = session.subscribe((e) => {
      if (e.type === "rewound" && e.checkpointId === cp.id) {
        // The store's restore notice comes one tick after the event.
        setTimeout(() => {
          off();
          resolve({ event: e, checkpoint: cp, notes });
        }, 5);
      } else if (e.type === "notice") {
        if (e.level === "info") notes.push(e.text);
        else {
          off();
          resolve(e.text);
        }
      }
    });
    session.submit({ type: "rewind", checkpointId: cp.id, mode: "both" });
  });
}
