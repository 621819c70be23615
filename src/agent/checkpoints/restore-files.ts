/** Carrying out a restore plan: writes files back, deletes created ones on request, and words the outcome. */
import { lstatSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { realpathLenient } from "../../tool/workspace.ts";
import { insideRoot } from "./index-check.ts";
import type { Op } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import type { BlobStore } from "./blob-store.ts";
import { planTargets } from "./plan.ts";
import type { CheckpointIndex, RestorePlan } from "./schema.ts";

export type RewindOp = Extract<Op, { type: "rewind" }>;

export interface RestoreDeps {
  index: CheckpointIndex;
  /** Every write and delete must land inside it by real path (a parent may have become a symlink since). */
  projectRoot: string;
  blobs: BlobStore;
  /** Records each file's current state into the latest checkpoint before it is overwritten or deleted. */
  beforeFileChange(absPath: string): void;
  finalizePending(): void;
}

/** Returns the notice that says what was restored, skipped, kept and not restorable. */
export function restoreFiles(d: RestoreDeps, plan: RestorePlan, op: RewindOp): string {
  const conflictPaths = new Set(plan.conflicts.map((c) => c.path));
  const writes = [...plan.change, ...(op.force ? plan.conflicts.filter((c) => c.action === "change").map((c) => c.path) : [])];
  const deletes = op.deleteCreated ? [...plan.created, ...(op.force ? plan.conflicts.filter((c) => c.action === "delete").map((c) => c.path) : [])] : [];
  const targets = planTargets(d.index, plan.checkpointId);
  const failed: string[] = [];
  const outside: string[] = [];
  const realRoot = realpathLenient(d.projectRoot);
  /** The parent's real path is inside the project and the file itself is not a symlink (writing would follow it). */
  const safe = (p: string): boolean => {
    let ok = insideRoot(realpathLenient(dirname(p)), realRoot);
    try {
      if (ok && lstatSync(p).isSymbolicLink()) ok = false;
    } catch {
      // missing: fine
    }
    if (!ok) outside.push(p);
    return ok;
  };
  let written = 0;
  let deleted = 0;
  for (const p of writes) {
    if (!safe(p)) continue;
    const t = targets.get(p);
    const bytes = t?.kind === "content" ? d.blobs.get(t.hash) : undefined;
    if (!bytes) {
      failed.push(p);
      continue;
    }
    d.beforeFileChange(p);
    try {
      mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
      writeFileSync(p, bytes, { mode: 0o600 });
      written++;
    } catch {
      failed.push(p);
    }
  }
  for (const p of deletes) {
    if (!safe(p)) continue;
    d.beforeFileChange(p);
    try {
      unlinkSync(p);
      deleted++;
    } catch {
      failed.push(p);
    }
  }
  d.finalizePending();
  const parts = [`${written === 1 ? t("restore.filesOne") : t("restore.filesMany", { count: written })}${deleted ? t("restore.deleted", { count: deleted }) : ""}.`];
  const skippedConflicts = op.force ? [] : [...conflictPaths];
  if (skippedConflicts.length) parts.push(t("restore.skipped", { files: skippedConflicts.join(", ") }));
  if (!op.deleteCreated && plan.created.length) parts.push(t("restore.kept", { files: plan.created.join(", ") }));
  if (plan.notRestorable.length) parts.push(t("restore.notRestorable", { files: plan.notRestorable.map((n) => `${n.path} (${n.reason})`).join(", ") }));
  if (outside.length) parts.push(t("restore.outside", { files: outside.join(", ") }));
  if (failed.length) parts.push(t("restore.failed", { files: failed.join(", ") }));
  return parts.join(" ");
}
