/** Keeping the store within its size cap: the byte count, blob garbage collection, and pruning order. */
import type { BlobStore } from "./blob-store.ts";
import type { CheckpointIndex } from "./schema.ts";

/** Bytes held by blobs and history copies. */
export function storeBytesOf(index: CheckpointIndex): number {
  return Object.values(index.blobs).reduce((a, b) => a + b, 0) + Object.values(index.historyBytes).reduce((a, b) => a + b, 0);
}

/** Removes every blob no checkpoint, `known` copy or pre-exec copy refers to. */
export function collectBlobs(index: CheckpointIndex, blobs: BlobStore): void {
  const live = new Set<string>();
  for (const c of index.checkpoints) for (const s of Object.values(c.before)) if (s.kind === "content") live.add(s.hash);
  for (const k of Object.values(index.known)) if (k.stored && k.hash) live.add(k.hash);
  for (const k of Object.values(index.execCache ?? {})) if (k.stored && k.hash) live.add(k.hash);
  for (const h of Object.keys(index.blobs)) {
    if (live.has(h)) continue;
    blobs.remove(h);
    delete index.blobs[h];
  }
}

/** Over `maxStoreBytes`: pre-exec copies go first, then the oldest checkpoints (`dropOldest`), then the `known` copies. */
export function pruneToCap(index: CheckpointIndex, blobs: BlobStore, maxStoreBytes: number, dropOldest: () => void): void {
  if (storeBytesOf(index) > maxStoreBytes && index.execCache && Object.keys(index.execCache).length) {
    // The pre-exec copies are regenerable: they go before any checkpoint does.
    index.execCache = {};
    collectBlobs(index, blobs);
  }
  while (storeBytesOf(index) > maxStoreBytes && index.checkpoints.length > 1) dropOldest();
  if (storeBytesOf(index) <= maxStoreBytes) return;
  // Still over with one checkpoint: the exec cache goes first.
  for (const k of Object.values(index.known)) k.stored = false;
  collectBlobs(index, blobs);
}
