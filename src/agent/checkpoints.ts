/**
 * CheckpointStore: conversation checkpoints (saved before every model call of the main session, at most 20, each
 * with a structuredClone of the history) and the file snapshots that let a rewind restore code too.
 *
 * File model: each checkpoint's `before` map holds, for every file first changed after it (and before the next
 * checkpoint), the content the file had then (content-addressed blob, "absent", or "not restorable"). The state of a
 * file at checkpoint k is therefore the `before` entry of the first checkpoint ≥ k that has it; "files changed
 * after k" is the union of those maps. Rewinding saves the current state first as a checkpoint, and the restore's
 * own writes are recorded into it, so every rewind can be undone.
 *
 * What exec changes is found by a stat scan of the project before and after the command. The prior content of a
 * file exec changed is known when chatcli has a copy of it: the content it last wrote itself (the `known` map,
 * blobs stored as files are written), the copy taken just before the command (the `execCache`: every scanned file
 * chatcli holds no current copy of, stored once, content-addressed, within `maxExecCacheBytes`; only files whose
 * stat changed since the last exec are read again) or, in a git repo, HEAD's version of a file that was clean
 * before the command. Anything else (over the budget, large binaries) is recorded as "not restorable".
 *
 * Nothing here throws into the turn: an unwritable store marks the checkpoint conversation-only and goes on.
 * Layout under `dir` (normally `<chatcliHome>/snapshots/<sessionId>/`): `index.json`, `history/<id>.json`,
 * `blobs/<sha256>`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../protocol/events.ts";
import { t } from "../i18n/i18n.ts";
import type { Message } from "../protocol/message.ts";
import { BlobStore, sha256 } from "./checkpoints/blob-store.ts";
import { gitView, isGitRepo } from "./checkpoints/git-head.ts";
import { checkpointLabel, cutLabel, lastUserIndex, lastUserMessage } from "./checkpoints/label.ts";
import { sameStat, scanProject, type FileStat } from "./checkpoints/project-scan.ts";
import { checkpointIndexSchema, type CheckpointIndex, type CheckpointRecord, type CheckpointSummary, type PriorState, type RestorePlan } from "./checkpoints/schema.ts";
import { planFor, planTargets } from "./checkpoints/plan.ts";
import { checkIndex } from "./checkpoints/index-check.ts";
import { assertSafeId } from "../store/store-ids.ts";
import { restoreFiles, type RewindOp } from "./checkpoints/restore-files.ts";
import { cacheBeforeExec, captureCurrent, currentHash, priorOfExecChange, refreshKnown, refreshKnownAsync, type CaptureContext, type ExecToken } from "./checkpoints/snapshot-capture.ts";
import { persistExecCache, persistIndex, persistIndexAsync, readExecCache, readHistoryFile, removeHistoryFile, writeHistoryFile } from "./checkpoints/store-files.ts";
import { collectBlobs, pruneToCap, storeBytesOf } from "./checkpoints/store-pruning.ts";

export type { CheckpointSummary, RestorePlan } from "./checkpoints/schema.ts";
export { checkpointLabel, cutLabel } from "./checkpoints/label.ts";
export type { RewindOp } from "./checkpoints/restore-files.ts";

export const MAX_CHECKPOINTS = 20;
/** Loops over every scanned file give the event loop a turn this often (timers, keys, frames). */
const YIELD_EVERY = 2_000;
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_STORE_BYTES = 256 * 1024 * 1024;
/** Bytes of pre-exec copies kept at most (never more than a quarter of the store cap). */
export const DEFAULT_MAX_EXEC_CACHE_BYTES = 64 * 1024 * 1024;

export interface CheckpointStoreOptions {
  sessionId: string;
  /** The store's directory, e.g. `checkpointDir(home, sessionId)`. */
  dir: string;
  projectRoot: string;
  maxCheckpoints?: number;
  /** Larger files are recorded as not restorable (default 2 MB). */
  maxFileBytes?: number;
  /** Blobs + history copies; the oldest checkpoints are pruned past it (default 256 MB). */
  maxStoreBytes?: number;
  /** Bound of the exec scan. */
  maxScanFiles?: number;
  /** Bytes of pre-exec file copies (default 64 MB, at most a quarter of `maxStoreBytes`). */
  maxExecCacheBytes?: number;
  now?: () => number;
  /** Where `checkpoint.saved` and restore notices go (Session.publish). */
  publish?: (e: AgentEvent) => void;
  /**
   * Scrubs secrets (API keys) from the serialized history copies before they are written; a file snapshot whose
   * text it would change is kept in memory only (blob-store.ts).
   */
  redact?: (jsonText: string) => string;
}

export function checkpointDir(home: string, sessionId: string): string {
  return join(home, "snapshots", assertSafeId(sessionId, "session id"));
}

/** `CHATCLI_CHECKPOINT_MAX_FILE_MB` and `CHATCLI_CHECKPOINT_STORE_MB` (fractions allowed). */
export function checkpointLimitsFromEnv(env: Record<string, string | undefined>): { maxFileBytes: number; maxStoreBytes: number } {
  const mb = (v: string | undefined, d: number) => {
    const n = Number(v);
    return v && Number.isFinite(n) && n > 0 ? Math.floor(n * 1024 * 1024) : d;
  };
  return { maxFileBytes: mb(env.CHATCLI_CHECKPOINT_MAX_FILE_MB, DEFAULT_MAX_FILE_BYTES), maxStoreBytes: mb(env.CHATCLI_CHECKPOINT_STORE_MB, DEFAULT_MAX_STORE_BYTES) };
}

export class CheckpointStore {
  private readonly index: CheckpointIndex;
  private readonly histories = new Map<string, Message[]>();
  /** Files written by write/edit whose after-state is not read yet (done before the next checkpoint or plan). */
  private readonly pending = new Set<string>();
  private readonly blobs: BlobStore;
  private readonly now: () => number;
  private readonly maxCheckpoints: number;
  private readonly maxFileBytes: number;
  private readonly maxStoreBytes: number;
  private readonly maxExecCacheBytes: number;
  /** The live index and limits the capture functions work on. */
  private readonly capture: CaptureContext;

  constructor(
    private readonly o: CheckpointStoreOptions,
    index?: CheckpointIndex,
  ) {
    this.index = index ?? { version: 1, sessionId: o.sessionId, projectRoot: o.projectRoot, seq: 0, checkpoints: [], known: {}, blobs: {}, historyBytes: {} };
    const redact = o.redact;
    this.blobs = new BlobStore(join(o.dir, "blobs"), redact ? (bytes) => holdsSecret(bytes, redact) : undefined);
    this.now = o.now ?? Date.now;
    this.maxCheckpoints = o.maxCheckpoints ?? MAX_CHECKPOINTS;
    this.maxFileBytes = o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxStoreBytes = o.maxStoreBytes ?? DEFAULT_MAX_STORE_BYTES;
    this.maxExecCacheBytes = Math.min(o.maxExecCacheBytes ?? DEFAULT_MAX_EXEC_CACHE_BYTES, Math.floor(this.maxStoreBytes / 4));
    this.capture = { index: this.index, blobs: this.blobs, projectRoot: o.projectRoot, maxFileBytes: this.maxFileBytes, maxExecCacheBytes: this.maxExecCacheBytes };
  }

  /** Reloads a session's store from `o.dir/index.json`; an empty store when there is none (or it is unreadable). */
  static load(o: CheckpointStoreOptions): CheckpointStore {
    try {
      const raw: unknown = JSON.parse(readFileSync(join(o.dir, "index.json"), "utf8"));
      // The pre-exec copies are saved apart (exec-cache.json) but validated with the index (index-check.ts).
      const cache = readExecCache(o.dir);
      const store = CheckpointStore.fromJSON(cache && raw && typeof raw === "object" ? { ...raw, execCache: cache } : raw, o);
      // index.json is the authority on blobs: an entry whose copy was collected since is dropped (copied again).
      const kept = store.index.execCache ?? {};
      for (const [p, e] of Object.entries(kept)) if (!e.hash || !(e.hash in store.index.blobs)) delete kept[p];
      return store;
    } catch {
      return new CheckpointStore(o);
    }
  }

  /** Parses and validates (index-check.ts): tampered entries are dropped with a warning naming the file. */
  static fromJSON(raw: unknown, o: CheckpointStoreOptions): CheckpointStore {
    const { index, problems } = checkIndex(checkpointIndexSchema.parse(raw), o.projectRoot);
    const store = new CheckpointStore(o, index);
    if (problems.length > 0) {
      const text = t("checkpoint.indexRefused", { file: join(o.dir, "index.json"), problems: problems.join("; ") });
      setTimeout(() => o.publish?.({ type: "notice", level: "warn", text }), 0);
      store.loadWarnings.push(text);
    }
    return store;
  }

  /** What validation refused when the index was loaded (also published as a warn notice). */
  readonly loadWarnings: string[] = [];

  toJSON(): CheckpointIndex {
    return this.index;
  }

  get count(): number {
    return this.index.checkpoints.length;
  }

  /** Bytes held by blobs and history copies. */
  get storeBytes(): number {
    return storeBytesOf(this.index);
  }

  /** Session's `onCheckpoint`: before every model call. Returns the new checkpoint, or undefined when nothing changed. */
  save(history: readonly Message[], opts: { label?: string; keepPrompt?: boolean } = {}): CheckpointSummary | undefined {
    this.finalizePending();
    const cps = this.index.checkpoints;
    const last = history[history.length - 1];
    const lastKey = `${history.length}:${last ? sha256(new TextEncoder().encode(JSON.stringify(last))) : ""}`;
    const prev = cps[cps.length - 1];
    if (!opts.label && prev && prev.lastKey === lastKey && Object.keys(prev.before).length === 0) return undefined;
    const userIdx = lastUserIndex(history);
    const turnStart = !opts.keepPrompt && userIdx >= 0 && userIdx === history.length - 1;
    this.index.seq += 1;
    const rec: CheckpointRecord = {
      id: `cp_${this.index.seq}`,
      time: this.now(),
      label: opts.label ?? checkpointLabel(history),
      messageCount: turnStart ? history.length - 1 : history.length,
      historyLength: history.length,
      prompt: turnStart ? (lastUserMessage(history)?.content ?? "") : "",
      lastKey,
      conversationOnly: false,
      before: {},
    };
    if (turnStart) rec.promptIndex = userIdx;
    const copy = structuredClone(history) as Message[];
    this.histories.set(rec.id, copy);
    cps.push(rec);
    this.writeHistory(rec.id, copy);
    while (cps.length > this.maxCheckpoints) this.dropOldest();
    this.pruneToCap();
    this.persist();
    this.o.publish?.({ type: "checkpoint.saved", checkpointId: rec.id, label: rec.label, messageCount: rec.messageCount });
    return this.summary(cps.length - 1);
  }

  /** Newest first, for the rewind menu. */
  list(): CheckpointSummary[] {
    return this.index.checkpoints.map((_, i) => this.summary(i)).reverse();
  }

  /** tool-host `beforeFileChange`: keeps the file's current content once for the latest checkpoint. */
  beforeFileChange(absPath: string): void {
    this.record(absPath, () => captureCurrent(this.capture, absPath));
    this.pending.add(absPath);
  }

  /**
   * tool-host `aroundExec`: a stat scan before, a compare after; changed files get their prior state recorded.
   * Both halves are asynchronous (the scans, git, the copies) and awaited by the tool host: `before` resolves
   * before the command starts, `after` before its result is returned.
   */
  readonly aroundExec = {
    before: async (): Promise<unknown> => {
      this.finalizePending();
      const [scan, git] = await Promise.all([this.scan(), isGitRepo(this.o.projectRoot) ? gitView(this.o.projectRoot) : undefined]);
      const token: ExecToken = { scan, git };
      if (await cacheBeforeExec(this.capture, token.scan)) {
        this.collectBlobs();
        await this.persistAsync();
        await persistExecCache(this.o.dir, this.index);
      }
      return token;
    },
    after: async (token: unknown): Promise<void> => {
      const t = token as ExecToken | undefined;
      if (!t?.scan) return;
      const after = await this.scan();
      const changed = new Set<string>();
      let n = 0;
      for (const [p, st] of t.scan) {
        if (!sameStat(st, after.get(p))) changed.add(p);
        if (++n % YIELD_EVERY === 0) await yieldToLoop();
      }
      for (const p of after.keys()) if (!t.scan.has(p)) changed.add(p);
      const cp = this.index.checkpoints[this.index.checkpoints.length - 1];
      for (const p of changed) {
        if (cp && !cp.before[p]) this.recordState(cp, p, await priorOfExecChange(this.capture, p, t));
        await refreshKnownAsync(this.capture, p);
      }
      if (changed.size) await this.persistAsync();
    },
  };

  /** What restoring `checkpointId`'s code would do, for the confirmation step. */
  plan(checkpointId: string): RestorePlan | string {
    this.finalizePending();
    const idx = this.index.checkpoints.findIndex((c) => c.id === checkpointId);
    if (idx < 0) return `No checkpoint ${checkpointId}.`;
    return planFor(this.index, idx, (p) => currentHash(this.index, p));
  }

  /** Session's `rewind` hook. */
  async rewind(op: RewindOp, history: readonly Message[]): Promise<{ history?: Message[]; prompt: string } | string> {
    const idx = this.index.checkpoints.findIndex((c) => c.id === op.checkpointId);
    if (idx < 0) return `No checkpoint ${op.checkpointId}.`;
    const cp = this.index.checkpoints[idx]!;
    const target = op.mode === "code" ? undefined : this.historyOf(cp.id);
    if (op.mode !== "code" && !target) return `The conversation of checkpoint ${cp.id} could not be read.`;
    if (op.mode !== "conversation" && cp.conversationOnly) return "This checkpoint is conversation-only (its file snapshots could not be saved); choose conversation only.";
    const plan = op.mode === "conversation" ? undefined : this.plan(cp.id);
    if (typeof plan === "string") return plan;
    // The state before the rewind becomes a checkpoint: the restore's own writes below are recorded into it.
    const undoLabel = cutLabel(`(before rewind) ${lastUserMessage(history)?.content ?? "(start)"}`);
    this.save(history, { label: undoLabel, keepPrompt: true });
    if (plan) this.publishNotice(restoreFiles({ index: this.index, projectRoot: this.o.projectRoot, blobs: this.blobs, beforeFileChange: (p) => this.beforeFileChange(p), finalizePending: () => this.finalizePending() }, plan, op));
    this.persist();
    if (!target) return { prompt: "" };
    const restored = cp.promptIndex !== undefined ? target.slice(0, cp.promptIndex) : target;
    return { history: structuredClone(restored), prompt: cp.prompt };
  }

  /**
   * Every file changed since the oldest checkpoint kept (by tools, `exec` or `!`), with its content then: bytes,
   * null (it did not exist) or why no copy was kept. For /diff (agent/checkpoints/session-diff.ts).
   */
  sessionChanges(): Array<{ path: string; before: Uint8Array | null | { unrestorable: string } }> {
    this.finalizePending();
    const first = this.index.checkpoints[0];
    if (!first) return [];
    const out: Array<{ path: string; before: Uint8Array | null | { unrestorable: string } }> = [];
    for (const [path, s] of planTargets(this.index, first.id)) {
      if (s.kind === "absent") out.push({ path, before: null });
      else if (s.kind === "unrestorable") out.push({ path, before: { unrestorable: s.reason } });
      else out.push({ path, before: this.blobs.get(s.hash) ?? { unrestorable: "snapshot missing" } });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /** Ids of the checkpoints taken at the start of a turn (before its first model call), newest first: /undo's targets. */
  turnStarts(): string[] {
    return this.index.checkpoints.filter((c) => c.promptIndex !== undefined).map((c) => c.id).reverse();
  }

  /** Checkpoint by menu number (1 = newest), for `--rewind <n>`. */
  byNumber(n: number): CheckpointSummary | undefined {
    return this.list()[n - 1];
  }

  // ---- internals ----

  private summary(i: number): CheckpointSummary {
    const cps = this.index.checkpoints;
    const c = cps[i]!;
    const files = new Set<string>();
    for (let k = i; k < cps.length; k++) for (const p of Object.keys(cps[k]!.before)) files.add(p);
    return { id: c.id, time: c.time, label: c.label, messageCount: c.messageCount, files: files.size, conversationOnly: c.conversationOnly };
  }

  private record(absPath: string, prior: () => PriorState): void {
    const cp = this.index.checkpoints[this.index.checkpoints.length - 1];
    if (!cp || cp.before[absPath]) return;
    this.recordState(cp, absPath, prior());
    this.persist();
  }

  /** Without persisting: the exec path records every changed file, then persists once. */
  private recordState(cp: CheckpointIndex["checkpoints"][number], absPath: string, state: PriorState): void {
    cp.before[absPath] = state;
    if (state.kind === "unrestorable" && state.reason.startsWith("snapshot store")) cp.conversationOnly = true;
  }

  private finalizePending(): void {
    if (!this.pending.size) return;
    const cp = this.index.checkpoints[this.index.checkpoints.length - 1];
    for (const p of this.pending) {
      refreshKnown(this.capture, p);
      // A write that changed nothing (e.g. a failed edit) is not a change after the checkpoint.
      const prior = cp?.before[p];
      const now = this.index.known[p];
      if (cp && prior && now && ((prior.kind === "content" && prior.hash === now.hash) || (prior.kind === "absent" && now.hash === null))) delete cp.before[p];
    }
    this.pending.clear();
    this.persist();
  }

  /** Deferred one tick: the session replaces the history (which redraws the transcript) right after rewind returns. */
  private publishNotice(text: string): void {
    setTimeout(() => this.o.publish?.({ type: "notice", level: "info", text }), 0);
  }

  private historyOf(id: string): Message[] | undefined {
    const mem = this.histories.get(id);
    if (mem) return mem;
    const parsed = readHistoryFile(this.o.dir, id);
    if (parsed) this.histories.set(id, parsed);
    return parsed;
  }

  private writeHistory(id: string, history: Message[]): void {
    writeHistoryFile(this.o.dir, this.index, id, history, this.o.redact);
  }

  private dropOldest(): void {
    const old = this.index.checkpoints.shift();
    if (!old) return;
    this.histories.delete(old.id);
    delete this.index.historyBytes[old.id];
    removeHistoryFile(this.o.dir, old.id);
    this.collectBlobs();
  }

  private pruneToCap(): void {
    pruneToCap(this.index, this.blobs, this.maxStoreBytes, () => this.dropOldest());
  }

  private collectBlobs(): void {
    collectBlobs(this.index, this.blobs);
  }

  private async scan(): Promise<Map<string, FileStat>> {
    const dir = this.o.dir;
    return (await scanProject(this.o.projectRoot, { maxFiles: this.o.maxScanFiles ?? 20_000, skip: (abs) => abs === dir || abs.startsWith(`${dir}/`) })).files;
  }

  private persist(): void {
    persistIndex(this.o.dir, this.index);
  }

  private async persistAsync(): Promise<void> {
    await persistIndexAsync(this.o.dir, this.index);
  }
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether `redact` would change the text of `bytes` (decoded leniently: a binary file can still hold a key). */
function holdsSecret(bytes: Uint8Array, redact: (text: string) => string): boolean {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return redact(text) !== text;
}
