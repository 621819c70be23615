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
import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { AgentEvent, Op } from "../protocol/events.ts";
import { messageSchema, type Message } from "../protocol/message.ts";
import { looksBinary } from "../tool/builtin/walk.ts";
import { BlobStore, sha256 } from "./checkpoints/blob-store.ts";
import { gitView, headContent, isGitRepo, relPosix, type GitView } from "./checkpoints/git-head.ts";
import { checkpointLabel, cutLabel, lastUserIndex, lastUserMessage } from "./checkpoints/label.ts";
import { sameStat, scanProject, statFile, type FileStat } from "./checkpoints/project-scan.ts";
import {
  checkpointIndexSchema,
  type CheckpointIndex,
  type CheckpointRecord,
  type CheckpointSummary,
  type KnownFile,
  type PriorState,
  type RestorePlan,
} from "./checkpoints/schema.ts";
import { planFor, planTargets } from "./checkpoints/plan.ts";
import { t } from "../i18n/i18n.ts";

export type { CheckpointSummary, RestorePlan } from "./checkpoints/schema.ts";
export { checkpointLabel, cutLabel } from "./checkpoints/label.ts";

export const MAX_CHECKPOINTS = 20;
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_STORE_BYTES = 256 * 1024 * 1024;
/** Bytes of pre-exec copies kept at most (never more than a quarter of the store cap). */
export const DEFAULT_MAX_EXEC_CACHE_BYTES = 64 * 1024 * 1024;

export type RewindOp = Extract<Op, { type: "rewind" }>;

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
  /** Scrubs secrets (API keys) from the serialized history copies before they are written. */
  redact?: (jsonText: string) => string;
}

export function checkpointDir(home: string, sessionId: string): string {
  return join(home, "snapshots", sessionId);
}

/** `CHATCLI_CHECKPOINT_MAX_FILE_MB` and `CHATCLI_CHECKPOINT_STORE_MB` (fractions allowed). */
export function checkpointLimitsFromEnv(env: Record<string, string | undefined>): { maxFileBytes: number; maxStoreBytes: number } {
  const mb = (v: string | undefined, d: number) => {
    const n = Number(v);
    return v && Number.isFinite(n) && n > 0 ? Math.floor(n * 1024 * 1024) : d;
  };
  return { maxFileBytes: mb(env.CHATCLI_CHECKPOINT_MAX_FILE_MB, DEFAULT_MAX_FILE_BYTES), maxStoreBytes: mb(env.CHATCLI_CHECKPOINT_STORE_MB, DEFAULT_MAX_STORE_BYTES) };
}

interface ExecToken {
  scan: Map<string, FileStat>;
  git: GitView | undefined;
}

export class CheckpointStore {
  private index: CheckpointIndex;
  private readonly histories = new Map<string, Message[]>();
  /** Files written by write/edit whose after-state is not read yet (done before the next checkpoint or plan). */
  private readonly pending = new Set<string>();
  private readonly blobs: BlobStore;
  private readonly now: () => number;
  private readonly maxCheckpoints: number;
  private readonly maxFileBytes: number;
  private readonly maxStoreBytes: number;
  private readonly maxExecCacheBytes: number;

  constructor(
    private readonly o: CheckpointStoreOptions,
    index?: CheckpointIndex,
  ) {
    this.index = index ?? { version: 1, sessionId: o.sessionId, projectRoot: o.projectRoot, seq: 0, checkpoints: [], known: {}, blobs: {}, historyBytes: {} };
    this.blobs = new BlobStore(join(o.dir, "blobs"));
    this.now = o.now ?? Date.now;
    this.maxCheckpoints = o.maxCheckpoints ?? MAX_CHECKPOINTS;
    this.maxFileBytes = o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxStoreBytes = o.maxStoreBytes ?? DEFAULT_MAX_STORE_BYTES;
    this.maxExecCacheBytes = Math.min(o.maxExecCacheBytes ?? DEFAULT_MAX_EXEC_CACHE_BYTES, Math.floor(this.maxStoreBytes / 4));
  }

  /** Reloads a session's store from `o.dir/index.json`; an empty store when there is none (or it is unreadable). */
  static load(o: CheckpointStoreOptions): CheckpointStore {
    try {
      const raw: unknown = JSON.parse(readFileSync(join(o.dir, "index.json"), "utf8"));
      return CheckpointStore.fromJSON(raw, o);
    } catch {
      return new CheckpointStore(o);
    }
  }

  static fromJSON(raw: unknown, o: CheckpointStoreOptions): CheckpointStore {
    return new CheckpointStore(o, checkpointIndexSchema.parse(raw));
  }

  toJSON(): CheckpointIndex {
    return this.index;
  }

  get count(): number {
    return this.index.checkpoints.length;
  }

  /** Bytes held by blobs and history copies. */
  get storeBytes(): number {
    return Object.values(this.index.blobs).reduce((a, b) => a + b, 0) + Object.values(this.index.historyBytes).reduce((a, b) => a + b, 0);
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
    this.record(absPath, () => this.captureCurrent(absPath));
    this.pending.add(absPath);
  }

  /** tool-host `aroundExec`: a stat scan before, a compare after; changed files get their prior state recorded. */
  readonly aroundExec = {
    before: (): unknown => {
      this.finalizePending();
      const token: ExecToken = { scan: this.scan(), git: isGitRepo(this.o.projectRoot) ? gitView(this.o.projectRoot) : undefined };
      this.cacheBeforeExec(token.scan);
      return token;
    },
    after: (token: unknown): void => {
      const t = token as ExecToken | undefined;
      if (!t?.scan) return;
      const after = this.scan();
      const changed = new Set<string>();
      for (const [p, st] of t.scan) if (!sameStat(st, after.get(p))) changed.add(p);
      for (const p of after.keys()) if (!t.scan.has(p)) changed.add(p);
      for (const p of changed) {
        this.record(p, () => this.priorOfExecChange(p, t));
        this.refreshKnown(p);
      }
      if (changed.size) this.persist();
    },
  };

  /** What restoring `checkpointId`'s code would do, for the confirmation step. */
  plan(checkpointId: string): RestorePlan | string {
    this.finalizePending();
    const idx = this.index.checkpoints.findIndex((c) => c.id === checkpointId);
    if (idx < 0) return `No checkpoint ${checkpointId}.`;
    return planFor(this.index, idx, (p) => this.currentHash(p));
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
    if (plan) this.publishNotice(this.restoreFiles(plan, op));
    this.persist();
    if (!target) return { prompt: "" };
    const restored = cp.promptIndex !== undefined ? target.slice(0, cp.promptIndex) : target;
    return { history: structuredClone(restored), prompt: cp.prompt };
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
    const state = prior();
    cp.before[absPath] = state;
    if (state.kind === "unrestorable" && state.reason.startsWith("snapshot store")) cp.conversationOnly = true;
    this.persist();
  }

  private captureCurrent(absPath: string): PriorState {
    const st = statFile(absPath);
    if (!st) return { kind: "absent" };
    if (st.size > this.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(this.maxFileBytes)}` };
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(absPath);
    } catch (err) {
      return { kind: "unrestorable", reason: `unreadable: ${(err as Error).message}` };
    }
    return this.storeBytes_(bytes);
  }

  private storeBytes_(bytes: Uint8Array): PriorState {
    if (bytes.length > this.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(this.maxFileBytes)}` };
    if (bytes.length > 64 * 1024 && looksBinary(bytes)) return { kind: "unrestorable", reason: "large binary file" };
    const r = this.blobs.put(bytes);
    if ("error" in r) return { kind: "unrestorable", reason: `snapshot store not writable: ${r.error}` };
    this.index.blobs[r.hash] = bytes.length;
    return { kind: "content", hash: r.hash, size: bytes.length };
  }

  private priorOfExecChange(p: string, t: ExecToken): PriorState {
    const before = t.scan.get(p);
    if (!before) return { kind: "absent" };
    if (before.size > this.maxFileBytes) return { kind: "unrestorable", reason: `larger than ${fmtBytes(this.maxFileBytes)}` };
    const k = this.index.known[p];
    if (k?.hash && k.stored && sameStat(before, k) && this.blobs.has(k.hash)) return { kind: "content", hash: k.hash, size: k.size };
    const c = this.index.execCache?.[p];
    if (c?.hash && c.stored && sameStat(before, c) && this.blobs.has(c.hash)) return { kind: "content", hash: c.hash, size: c.size };
    if (t.git && !t.git.dirty.has(relPosix(this.o.projectRoot, p))) {
      const head = headContent(this.o.projectRoot, p);
      if (head && head.length === before.size) return this.storeBytes_(head);
    }
    return { kind: "unrestorable", reason: "changed by a command; its earlier content was never seen by chatcli" };
  }

  /**
   * Before a command: copies every scanned file chatcli holds no current copy of into the blob store (once, by
   * content), so whatever the command changes can be put back. Only files whose stat changed are read again.
   */
  private cacheBeforeExec(scan: Map<string, FileStat>): void {
    const cache = (this.index.execCache ??= {});
    let changed = false;
    for (const p of Object.keys(cache)) {
      if (!scan.has(p)) {
        delete cache[p];
        changed = true;
      }
    }
    let used = 0;
    for (const c of Object.values(cache)) if (c.stored) used += c.size;
    for (const [p, st] of scan) {
      if (st.size > this.maxFileBytes) continue;
      const k = this.index.known[p];
      if (k?.stored && k.hash && sameStat(st, k)) continue;
      const c = cache[p];
      if (c?.stored && c.hash && sameStat(st, c)) continue;
      if (c?.stored) used -= c.size;
      delete cache[p];
      changed = true;
      if (used + st.size > this.maxExecCacheBytes) continue;
      let bytes: Uint8Array;
      try {
        bytes = readFileSync(p);
      } catch {
        continue;
      }
      if (bytes.length !== st.size || (bytes.length > 64 * 1024 && looksBinary(bytes))) continue;
      const r = this.blobs.put(bytes);
      if ("error" in r) break; // unwritable store: those files stay "not restorable"
      this.index.blobs[r.hash] = bytes.length;
      cache[p] = { hash: r.hash, size: st.size, mtimeNs: st.mtimeNs, stored: true };
      used += st.size;
    }
    if (changed) {
      this.collectBlobs();
      this.persist();
    }
  }

  /** Reads a file's current state into `known` (and keeps a copy so a later exec change stays restorable). */
  private refreshKnown(p: string): void {
    const st = statFile(p);
    if (!st) {
      this.index.known[p] = { hash: null, size: 0, mtimeNs: "0", stored: false };
      return;
    }
    let hash: string | null = null;
    let stored = false;
    try {
      const bytes = readFileSync(p);
      hash = sha256(bytes);
      if (bytes.length <= this.maxFileBytes && !(bytes.length > 64 * 1024 && looksBinary(bytes))) {
        const r = this.blobs.put(bytes, hash);
        if (!("error" in r)) {
          stored = true;
          this.index.blobs[hash] = bytes.length;
        }
      }
    } catch {
      hash = null;
    }
    this.index.known[p] = { hash, size: st.size, mtimeNs: st.mtimeNs, stored };
  }

  private finalizePending(): void {
    if (!this.pending.size) return;
    const cp = this.index.checkpoints[this.index.checkpoints.length - 1];
    for (const p of this.pending) {
      this.refreshKnown(p);
      // A write that changed nothing (e.g. a failed edit) is not a change after the checkpoint.
      const prior = cp?.before[p];
      const now = this.index.known[p];
      if (cp && prior && now && ((prior.kind === "content" && prior.hash === now.hash) || (prior.kind === "absent" && now.hash === null))) delete cp.before[p];
    }
    this.pending.clear();
    this.persist();
  }

  private currentHash(p: string): { hash: string | null; known: KnownFile | undefined } {
    const st = statFile(p);
    let hash: string | null = null;
    if (st) {
      try {
        hash = sha256(readFileSync(p));
      } catch {
        hash = null;
      }
    }
    return { hash, known: this.index.known[p] };
  }

  private restoreFiles(plan: RestorePlan, op: RewindOp): string {
    const conflictPaths = new Set(plan.conflicts.map((c) => c.path));
    const writes = [...plan.change, ...(op.force ? plan.conflicts.filter((c) => c.action === "change").map((c) => c.path) : [])];
    const deletes = op.deleteCreated ? [...plan.created, ...(op.force ? plan.conflicts.filter((c) => c.action === "delete").map((c) => c.path) : [])] : [];
    const targets = planTargets(this.index, plan.checkpointId);
    const failed: string[] = [];
    let written = 0;
    let deleted = 0;
    for (const p of writes) {
      const t = targets.get(p);
      const bytes = t?.kind === "content" ? this.blobs.get(t.hash) : undefined;
      if (!bytes) {
        failed.push(p);
        continue;
      }
      this.beforeFileChange(p);
      try {
        mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
        writeFileSync(p, bytes, { mode: 0o600 });
        written++;
      } catch {
        failed.push(p);
      }
    }
    for (const p of deletes) {
      this.beforeFileChange(p);
      try {
        unlinkSync(p);
        deleted++;
      } catch {
        failed.push(p);
      }
    }
    this.finalizePending();
    const parts = [`${written === 1 ? t("restore.filesOne") : t("restore.filesMany", { count: written })}${deleted ? t("restore.deleted", { count: deleted }) : ""}.`];
    const skippedConflicts = op.force ? [] : [...conflictPaths];
    if (skippedConflicts.length) parts.push(t("restore.skipped", { files: skippedConflicts.join(", ") }));
    if (!op.deleteCreated && plan.created.length) parts.push(t("restore.kept", { files: plan.created.join(", ") }));
    if (plan.notRestorable.length) parts.push(t("restore.notRestorable", { files: plan.notRestorable.map((n) => `${n.path} (${n.reason})`).join(", ") }));
    if (failed.length) parts.push(t("restore.failed", { files: failed.join(", ") }));
    return parts.join(" ");
  }

  /** Deferred one tick: the session replaces the history (which redraws the transcript) right after rewind returns. */
  private publishNotice(text: string): void {
    setTimeout(() => this.o.publish?.({ type: "notice", level: "info", text }), 0);
  }

  private historyOf(id: string): Message[] | undefined {
    const mem = this.histories.get(id);
    if (mem) return mem;
    try {
      const parsed = z.array(messageSchema).parse(JSON.parse(readFileSync(join(this.o.dir, "history", `${id}.json`), "utf8")));
      this.histories.set(id, parsed);
      return parsed;
    } catch {
      return undefined;
    }
  }

  private writeHistory(id: string, history: Message[]): void {
    try {
      const raw = JSON.stringify(history);
      const text = this.o.redact ? this.o.redact(raw) : raw;
      mkdirSync(join(this.o.dir, "history"), { recursive: true, mode: 0o700 });
      writeFileSync(join(this.o.dir, "history", `${id}.json`), text, { mode: 0o600 });
      this.index.historyBytes[id] = text.length;
    } catch {
      // kept in memory only: this process can still rewind; --resume cannot
    }
  }

  private dropOldest(): void {
    const old = this.index.checkpoints.shift();
    if (!old) return;
    this.histories.delete(old.id);
    delete this.index.historyBytes[old.id];
    rmSync(join(this.o.dir, "history", `${old.id}.json`), { force: true });
    this.collectBlobs();
  }

  private pruneToCap(): void {
    if (this.storeBytes > this.maxStoreBytes && this.index.execCache && Object.keys(this.index.execCache).length) {
      // The pre-exec copies are regenerable: they go before any checkpoint does.
      this.index.execCache = {};
      this.collectBlobs();
    }
    while (this.storeBytes > this.maxStoreBytes && this.index.checkpoints.length > 1) this.dropOldest();
    if (this.storeBytes <= this.maxStoreBytes) return;
    // Still over with one checkpoint: the exec cache goes first.
    for (const k of Object.values(this.index.known)) k.stored = false;
    this.collectBlobs();
  }

  private collectBlobs(): void {
    const live = new Set<string>();
    for (const c of this.index.checkpoints) for (const s of Object.values(c.before)) if (s.kind === "content") live.add(s.hash);
    for (const k of Object.values(this.index.known)) if (k.stored && k.hash) live.add(k.hash);
    for (const k of Object.values(this.index.execCache ?? {})) if (k.stored && k.hash) live.add(k.hash);
    for (const h of Object.keys(this.index.blobs)) {
      if (live.has(h)) continue;
      this.blobs.remove(h);
      delete this.index.blobs[h];
    }
  }

  private scan(): Map<string, FileStat> {
    const dir = this.o.dir;
    return scanProject(this.o.projectRoot, { maxFiles: this.o.maxScanFiles ?? 20_000, skip: (abs) => abs === dir || abs.startsWith(`${dir}/`) }).files;
  }

  private persist(): void {
    try {
      mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
      const file = join(this.o.dir, "index.json");
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.index), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // best effort: the in-memory store still works for this process
    }
  }
}

function fmtBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MB`;
  return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}
