/**
 * Autosave: writes a Session's history changes and events of note into its session file as they happen.
 * Wire it in two places: pass `recorder.onHistoryChange` as the Session's `onHistoryChange` option, and
 * `attachRecorder(session, recorder)` once the Session exists (events).
 *
 * The file is created lazily at the first history change, so sessions where nothing was said leave no file;
 * events seen before that (the first `turn.started`) are buffered and written after the metadata.
 * A write failure is reported once through `onError` and recording stops; the session itself goes on.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { Message } from "../protocol/message.ts";
import { assertNever } from "../protocol/assert-never.ts";
import type { SessionFileWriter } from "./session-file.ts";
import { titleOf } from "./session-file.ts";
import type { RecordInput } from "./session-records.ts";
import type { SessionStore } from "./session-store.ts";

/** Structurally the same as agent/session/session-options.ts's HistoryChange. */
export type RecordedHistoryChange = { type: "append"; messages: Message[] } | { type: "replace"; messages: Message[]; reason: string };

export interface RecorderMeta {
  cwd: string;
  projectRoot: string;
  provider: string;
  model: string;
}

export interface RecorderOptions {
  store: SessionStore;
  id: string;
  meta: RecorderMeta;
  /** The file already exists with its metadata (resume, load, fork): keep appending to it. */
  existing?: boolean;
  onError?: (message: string) => void;
}

const MAX_BUFFERED = 500;

export class SessionRecorder {
  private writer: SessionFileWriter;
  private started: boolean;
  private buffered: RecordInput[] = [];
  private pending: { messageId: string; partial: string; thinking: string } | null = null;
  private suspended = 0;
  private failed = false;
  private idValue: string;
  private meta: RecorderMeta;

  constructor(private readonly opts: RecorderOptions) {
    this.idValue = opts.id;
    this.meta = opts.meta;
    this.writer = opts.store.writer(opts.id);
    this.started = opts.existing === true;
  }

  get id(): string {
    return this.idValue;
  }

  get file(): string {
    return this.writer.path;
  }

  /** Whether the file exists yet (something was said, or it was resumed). */
  get hasFile(): boolean {
    return this.started;
  }

  readonly onHistoryChange = (change: RecordedHistoryChange): void => {
    if (this.suspended || this.failed) return;
    switch (change.type) {
      case "append":
        for (const message of change.messages) this.write({ type: "message", message }, message);
        return;
      case "replace":
        if (!this.started && !change.messages.length) return;
        this.write({ type: "replace", reason: change.reason, messages: change.messages }, change.messages.find((m) => m.role === "user"));
        return;
      default:
        assertNever(change, "history change");
    }
  };

  readonly onEvent = (e: AgentEvent): void => {
    if (this.suspended || this.failed) return;
    switch (e.type) {
      case "message.delta":
        if (this.pending && this.pending.messageId !== e.messageId) this.flushPending();
        this.pending ??= { messageId: e.messageId, partial: "", thinking: "" };
        this.pending.partial = e.partial;
        if (e.thinking) this.pending.thinking += e.thinking;
        return;
      // Transient state the transcript does not keep.
      case "tool.updated":
      case "approval.requested":
      case "approval.resolved":
      case "queue.updated":
      case "session.started":
      case "session.ended":
        return;
      case "compaction":
        return this.write({ type: "compaction", event: e });
      case "checkpoint.saved":
        return this.write({ type: "checkpoint", event: e });
      case "tool_use_summary":
        return this.write({ type: "tool_use_summary", batchId: e.batchId, label: e.label, callIds: e.callIds });
      case "model.changed":
        this.meta = { ...this.meta, provider: e.provider, model: e.model };
        return this.write({ type: "model_switch", provider: e.provider, model: e.model });
      case "history.replaced":
        // The messages are in the `replace` record written just before (Session writes history first).
        return this.write({ type: "view", event: { type: "history.replaced", messages: [] } });
      default:
        return this.write({ type: "view", event: e });
    }
  };

  /** Runs `fn` without recording anything it causes (swapping histories, replaying a transcript). */
  suspend<T>(fn: () => T): T {
    this.suspended++;
    try {
      return fn();
    } finally {
      this.suspended--;
    }
  }

  /** Continues in another session file (`/session new`, `/session load`, `/session fork`). */
  switchTo(id: string, opts: { existing: boolean; meta?: Partial<RecorderMeta> }): void {
    this.close();
    this.idValue = id;
    this.meta = { ...this.meta, ...(opts.meta ?? {}) };
    this.writer = this.opts.store.writer(id);
    this.started = opts.existing;
    this.buffered = [];
    this.failed = false;
  }

  /** Writes what is pending (a streamed answer cut short) and closes the file. */
  close(): void {
    if (!this.failed && this.started) this.flushPending();
    this.pending = null;
    this.writer.close();
  }

  private flushPending(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    if (!p.partial && !p.thinking) return;
    const event: AgentEvent = { type: "message.delta", messageId: p.messageId, partial: p.partial, ...(p.partial ? { text: p.partial } : {}), ...(p.thinking ? { thinking: p.thinking } : {}) };
    this.write({ type: "view", event });
  }

  /** `first` is the message that may start the file (its title comes from the first user text). */
  private write(rec: RecordInput, first?: Message): void {
    if (this.failed) return;
    if (rec.type !== "view" || rec.event.type !== "message.delta") this.flushPending();
    if (!this.started) {
      if (rec.type !== "message" && rec.type !== "replace") {
        if (this.buffered.length < MAX_BUFFERED) this.buffered.push(rec);
        return;
      }
      const turn = this.buffered.find((r) => r.type === "view" && r.event.type === "turn.started");
      const titleSource = turn?.type === "view" && turn.event.type === "turn.started" ? turn.event.input : first?.role === "user" ? first.content : "";
      this.started = true;
      const head: RecordInput[] = [{ type: "meta", id: this.idValue, title: titleOf(titleSource), createdAt: this.opts.store.now(), ...this.meta }, ...this.buffered];
      this.buffered = [];
      for (const r of head) this.safeAppend(r);
    }
    this.safeAppend(rec);
  }

  private safeAppend(rec: RecordInput): void {
    if (this.failed) return;
    try {
      this.writer.append(rec);
    } catch (err) {
      this.failed = true;
      this.opts.onError?.(`Session autosave stopped: cannot write ${this.writer.path}: ${(err as Error)?.message ?? String(err)}`);
    }
  }
}

/** Subscribes the recorder to the session's events; returns the unsubscribe function. */
export function attachRecorder(session: { subscribe(l: (e: AgentEvent) => void): () => void }, recorder: SessionRecorder): () => void {
  return session.subscribe(recorder.onEvent);
}
