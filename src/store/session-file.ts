/**
 * One session file: append-only JSONL, a record per line. Each record is written with one write of the whole
 * line as it happens (a `kill -9` loses at most the line being written: the kernel has the rest); `sync()`
 * fsyncs what was written since the last sync, and the recorder calls it once per turn and at exit, so a power
 * loss costs at most the unfinished turn. Loading never fails on content: a torn last line or a corrupted line
 * in the middle is skipped with a warning. Files are created 0600 in a 0700 directory.
 */
import * as nodeFs from "node:fs";
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { t } from "../i18n/i18n.ts";
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import { SESSION_RECORD_VERSION, sessionRecordSchema, viewEventOf, type HistoryPart, type MetaRecord, type RecordInput, type SessionRecord } from "./session-records.ts";
import type { Redactor } from "./redact.ts";
import { isSafeId } from "./store-ids.ts";

export const SESSION_EXT = ".jsonl";

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** The file calls a writer makes; tests pass a wrapper to count fsyncs or simulate failing disks. */
export interface SessionFs {
  openSync(path: string, flags: string, mode?: number): number;
  writeSync(fd: number, buf: Uint8Array, offset: number, length: number): number;
  readSync(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number;
  fsyncSync(fd: number): void;
  fstatSync(fd: number): { size: number };
  ftruncateSync(fd: number, len: number): void;
  closeSync(fd: number): void;
}

export const realSessionFs: SessionFs = {
  openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
  writeSync: (fd, buf, offset, length) => nodeFs.writeSync(fd, buf, offset, length),
  readSync: (fd, buf, offset, length, position) => nodeFs.readSync(fd, buf, offset, length, position),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  fstatSync: (fd) => nodeFs.fstatSync(fd),
  ftruncateSync: (fd, len) => nodeFs.ftruncateSync(fd, len),
  closeSync: (fd) => nodeFs.closeSync(fd),
};

/** Offset just past the last "\n" (0 when there is none), reading back from the end in blocks. */
function endOfLastLine(fs: SessionFs, fd: number, size: number): number {
  const block = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - block.length);
    const n = fs.readSync(fd, block, 0, end - start, start);
    const i = block.subarray(0, n).lastIndexOf(0x0a);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

export class SessionFileWriter {
  private fd: number | undefined;
  /** Bytes written since the last fsync. */
  private dirty = false;

  constructor(
    readonly path: string,
    private readonly redact: Redactor,
    private readonly now: () => number = Date.now,
    private readonly fs: SessionFs = realSessionFs,
  ) {}

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /**
   * Opens (creating if needed) for appending. A torn last line left by a crash (never a whole record: the loader
   * skips it) is cut off, so it does not become a corrupted line in the middle that warns on every later load.
   */
  open(): void {
    if (this.fd !== undefined) return;
    ensurePrivateDir(dirname(this.path));
    const fs = this.fs;
    const fd = fs.openSync(this.path, "a+", 0o600);
    try {
      chmodSync(this.path, 0o600);
      const size = fs.fstatSync(fd).size;
      const keep = size > 0 ? endOfLastLine(fs, fd, size) : 0;
      if (keep < size) {
        fs.ftruncateSync(fd, keep);
        this.dirty = true;
      }
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    this.fd = fd;
  }

  /** Writes one record (one write call); durable at the next `sync()` or `close()`. */
  append(rec: RecordInput): void {
    const line = this.redact(JSON.stringify({ v: SESSION_RECORD_VERSION, ts: this.now(), ...rec }));
    this.writeLine(line);
  }

  /** Copies an already serialized (and redacted) record line, e.g. when forking a session. */
  appendRawLine(line: string): void {
    this.writeLine(line.replace(/\n+$/, ""));
  }

  /** fsyncs what was written since the last sync (nothing when nothing was). */
  sync(): void {
    if (this.fd === undefined || !this.dirty) return;
    this.fs.fsyncSync(this.fd);
    this.dirty = false;
  }

  /** Syncs, then closes. The descriptor is released even when the sync fails (the error is rethrown). */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.sync();
    } finally {
      try {
        this.fs.closeSync(this.fd);
      } finally {
        this.fd = undefined;
        this.dirty = false;
      }
    }
  }

  private writeLine(line: string): void {
    if (this.fd === undefined) this.open();
    const buf = Buffer.from(`${line}\n`);
    let off = 0;
    while (off < buf.length) off += this.fs.writeSync(this.fd!, buf, off, buf.length - off);
    this.dirty = true;
  }
}

/** A child's transcript as the session file keeps it (a `subagent` record). */
export type SubagentTranscript = Omit<Extract<SessionRecord, { type: "subagent" }>, "v" | "ts" | "type">;

export interface LoadedSession {
  file: string;
  meta: MetaRecord;
  /** The history rebuilt by replaying message, history and replace records. */
  history: Message[];
  /** The entry id of each history message (parallel to `history`), for a recorder that goes on appending. */
  entryIds: string[];
  /** The next free number for a new entry id (`e<n>`). */
  nextEntry: number;
  /** Events of note (compaction, checkpoints, tool-use summaries, model switches), in order. */
  events: SessionRecord[];
  /** Everything the TUI reducer needs to redraw the transcript, in order. */
  viewEvents: AgentEvent[];
  /** Finished children's own transcripts (issue 20), in the order they ended. */
  children: SubagentTranscript[];
  /** The model in use at the end (after switches). */
  lastModel: { provider: string; model: string };
  messageCount: number;
  warnings: string[];
}

/** Reads and replays a session file. Throws only when the file cannot be read at all. */
export function loadSession(file: string): LoadedSession {
  const text = readFileSync(file, "utf8");
  return parseSession(file, text);
}

/** Damaged lines named one by one in a load's warnings; the rest are counted in one more. */
export const MAX_LINE_WARNINGS = 3;

/** Entry ids the recorder writes: `e1`, `e2`, … */
export const entryId = (n: number): string => `e${n}`;
const ENTRY_ID_RE = /^e(\d+)$/;

export function parseSession(file: string, text: string): LoadedSession {
  const warnings: string[] = [];
  const lines = text.split("\n");
  const endsClean = text.endsWith("\n") || text === "";
  if (endsClean) lines.pop();
  let meta: MetaRecord | undefined;
  let history: Message[] = [];
  let ids: string[] = [];
  let afterRebuild: Message[] = [];
  let ordinal = 0;
  let nextEntry = 1;
  const idOf = (explicit: string | undefined): string => {
    ordinal++;
    const id = explicit ?? `#${ordinal}`;
    const n = ENTRY_ID_RE.exec(id);
    if (n) nextEntry = Math.max(nextEntry, Number(n[1]) + 1);
    return id;
  };
  const events: SessionRecord[] = [];
  const viewEvents: AgentEvent[] = [];
  const children: SubagentTranscript[] = [];
  let newer = 0;
  let unresolved = 0;
  // A damaged file can have a bad line per record: the first few are named, the rest counted in one warning
  // (each warning is a notice in the TUI; hundreds buried the resumed transcript).
  const badLines: number[] = [];
  const lineWarning = (text: string, i: number) => {
    if (badLines.push(i + 1) <= MAX_LINE_WARNINGS) warnings.push(`${basename(file)}: ${text}`);
  };
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    const isLast = i === lines.length - 1 && !endsClean;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      if (isLast) warnings.push(t("store.tornLine", { file: basename(file) }));
      else lineWarning(t("store.corruptLine", { line: i + 1 }), i);
      return;
    }
    const v = raw && typeof raw === "object" ? (raw as { v?: unknown }).v : undefined;
    if (typeof v === "number" && v > SESSION_RECORD_VERSION) {
      newer++;
      return;
    }
    const parsed = sessionRecordSchema.safeParse(raw);
    if (!parsed.success) {
      lineWarning(t("store.invalidRecord", { line: i + 1 }), i);
      return;
    }
    const r = parsed.data;
    switch (r.type) {
      case "meta":
        meta ??= r;
        return;
      case "message":
        history.push(r.message);
        ids.push(idOf(r.id));
        return;
      case "history": {
        const rebuilt = rebuildHistory(history, ids, r.parts, idOf);
        unresolved += rebuilt.unresolved;
        history = rebuilt.history;
        ids = rebuilt.ids;
        afterRebuild = history.slice();
        return;
      }
      case "replace":
        history = [...r.messages];
        ids = r.messages.map(() => idOf(undefined));
        afterRebuild = r.messages;
        return;
      case "view":
        viewEvents.push(viewEventFrom(r.event, afterRebuild));
        return;
      case "subagent": {
        const { v: _v, ts: _ts, type: _t, ...child } = r;
        children.push(child);
        return;
      }
      default:
        events.push(r);
        viewEvents.push(viewEventOf(r)!);
    }
  });
  if (badLines.length > MAX_LINE_WARNINGS) {
    const more = badLines.slice(MAX_LINE_WARNINGS);
    warnings.push(t("store.moreDamaged", { file: basename(file), count: more.length, lines: `${more.slice(0, 5).join(", ")}${more.length > 5 ? ", …" : ""}` }));
  }
  if (newer) warnings.push(t("store.newerRecords", { file: basename(file), count: newer }));
  if (unresolved) warnings.push(t("store.unresolvedRanges", { file: basename(file), count: unresolved }));
  const resolvedMeta = checkedMeta(file, meta ?? fallbackMeta(file, history), warnings);
  if (!meta) warnings.push(t("store.noMeta", { file: basename(file) }));
  let lastModel = { provider: resolvedMeta.provider, model: resolvedMeta.model };
  for (const e of events) if (e.type === "model_switch") lastModel = { provider: e.provider, model: e.model };
  return {
    file,
    meta: resolvedMeta,
    history,
    entryIds: ids,
    nextEntry,
    events,
    viewEvents,
    children,
    lastModel,
    messageCount: history.filter((m) => m.role !== "system").length,
    warnings,
  };
}

/**
 * A recorded view event as the reducer gets it: `history.replaced` with the history of the record before it.
 * (Coalesced deltas of older files, which held the text in `partial`, are read by session-records.ts.)
 */
function viewEventFrom(e: AgentEvent, afterRebuild: Message[]): AgentEvent {
  if (e.type === "history.replaced") return { type: "history.replaced", messages: afterRebuild };
  return e;
}

/** Applies a `history` record's parts to the current history (kept runs are looked up in the current order). */
function rebuildHistory(history: Message[], ids: string[], parts: HistoryPart[], idOf: (explicit: string) => string): { history: Message[]; ids: string[]; unresolved: number } {
  const at = new Map<string, number>();
  ids.forEach((id, i) => at.set(id, i));
  const out: Message[] = [];
  const outIds: string[] = [];
  let unresolved = 0;
  for (const p of parts) {
    if ("message" in p) {
      out.push(p.message);
      outIds.push(idOf(p.id));
      continue;
    }
    const from = at.get(p.keep[0]);
    const to = at.get(p.keep[1]);
    if (from === undefined || to === undefined || to < from) {
      unresolved++;
      continue;
    }
    for (let i = from; i <= to; i++) {
      out.push(history[i]!);
      outIds.push(ids[i]!);
    }
  }
  return { history: out, ids: outIds, unresolved };
}

/**
 * The id names the session's files (`sessions/<id>.jsonl`, `snapshots/<id>/`): one that is not a plain id (`../../x`)
 * is replaced by the file's own name, or the file is refused when that is not a plain id either.
 */
function checkedMeta(file: string, meta: MetaRecord, warnings: string[]): MetaRecord {
  if (isSafeId(meta.id) && (meta.forkedFrom === undefined || isSafeId(meta.forkedFrom))) return meta;
  const own = basename(file, SESSION_EXT);
  if (!isSafeId(own)) throw new Error(t("store.badIdRefused", { file, id: JSON.stringify(meta.id) }));
  warnings.push(t("store.badIdReplaced", { file: basename(file), id: JSON.stringify(meta.id), own }));
  const { forkedFrom: _dropped, ...rest } = meta;
  return { ...rest, id: own };
}

function fallbackMeta(file: string, history: Message[]): MetaRecord {
  const first = history.find((m) => m.role === "user");
  return {
    v: SESSION_RECORD_VERSION,
    ts: 0,
    type: "meta",
    id: basename(file, SESSION_EXT),
    title: first ? titleOf(first.content) : "",
    cwd: "",
    projectRoot: "",
    provider: "",
    model: "",
    createdAt: 0,
  };
}

/** A session title: the first user message, whitespace collapsed to one line, at most 80 characters. */
export function titleOf(text: string, max = 80): string {
  const one = text.replace(/\s+/g, " ").trim();
  const chars = [...one];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : one;
}
