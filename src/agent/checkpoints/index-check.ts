/**
 * Validation of a loaded `index.json` (the file may have been tampered with): checkpoint ids must be safe file
 * names, blob hashes sha256 hex, and every file path absolute, normalised and inside the project root. Offending
 * entries are dropped (a checkpoint's file entry becomes "unrestorable"), and each kind of problem is reported once
 * so the caller can warn naming the file. Restore time re-checks the real path (restore-files.ts).
 */
import { isAbsolute, posix } from "node:path";
import { isBlobHash, isSafeId } from "../../store/store-ids.ts";
import { realpathLenient } from "../../tool/workspace.ts";
import type { CheckpointIndex, KnownFile } from "./schema.ts";

export function checkIndex(index: CheckpointIndex, projectRoot: string): { index: CheckpointIndex; problems: string[] } {
  const problems = new Set<string>();
  const roots = [...new Set([projectRoot, realpathLenient(projectRoot)])];
  const pathOk = (p: string) => {
    const ok = isAbsolute(p) && posix.normalize(p) === p && roots.some((r) => insideRoot(p, r));
    if (!ok) problems.add(`a path outside the project (${JSON.stringify(p.length > 80 ? `${p.slice(0, 77)}...` : p)})`);
    return ok;
  };
  const checkpoints = index.checkpoints.filter((c) => {
    if (isSafeId(c.id)) return true;
    problems.add(`an invalid checkpoint id (${JSON.stringify(c.id)})`);
    return false;
  });
  for (const c of checkpoints) {
    const before: typeof c.before = {};
    for (const [p, s] of Object.entries(c.before)) {
      if (!pathOk(p)) continue;
      if (s.kind === "content" && !isBlobHash(s.hash)) {
        problems.add(`an invalid snapshot hash (${JSON.stringify(s.hash)})`);
        before[p] = { kind: "unrestorable", reason: "the snapshot index was damaged" };
      } else before[p] = s;
    }
    c.before = before;
  }
  const files = (rec: Record<string, KnownFile> | undefined) => {
    const out: Record<string, KnownFile> = {};
    for (const [p, k] of Object.entries(rec ?? {})) {
      if (!pathOk(p)) continue;
      if (k.hash !== null && !isBlobHash(k.hash)) {
        problems.add(`an invalid snapshot hash (${JSON.stringify(k.hash)})`);
        continue;
      }
      out[p] = k;
    }
    return out;
  };
  const blobs: Record<string, number> = {};
  for (const [h, n] of Object.entries(index.blobs)) {
    if (isBlobHash(h)) blobs[h] = n;
    else problems.add(`an invalid blob name (${JSON.stringify(h)})`);
  }
  const historyBytes: Record<string, number> = {};
  for (const [id, n] of Object.entries(index.historyBytes)) if (isSafeId(id)) historyBytes[id] = n;
  const checked: CheckpointIndex = { ...index, checkpoints, known: files(index.known), blobs, historyBytes };
  if (index.execCache) checked.execCache = files(index.execCache);
  return { index: checked, problems: [...problems] };
}

export function insideRoot(p: string, root: string): boolean {
  const rel = posix.relative(root, p);
  return rel === "" || (!rel.startsWith("../") && rel !== ".." && !posix.isAbsolute(rel));
}
