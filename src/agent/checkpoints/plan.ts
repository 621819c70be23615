/** Restore planning: what rewinding a checkpoint's code would write, delete, skip as a conflict, or cannot do. */
import type { CheckpointIndex, KnownFile, PriorState, RestorePlan } from "./schema.ts";

/** Path → the file's state at the checkpoint (the first `before` entry at or after it). */
export function planTargets(index: CheckpointIndex, checkpointId: string): Map<string, PriorState> {
  const out = new Map<string, PriorState>();
  const idx = index.checkpoints.findIndex((c) => c.id === checkpointId);
  if (idx < 0) return out;
  for (let k = idx; k < index.checkpoints.length; k++) {
    for (const [p, s] of Object.entries(index.checkpoints[k]!.before)) if (!out.has(p)) out.set(p, s);
  }
  return out;
}

/**
 * A file is in conflict when its current content differs from what chatcli last left there (someone else changed
 * it since). Files already at their checkpoint content are left out; without a `known` state there is nothing to
 * compare against, so no conflict is claimed.
 */
export function planFor(index: CheckpointIndex, idx: number, current: (p: string) => { hash: string | null; known: KnownFile | undefined }): RestorePlan {
  const cp = index.checkpoints[idx]!;
  const plan: RestorePlan = { checkpointId: cp.id, change: [], created: [], conflicts: [], notRestorable: [], conversationOnly: cp.conversationOnly };
  for (const [p, target] of planTargets(index, cp.id)) {
    if (target.kind === "unrestorable") {
      plan.notRestorable.push({ path: p, reason: target.reason });
      continue;
    }
    const { hash, known } = current(p);
    const want = target.kind === "content" ? target.hash : null;
    if (hash === want) continue;
    const conflict = known !== undefined && known.hash !== hash;
    const action = target.kind === "content" ? "change" : "delete";
    if (conflict) plan.conflicts.push({ path: p, action });
    else if (action === "change") plan.change.push(p);
    else plan.created.push(p);
  }
  for (const list of [plan.change, plan.created]) list.sort();
  plan.conflicts.sort((a, b) => (a.path < b.path ? -1 : 1));
  return plan;
}
