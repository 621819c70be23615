/**
 * Autosave: writes a Session's history changes and events of note into its session file as they happen.
 * Wire it in two places: pass `recorder.onHistoryChange` as the Session's `onHistoryChange` option, and
 * `attachRecorder(session, recorder)` once the Session exists (events).
 *
 * The file is created lazily at the first history change, so sessions where nothing was said leave no file;
 * events seen before that (the first `turn.started`) are buffered and written after the metadata.
 * A write failure is reported once through `onError` and recording stops; the session itself goes on.
 *
 * The file stays O(history): every message is written once, as a `message` record with an entry id; a
 * replaced history (compaction, rewind, clear, overflow recovery) is a `history` record naming the runs of
 * entries it keeps and carrying only the messages that are new. Records are written as they happen and
 * fsynced once per turn (at `turn.completed`), once per burst of writes outside a turn, and at close.
 * `current` mirrors the history as the FILE has it (suspended changes are not in it).
 */
import type { AgentEvent } from "../protocol/events.ts";
import { t } from "../i18n/i18n.ts";
import type { Message } from "../protocol/message.ts";
import { assertNever } from "../protocol/assert-never.ts";
import type { SessionFileWriter } from "./session-file.ts";
import { entryId, titleOf } from "./session-file.ts";
import type { HistoryPart, RecordInput } from "./session-records.ts";
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
  /** The history the existing file holds and its entry ids (a LoadedSession fits), so later records can name them. */
  entries?: RecordedEntries;
  onError?: (message: string) => void;
  /** The recorder now writes session `id` (constructed, or switched to another file). */
  onSessionId?: (id: string) => void;
}

/** The history a session file holds, as loaded: the messages, their entry ids, the next free entry number. */
export interface RecordedEntries {
  history: readonly Message[];
  entryIds: readonly string[];
  nextEntry: number;
}

const MAX_BUFFERED = 500;

export class SessionRecorder {
  private writer: SessionFileWriter;
  private started: boolean;
  private buffered: RecordInput[] = [];
  private pending: { messageId: string; text: string; thinking: string } | null = null;
  private suspended = 0;
  private failed = false;
  private idValue: string;
  private meta: RecorderMeta;
  /** The history in the file and the entry id of each message (parallel arrays). */
  private current: Message[] = [];
  private currentIds: string[] = [];
  private nextEntry = 1;
  private inTurn = false;
  private syncScheduled = false;

  constructor(private readonly opts: RecorderOptions) {
    this.idValue = opts.id;
    this.meta = opts.meta;
    this.writer = opts.store.writer(opts.id);
    this.started = opts.existing === true;
    this.adopt(opts.entries);
    opts.onSessionId?.(opts.id);
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
        for (const message of change.messages) {
          const id = entryId(this.nextEntry++);
          this.current.push(message);
          this.currentIds.push(id);
          this.write({ type: "message", id, message }, message);
        }
        return;
      case "replace": {
        if (!this.started && !change.messages.length) return;
        const parts = this.diff(change.messages);
        this.write({ type: "history", reason: change.reason, parts }, change.messages.find((m) => m.role === "user"));
        return;
      }
      default:
        assertNever(change, "history change");
    }
  };

  readonly onEvent = (e: AgentEvent): void => {
    if (this.suspended || this.failed) return;
    switch (e.type) {
      case "message.delta":
        if (this.pending && this.pending.messageId !== e.messageId) this.flushPending();
        this.pending ??= { messageId: e.messageId, text: "", thinking: "" };
        if (e.text) this.pending.text += e.text;
        if (e.thinking) this.pending.thinking += e.thinking;
        return;
      // Transient state the transcript does not keep.
      case "tool.updated":
      case "approval.requested":
      case "approval.resolved":
      case "queue.updated":
      case "session.started":
      // A resumed session starts without a persona: replaying one would show a persona that is not on.
      case "persona.changed":
      // A child's live progress: its start and end are kept (they carry the figures that matter).
      case "subagent.progress":
      // The Kubernetes watch's state (issue 23): live, and a resumed session is not watching.
      case "k8s.findings":
        return;
      case "session.ended":
        return this.sync();
      case "compaction":
        return this.write({ type: "compaction", event: e });
      case "checkpoint.saved":
        return this.write({ type: "checkpoint", event: e });
      case "tool_use_summary":
        return this.write({ type: "tool_use_summary", batchId: e.batchId, label: e.label, callIds: e.callIds });
      case "turn.started":
        this.inTurn = true;
        return this.write({ type: "view", event: e });
      case "turn.completed":
        this.inTurn = false;
        this.write({ type: "view", event: e });
        return this.sync();
      case "model.changed":
        this.meta = { ...this.meta, provider: e.provider, model: e.model };
        return this.write({ type: "model_switch", provider: e.provider, model: e.model });
      case "subagent.completed": {
        const { messages, ...rest } = e;
        if (messages) this.write({ type: "subagent", agentId: e.agentId, parentId: e.parentId, agent: e.agent, description: e.description ?? "", status: e.status, messages });
        return this.write({ type: "view", event: rest });
      }
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

  /**
   * Continues in another session file (`/session new`, `/session load`, `/session fork`). `entries`: the
   * history that file holds (`/session load` passes the LoadedSession); `keepEntries`: the file holds this
   * very history under the same ids (a fork copies the records). Without either, the recorder starts from an
   * empty history: the next replaced history is then written in full, never with ids the file may lack.
   */
  switchTo(id: string, opts: { existing: boolean; meta?: Partial<RecorderMeta>; entries?: RecordedEntries; keepEntries?: boolean }): void {
    this.close();
    this.idValue = id;
    this.meta = { ...this.meta, ...(opts.meta ?? {}) };
    this.writer = this.opts.store.writer(id);
    this.started = opts.existing;
    this.buffered = [];
    this.failed = false;
    this.inTurn = false;
    if (!opts.keepEntries) this.adopt(opts.entries);
    this.opts.onSessionId?.(id);
  }

  /** Writes what is pending (a streamed answer cut short), syncs and closes the file. */
  close(): void {
    if (!this.failed && this.started) this.flushPending();
    this.pending = null;
    try {
      this.writer.close();
    } catch (err) {
      this.fail(err);
    }
  }

  /** fsyncs what was written since the last sync. */
  sync(): void {
    if (this.failed || !this.started) return;
    try {
      this.writer.sync();
    } catch (err) {
      this.fail(err);
    }
  }

  private adopt(entries: RecordedEntries | undefined): void {
    this.current = entries ? [...entries.history] : [];
    this.currentIds = entries ? [...entries.entryIds] : [];
    this.nextEntry = entries?.nextEntry ?? 1;
  }

  /**
   * The parts of a `history` record turning the file's history into `next`: runs of messages already in the
   * file (the same object, or an equal message at the next position, e.g. a rewind's copy) are named by entry
   * id; the others are written with new ids. Updates `current` to `next`.
   */
  private diff(next: Message[]): HistoryPart[] {
    const pos = new Map<Message, number>();
    this.current.forEach((m, i) => pos.set(m, i));
    const parts: HistoryPart[] = [];
    const ids: string[] = [];
    let run: { keep: [string, string] } | undefined;
    let last = -1;
    for (const m of next) {
      let p = pos.get(m);
      if (p === undefined && last + 1 < this.current.length && sameMessage(this.current[last + 1]!, m)) p = last + 1;
      if (p === undefined) {
        const id = entryId(this.nextEntry++);
        parts.push({ id, message: m });
        ids.push(id);
        run = undefined;
        continue;
      }
      const id = this.currentIds[p]!;
      if (run && p === last + 1) run.keep[1] = id;
      else {
        run = { keep: [id, id] };
        parts.push(run);
      }
      ids.push(id);
      last = p;
    }
    this.current = [...next];
    this.currentIds = ids;
    return parts;
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.opts.onError?.(t("store.autosaveStopped", { file: this.writer.path, error: (err as Error)?.message ?? String(err) }));
  }

  private flushPending(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    if (!p.text && !p.thinking) return;
    // One delta per message holding all of its text: linear in the answer, and the reducer draws it the same.
    const event: AgentEvent = { type: "message.delta", messageId: p.messageId, ...(p.text ? { text: p.text } : {}), ...(p.thinking ? { thinking: p.thinking } : {}) };
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
    // Outside a turn (a side task: /compact, rewind, clear, a model switch) one sync covers the burst.
    if (!this.inTurn && !this.syncScheduled) {
      this.syncScheduled = true;
      queueMicrotask(() => {
        this.syncScheduled = false;
        if (!this.inTurn) this.sync();
      });
    }
  }

  private safeAppend(rec: RecordInput): void {
    if (this.failed) return;
    try {
      this.writer.append(rec);
    } catch (err) {
      this.fail(err);
    }
  }
}

/** Same message: the same role, content and everything else (JSON), checked cheapest first. */
function sameMessage(a: Message, b: Message): boolean {
  return a.role === b.role && a.content === b.content && JSON.stringify(a) === JSON.stringify(b);
}

/** Subscribes the recorder to the session's events; returns the unsubscribe function. */
export function attachRecorder(session: { subscribe(l: (e: AgentEvent) => void): () => void }, recorder: SessionRecorder): () => void {
  return session.subscribe(recorder.onEvent);
}
