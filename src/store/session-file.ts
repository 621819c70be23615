/**
 * One session file: append-only JSONL, a record per line. Each record is written with one write of the whole
 * line followed by fsync, so a crash or `kill -9` loses at most the line being written. Loading never fails on
 * content: a torn last line or a corrupted line in the middle is skipped with a warning.
 * Files are created 0600 in a 0700 directory.
 */
import { chmodSync, closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import { SESSION_RECORD_VERSION, sessionRecordSchema, viewEventOf, type MetaRecord, type RecordInput, type SessionRecord } from "./session-records.ts";
import type { Redactor } from "./redact.ts";

export const SESSION_EXT = ".jsonl";

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Offset just past the last "\n" (0 when there is none), reading back from the end in blocks. */
function endOfLastLine(fd: number, size: number): number {
  const block = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - block.length);
    const n = readSync(fd, block, 0, end - start, start);
    const i = block.subarray(0, n).lastIndexOf(0x0a);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

export class SessionFileWriter {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly redact: Redactor,
    private readonly now: () => number = Date.now,
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
    const fd = openSync(this.path, "a+", 0o600);
    try {
      chmodSync(this.path, 0o600);
      const size = fstatSync(fd).size;
      const keep = size > 0 ? endOfLastLine(fd, size) : 0;
      if (keep < size) {
        ftruncateSync(fd, keep);
        fsyncSync(fd);
      }
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.fd = fd;
  }

  append(rec: RecordInput): void {
    if (this.fd === undefined) this.open();
    const line = this.redact(JSON.stringify({ v: SESSION_RECORD_VERSION, ts: this.now(), ...rec }));
    writeAll(this.fd!, Buffer.from(`${line}\n`));
    fsyncSync(this.fd!);
  }

  /** Copies an already serialized (and redacted) record line, e.g. when forking a session. */
  appendRawLine(line: string): void {
    if (this.fd === undefined) this.open();
    writeAll(this.fd!, Buffer.from(`${line.replace(/\n+$/, "")}\n`));
    fsyncSync(this.fd!);
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } finally {
      this.fd = undefined;
    }
  }
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

export interface LoadedSession {
  file: string;
  meta: MetaRecord;
  /** The history rebuilt by replaying message and replace records. */
  history: Message[];
  /** Events of note (compaction, checkpoints, tool-use summaries, model switches), in order. */
  events: SessionRecord[];
  /** Everything the TUI reducer needs to redraw the transcript, in order. */
  viewEvents: AgentEvent[];
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

export function parseSession(file: string, text: string): LoadedSession {
  const warnings: string[] = [];
  const lines = text.split("\n");
  const endsClean = text.endsWith("\n") || text === "";
  if (endsClean) lines.pop();
  let meta: MetaRecord | undefined;
  let history: Message[] = [];
  let lastReplace: Message[] = [];
  const events: SessionRecord[] = [];
  const viewEvents: AgentEvent[] = [];
  let newer = 0;
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
      if (isLast) warnings.push(`${basename(file)}: skipped a torn last line (the process was interrupted while writing it)`);
      else lineWarning(`line ${i + 1} is corrupted and was skipped`, i);
      return;
    }
    const v = raw && typeof raw === "object" ? (raw as { v?: unknown }).v : undefined;
    if (typeof v === "number" && v > SESSION_RECORD_VERSION) {
      newer++;
      return;
    }
    const parsed = sessionRecordSchema.safeParse(raw);
    if (!parsed.success) {
      lineWarning(`line ${i + 1} is not a valid session record and was skipped`, i);
      return;
    }
    const r = parsed.data;
    switch (r.type) {
      case "meta":
        meta ??= r;
        return;
      case "message":
        history.push(r.message);
        return;
      case "replace":
        history = [...r.messages];
        lastReplace = r.messages;
        return;
      case "view":
        viewEvents.push(r.event.type === "history.replaced" ? { type: "history.replaced", messages: lastReplace } : r.event);
        return;
      default:
        events.push(r);
        viewEvents.push(viewEventOf(r)!);
    }
  });
  if (badLines.length > MAX_LINE_WARNINGS) {
    const more = badLines.slice(MAX_LINE_WARNINGS);
    warnings.push(`${basename(file)}: ${more.length} more damaged line(s) were skipped (lines ${more.slice(0, 5).join(", ")}${more.length > 5 ? ", …" : ""})`);
  }
  if (newer) warnings.push(`${basename(file)}: ${newer} record(s) written by a newer chatcli were skipped`);
  const resolvedMeta = meta ?? fallbackMeta(file, history);
  if (!meta) warnings.push(`${basename(file)}: no metadata record; using defaults`);
  let lastModel = { provider: resolvedMeta.provider, model: resolvedMeta.model };
  for (const e of events) if (e.type === "model_switch") lastModel = { provider: e.provider, model: e.model };
  return {
    file,
    meta: resolvedMeta,
    history,
    events,
    viewEvents,
    lastModel,
    messageCount: history.filter((m) => m.role !== "system").length,
    warnings,
  };
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
