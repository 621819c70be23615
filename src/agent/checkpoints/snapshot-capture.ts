/**
 * Snapshot capture: reading a file's prior state into the blob store before a change, the pre-exec copies, and the
 * `known` state chatcli last left a file in. Everything here mutates the store's index in place and never throws.
 * The exec path (cacheBeforeExec, priorOfExecChange, refreshKnownAsync) is asynchronous: it may touch thousands
 * of files, and the UI must keep drawing meanwhile (issue 26 #8).
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { looksBinary } from "../../tool/builtin/walk.ts";
import { sha256, type BlobStore } from "./blob-store.ts";
import { headContent, relPosix, type GitView } from "./git-head.ts";
import { limiter, sameStat, statFile, statFileAsync, type FileStat } from "./project-scan.ts";
import type { CheckpointIndex, KnownFile, PriorState } from "./schema.ts";

/** What the store holds while capturing (the live index, mutated in place). */
export interface CaptureContext {
  readonly index: CheckpointIndex;
  readonly blobs: BlobStore;
  readonly projectRoot: string;
  readonly maxFileBytes: number;
  readonly maxExecCacheBytes: number;
}

/** `aroundExec.before`'s token: the stat scan and git view taken before the command. */
export interface ExecToken {
  scan: Map<string, FileStat>;
  git: GitView | undefined;
}

export function captureCurrent(c: CaptureContext, absPath: string): PriorState {
  const st = statFile(absPath);
  if (!st) return { kind: "absent" };
  if (st.size > c.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(c.maxFileBytes)}` };
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(absPath);
  } catch (err) {
    return { kind: "unrestorable", reason: `unreadable: ${(err as Error).message}` };
  }
  return storeSnapshotBytes(c, bytes);
}

export function storeSnapshotBytes(c: CaptureContext, bytes: Uint8Array): PriorState {
  if (bytes.length > c.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(c.maxFileBytes)}` };
  if (bytes.length > 64 * 1024 && looksBinary(bytes)) return { kind: "unrestorable", reason: "large binary file" };
  const r = c.blobs.put(bytes);
  if ("error" in r) return { kind: "unrestorable", reason: `snapshot store not writable: ${r.error}` };
  c.index.blobs[r.hash] = bytes.length;
  return { kind: "content", hash: r.hash, size: bytes.length };
}

async function storeSnapshotBytesAsync(c: CaptureContext, bytes: Uint8Array): Promise<PriorState> {
  if (bytes.length > c.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(c.maxFileBytes)}` };
  if (bytes.length > 64 * 1024 && looksBinary(bytes)) return { kind: "unrestorable", reason: "large binary file" };
  const r = await c.blobs.putAsync(bytes);
  if ("error" in r) return { kind: "unrestorable", reason: `snapshot store not writable: ${r.error}` };
  c.index.blobs[r.hash] = bytes.length;
  return { kind: "content", hash: r.hash, size: bytes.length };
}

export async function priorOfExecChange(c: CaptureContext, p: string, t: ExecToken): Promise<PriorState> {
  const before = t.scan.get(p);
  if (!before) return { kind: "absent" };
  if (before.size > c.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(c.maxFileBytes)}` };
  const k = c.index.known[p];
  if (k?.hash && k.stored && sameStat(before, k) && c.blobs.has(k.hash)) return { kind: "content", hash: k.hash, size: k.size };
  const e = c.index.execCache?.[p];
  if (e?.hash && e.stored && sameStat(before, e) && c.blobs.has(e.hash)) return { kind: "content", hash: e.hash, size: e.size };
  if (t.git && !t.git.dirty.has(relPosix(c.projectRoot, p))) {
    const head = await headContent(c.projectRoot, p);
    if (head && head.length === before.size) return storeSnapshotBytesAsync(c, head);
  }
  return { kind: "unrestorable", reason: "changed by a command; its earlier content was never seen by chatcli" };
}

/**
 * Before a command: copies every scanned file chatcli holds no current copy of into the blob store (once, by
 * content), so whatever the command changes can be put back. Only files whose stat changed are read again.
 * Returns whether the cache changed (the caller then collects blobs and persists).
 */
export async function cacheBeforeExec(c: CaptureContext, scan: Map<string, FileStat>): Promise<boolean> {
  const cache = (c.index.execCache ??= {});
  let changed = false;
  for (const p of Object.keys(cache)) {
    if (!scan.has(p)) {
      delete cache[p];
      changed = true;
    }
  }
  let used = 0;
  for (const e of Object.values(cache)) if (e.stored) used += e.size;
  // Which files to copy is decided up front (the byte budget reserved), then they are read and stored in parallel.
  const todo: Array<[string, FileStat]> = [];
  let n = 0;
  for (const [p, st] of scan) {
    if (++n % 2_000 === 0) await new Promise<void>((resolve) => setImmediate(resolve)); // let timers and keys run
    if (st.size > c.maxFileBytes) continue;
    const k = c.index.known[p];
    if (k?.stored && k.hash && sameStat(st, k)) continue;
    const e = cache[p];
    if (e?.stored && e.hash && sameStat(st, e)) continue;
    if (e?.stored) used -= e.size;
    delete cache[p];
    changed = true;
    if (used + st.size > c.maxExecCacheBytes) continue;
    used += st.size;
    todo.push([p, st]);
  }
  const limit = limiter(16);
  let unwritable = false; // an unwritable store: the remaining files stay "not restorable"
  await Promise.all(
    todo.map(([p, st]) =>
      limit(async () => {
        if (unwritable) return;
        const bytes = await readFile(p).catch(() => undefined);
        if (!bytes || bytes.length !== st.size || (bytes.length > 64 * 1024 && looksBinary(bytes))) return;
        const r = await c.blobs.putAsync(bytes);
        if ("error" in r) {
          unwritable = true;
          return;
        }
        c.index.blobs[r.hash] = bytes.length;
        cache[p] = { hash: r.hash, size: st.size, mtimeNs: st.mtimeNs, stored: true };
      }),
    ),
  );
  return changed;
}

/** `refreshKnown` without blocking the event loop (after an exec, for every file it changed). */
export async function refreshKnownAsync(c: CaptureContext, p: string): Promise<void> {
  const st = await statFileAsync(p);
  if (!st) {
    c.index.known[p] = { hash: null, size: 0, mtimeNs: "0", stored: false };
    return;
  }
  const bytes = await readFile(p).catch(() => undefined);
  if (!bytes) {
    c.index.known[p] = { hash: null, size: st.size, mtimeNs: st.mtimeNs, stored: false };
    return;
  }
  const hash = sha256(bytes);
  let stored = false;
  if (bytes.length <= c.maxFileBytes && !(bytes.length > 64 * 1024 && looksBinary(bytes))) {
    const r = await c.blobs.putAsync(bytes, hash);
    if (!("error" in r)) {
      stored = true;
      c.index.blobs[hash] = bytes.length;
    }
  }
  c.index.known[p] = { hash, size: st.size, mtimeNs: st.mtimeNs, stored };
}

/** Reads a file's current state into `known` (and keeps a copy so a later exec change stays restorable). */
export function refreshKnown(c: CaptureContext, p: string): void {
  const st = statFile(p);
  if (!st) {
    c.index.known[p] = { hash: null, size: 0, mtimeNs: "0", stored: false };
    return;
  }
  let hash: string | null = null;
  let stored = false;
  try {
    const bytes = readFileSync(p);
    hash = sha256(bytes);
    if (bytes.length <= c.maxFileBytes && !(bytes.length > 64 * 1024 && looksBinary(bytes))) {
      const r = c.blobs.put(bytes, hash);
      if (!("error" in r)) {
        stored = true;
        c.index.blobs[hash] = bytes.length;
      }
    }
  } catch {
    hash = null;
  }
  c.index.known[p] = { hash, size: st.size, mtimeNs: st.mtimeNs, stored };
}

export function currentHash(index: CheckpointIndex, p: string): { hash: string | null; known: KnownFile | undefined } {
  const st = statFile(p);
  let hash: string | null = null;
  if (st) {
    try {
      hash = sha256(readFileSync(p));
    } catch {
      hash = null;
    }
  }
  return { hash, known: index.known[p] };
}

function fmtBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MB`;
  return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}
