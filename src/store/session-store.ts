/**
 * The saved sessions of this user: `<chatcliHome>/sessions/<id>.jsonl` (see session-file.ts) plus `names.json`,
 * the index of names given with `/session save <name>` (written atomically: temp file + rename), and each
 * session's own directory `<id>/` (`tool-results/`: the full outputs its previews point at), which lives and
 * is deleted with the session. References accept a name, an id, or an unambiguous id prefix.
 */
import { closeSync, cpSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { t } from "../i18n/i18n.ts";
import type { Message } from "../protocol/message.ts";
import { parseChatcliSession } from "./chatcli-import.ts";
import { createRedactor, type Redactor } from "./redact.ts";
import { ensurePrivateDir, entryId, loadSession, SESSION_EXT, SessionFileWriter, titleOf, type LoadedSession, type SessionFs } from "./session-file.ts";
import { metaRecordSchema, type MetaRecord } from "./session-records.ts";
import { assertSafeId } from "./store-ids.ts";

/** Same rule as ChatCLI's session names. */
export const SESSION_NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_\-.]{0,254}$/;

const namesSchema = z.object({ version: z.literal(1), names: z.record(z.string(), z.string()) });

export interface SessionSummary {
  id: string;
  file: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** Non-system messages in the rebuilt history. */
  messages: number;
  provider: string;
  model: string;
  projectRoot: string;
  names: string[];
}

export interface SessionStoreOptions {
  /** chatcliHome (respects CHATCLI_HOME; see config/paths.ts). */
  home: string;
  /** For the secret redactor. */
  env: Readonly<Record<string, string | undefined>>;
  now?: () => number;
  /** The file calls of the writers (tests count fsyncs through it). */
  fs?: SessionFs;
}

export class SessionStore {
  readonly dir: string;
  readonly redact: Redactor;
  readonly now: () => number;
  private readonly fs: SessionFs | undefined;

  constructor(opts: SessionStoreOptions) {
    this.dir = join(opts.home, "sessions");
    this.redact = createRedactor(opts.env);
    this.now = opts.now ?? Date.now;
    this.fs = opts.fs;
  }

  fileFor(id: string): string {
    return join(this.dir, `${assertSafeId(id, "session id")}${SESSION_EXT}`);
  }

  /** The session's own directory (created on first use by whoever writes into it). */
  dataDirFor(id: string): string {
    return join(this.dir, assertSafeId(id, "session id"));
  }

  /** Where the session's overflow files go: full tool outputs that the model's previews name. */
  toolResultsDirFor(id: string): string {
    return join(this.dataDirFor(id), "tool-results");
  }

  writer(id: string): SessionFileWriter {
    return new SessionFileWriter(this.fileFor(id), this.redact, this.now, this.fs);
  }

  newId(): string {
    const d = new Date(this.now());
    const p = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${Math.random().toString(36).slice(2, 8)}`;
  }

  /** All sessions, newest activity first. Unreadable files are skipped. */
  list(): SessionSummary[] {
    if (!existsSync(this.dir)) return [];
    const byId = new Map<string, string[]>();
    for (const [name, id] of Object.entries(this.names())) byId.set(id, [...(byId.get(id) ?? []), name]);
    const out: SessionSummary[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith(SESSION_EXT)) continue;
      const file = join(this.dir, f);
      try {
        const updatedAt = statSync(file).mtimeMs;
        const s = loadSession(file);
        out.push(summaryOf(s, updatedAt, byId.get(s.meta.id) ?? []));
      } catch {
        /* a file we cannot read is not listed */
      }
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt || b.id.localeCompare(a.id));
  }

  /** A name, an exact id, or a unique id prefix. */
  resolve(ref: string): SessionSummary | undefined {
    const all = this.list();
    const id = this.names()[ref];
    if (id) return all.find((s) => s.id === id);
    const exact = all.find((s) => s.id === ref);
    if (exact) return exact;
    const pre = all.filter((s) => s.id.startsWith(ref));
    return pre.length === 1 ? pre[0] : undefined;
  }

  /**
   * The most recently active session started in `projectRoot`. Same answer as `list().find(...)`, but files
   * are tried newest first and one of another project is passed over on its first line (the meta record), so
   * `--continue` does not parse every saved session (200 of them cost ~0.25 s before the first frame).
   */
  latestForProject(projectRoot: string): SessionSummary | undefined {
    if (!existsSync(this.dir)) return undefined;
    const files: { file: string; id: string; updatedAt: number }[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith(SESSION_EXT)) continue;
      const file = join(this.dir, f);
      try {
        files.push({ file, id: f.slice(0, -SESSION_EXT.length), updatedAt: statSync(file).mtimeMs });
      } catch {
        /* gone meanwhile */
      }
    }
    files.sort((a, b) => b.updatedAt - a.updatedAt || b.id.localeCompare(a.id));
    let byId: Map<string, string[]> | undefined;
    for (const f of files) {
      const head = firstLineMeta(f.file);
      if (head && head.projectRoot !== projectRoot) continue;
      try {
        const s = loadSession(f.file);
        if (s.meta.projectRoot !== projectRoot) continue;
        if (!byId) {
          byId = new Map();
          for (const [name, id] of Object.entries(this.names())) byId.set(id, [...(byId.get(id) ?? []), name]);
        }
        return summaryOf(s, f.updatedAt, byId.get(s.meta.id) ?? []);
      } catch {
        /* a file we cannot read is skipped, as in list() */
      }
    }
    return undefined;
  }

  load(ref: string): LoadedSession | undefined {
    const s = this.resolve(ref);
    return s ? loadSession(s.file) : undefined;
  }

  names(): Record<string, string> {
    const file = join(this.dir, "names.json");
    try {
      const p = namesSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
      return p.success ? p.data.names : {};
    } catch {
      return {};
    }
  }

  /** Gives session `id` the name (a name already in use moves to this session). */
  saveName(name: string, id: string): string | undefined {
    if (!SESSION_NAME_RE.test(name)) return t("store.invalidName", { name });
    this.writeNames({ ...this.names(), [name]: id });
    return undefined;
  }

  /** Deletes the session file, its directory and its names. Returns the deleted id, or an error message. */
  delete(ref: string): { id: string } | string {
    const s = this.resolve(ref);
    if (!s) return t("slash.noMatch", { ref });
    rmSync(s.file, { force: true });
    rmSync(this.dataDirFor(s.id), { recursive: true, force: true });
    const names = Object.fromEntries(Object.entries(this.names()).filter(([, id]) => id !== s.id));
    this.writeNames(names);
    return { id: s.id };
  }

  /** Creates a new session file holding `history` (fork, import). Returns its id. */
  createFrom(meta: Omit<MetaRecord, "v" | "ts" | "type" | "id" | "createdAt">, history: Message[]): string {
    const id = this.newId();
    const w = this.writer(id);
    try {
      w.append({ type: "meta", id, createdAt: this.now(), ...meta });
      history.forEach((message, i) => w.append({ type: "message", id: entryId(i + 1), message }));
    } finally {
      w.close();
    }
    return id;
  }

  /**
   * Copies session `fromId` (every record but its metadata, entry ids included) into a new session, and its
   * saved tool outputs into the new session's directory. Returns the new id.
   */
  fork(fromId: string, meta: Omit<MetaRecord, "v" | "ts" | "type" | "id" | "createdAt">): string {
    const text = readFileSync(this.fileFor(fromId), "utf8");
    const id = this.newId();
    copyToolResults(this.toolResultsDirFor(fromId), this.toolResultsDirFor(id));
    const w = this.writer(id);
    try {
      w.append({ type: "meta", id, createdAt: this.now(), ...meta, forkedFrom: fromId });
      const lines = text.split("\n");
      if (!text.endsWith("\n")) lines.pop(); // a torn last line is not copied
      for (const line of lines) {
        if (!line.trim()) continue;
        try {
          const r = JSON.parse(line) as { type?: unknown };
          if (r.type === "meta") continue;
        } catch {
          continue;
        }
        w.appendRawLine(line);
      }
    } finally {
      w.close();
    }
    return id;
  }

  /** Imports a ChatCLI v2 session JSON file as a new session. */
  importChatcli(path: string, ctx: { cwd: string; projectRoot: string }): { id: string; messages: number; skipped: number } | string {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      return t("config.cannotRead", { file: path, error: (err as Error).message });
    }
    const r = parseChatcliSession(text);
    if (typeof r === "string") return `${path}: ${r}`;
    const firstUser = r.messages.find((m) => m.role === "user");
    const id = this.createFrom(
      { title: r.title ? titleOf(r.title) : firstUser ? titleOf(firstUser.content) : "", cwd: ctx.cwd, projectRoot: ctx.projectRoot, provider: "", model: "", importedFrom: path },
      r.messages,
    );
    return { id, messages: r.messages.filter((m) => m.role !== "system").length, skipped: r.skipped };
  }

  private writeNames(names: Record<string, string>): void {
    ensurePrivateDir(this.dir);
    const file = join(this.dir, "names.json");
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, names }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
}

/**
 * Best effort: the forked session gets its own copy of the parent's saved outputs (the history still names
 * the parent's paths, which stay valid while the parent exists; the pipeline writes its previews' files anew).
 */
function copyToolResults(from: string, to: string): void {
  if (!existsSync(from)) return;
  try {
    ensurePrivateDir(to);
    cpSync(from, to, { recursive: true, force: false, errorOnExist: false });
  } catch {
    /* a fork without the copies still works: files missing are reported by the read tool */
  }
}

/** The meta record when it is the file's first line (as the writer puts it), else undefined. */
function firstLineMeta(file: string): MetaRecord | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buf = Buffer.alloc(16_384);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const nl = text.indexOf("\n");
    if (nl < 0) return undefined;
    const parsed = metaRecordSchema.safeParse(JSON.parse(text.slice(0, nl)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function summaryOf(s: LoadedSession, updatedAt: number, names: string[]): SessionSummary {
  return {
    id: s.meta.id,
    file: s.file,
    title: s.meta.title,
    createdAt: s.meta.createdAt,
    updatedAt,
    messages: s.messageCount,
    provider: s.lastModel.provider,
    model: s.lastModel.model,
    projectRoot: s.meta.projectRoot,
    names,
  };
}
