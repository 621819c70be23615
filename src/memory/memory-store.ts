/**
 * The memory files of both scopes and every change to them. All writes go through `transact`: under the lock
 * file, the documents are read fresh from disk (another process may have written since), changed, journaled,
 * then written atomically; MEMORY.md and graph.json of each changed scope are regenerated. So two processes
 * writing at once lose no fact, and every change can be undone (`undo`).
 */
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { atomicWrite, readJson, writeJson } from "./json-file.ts";
import { withLock } from "../util/file-lock.ts";
import { appendJournal, lastUndoable, readJournal, type DocName, type JournalEntry } from "./journal.ts";
import { scopeDir, type MemoryPaths } from "./paths.ts";
import { factsFileSchema, profileFileSchema, trackerFileSchema, type Fact, type ProfileFile, type Scope, type TrackerFile } from "./types.ts";
import { renderMemoryMarkdown } from "./markdown-view.ts";
import { buildGraph } from "./graph.ts";

export interface ScopeDocs {
  facts: Map<string, Fact>;
  profile: ProfileFile["profile"];
  topics: TrackerFile["items"];
  projects: TrackerFile["items"];
}

export interface StoreOptions {
  now?: () => number;
  warn?: (msg: string) => void;
}

interface Change {
  scope: Scope;
  doc: DocName;
  key: string;
  before: unknown;
  after: unknown;
}

export class MemoryStore {
  readonly now: () => number;
  private readonly warn: (msg: string) => void;
  private cache = new Map<string, { stamp: string; docs: ScopeDocs }>();

  constructor(
    readonly paths: MemoryPaths,
    o: StoreOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.warn = o.warn ?? (() => undefined);
  }

  /** The documents of one scope as they are on disk now (cached while facts.json and profile.json are unchanged). */
  read(scope: Scope): ScopeDocs {
    const dir = scopeDir(this.paths, scope);
    const stamp = fileStamp(join(dir, "facts.json"), join(dir, "profile.json"), join(dir, "topics.json"), join(dir, "projects.json"));
    const hit = this.cache.get(dir);
    if (hit && hit.stamp === stamp) return hit.docs;
    const docs = this.load(scope);
    this.cache.set(dir, { stamp, docs });
    return docs;
  }

  facts(scope?: Scope): Fact[] {
    const scopes: Scope[] = scope ? [scope] : ["user", "project"];
    return scopes.flatMap((s) => [...this.read(s).facts.values()]);
  }

  readDaily(scope: Scope, date: string): string | undefined {
    try {
      return readFileSync(join(scopeDir(this.paths, scope), "daily", `${date}.md`), "utf8");
    } catch {
      return undefined;
    }
  }

  /** Runs `body` on fresh documents under the lock; journals and writes what it changed. Returns its result. */
  transact<T>(reason: string, body: (tx: MemoryTx) => T, undoes?: string): { result: T; changes: number; txn: string } {
    return withLock(this.paths.lock, () => {
      const tx = new MemoryTx(this);
      const result = body(tx);
      const changes = tx.changes().filter((c) => JSON.stringify(c.before) !== JSON.stringify(c.after));
      const txn = `t${this.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const at = this.now();
      appendJournal(
        this.paths.journal,
        changes.map((c): JournalEntry => ({ txn, at, reason, scope: c.scope, doc: c.doc, key: c.key, before: c.before ?? null, after: c.after ?? null, ...(undoes ? { undoes } : {}) })),
      );
      const touched = new Set(changes.map((c) => c.scope));
      for (const scope of touched) this.write(scope, tx.docs(scope), changes.filter((c) => c.scope === scope));
      return { result, changes: changes.length, txn };
    });
  }

  /**
   * Records that facts were recalled (last used, uses). Not journaled: a use is not a change anyone undoes, and
   * the journal stays the list of real edits.
   */
  touch(ids: readonly string[]): void {
    if (!ids.length) return;
    const want = new Set(ids);
    withLock(this.paths.lock, () => {
      for (const scope of ["user", "project"] as const) {
        const docs = this.load(scope);
        let changed = false;
        for (const f of docs.facts.values()) {
          if (!want.has(f.id)) continue;
          docs.facts.set(f.id, { ...f, lastUsed: this.now(), uses: f.uses + 1 });
          changed = true;
        }
        if (!changed) continue;
        writeJson(join(scopeDir(this.paths, scope), "facts.json"), { version: 1, facts: sortFacts([...docs.facts.values()]) });
        this.cache.delete(scopeDir(this.paths, scope));
      }
    });
  }

  /** Reverts the newest transaction not yet undone; undefined when there is none. */
  undo(): { reason: string; changes: number } | undefined {
    const last = lastUndoable(readJournal(this.paths.journal));
    if (!last?.length) return undefined;
    const r = this.transact(
      "undo",
      (tx) => {
        for (const e of [...last].reverse()) tx.set(e.scope, e.doc, e.key, e.before ?? null);
      },
      last[0]!.txn,
    );
    return { reason: last[0]!.reason, changes: r.changes };
  }

  /** @internal the documents read fresh (inside the lock). */
  load(scope: Scope): ScopeDocs {
    const dir = scopeDir(this.paths, scope);
    const now = this.now();
    const facts = readJson(join(dir, "facts.json"), factsFileSchema, this.warn, now)?.facts ?? [];
    return {
      facts: new Map(facts.map((f) => [f.id, f])),
      profile: readJson(join(dir, "profile.json"), profileFileSchema, this.warn, now)?.profile ?? {},
      topics: readJson(join(dir, "topics.json"), trackerFileSchema, this.warn, now)?.items ?? {},
      projects: readJson(join(dir, "projects.json"), trackerFileSchema, this.warn, now)?.items ?? {},
    };
  }

  private write(scope: Scope, docs: ScopeDocs, changes: Change[]): void {
    const dir = scopeDir(this.paths, scope);
    const docsChanged = new Set(changes.map((c) => c.doc));
    const facts = sortFacts([...docs.facts.values()]);
    if (docsChanged.has("facts")) writeJson(join(dir, "facts.json"), { version: 1, facts });
    if (docsChanged.has("profile")) writeJson(join(dir, "profile.json"), { version: 1, profile: docs.profile });
    if (docsChanged.has("topics")) writeJson(join(dir, "topics.json"), { version: 1, items: docs.topics });
    if (docsChanged.has("projects")) writeJson(join(dir, "projects.json"), { version: 1, items: docs.projects });
    for (const c of changes.filter((x) => x.doc === "daily")) {
      const path = join(dir, "daily", `${c.key}.md`);
      if (typeof c.after === "string") atomicWrite(path, c.after);
      else rmSync(path, { force: true });
    }
    if (docsChanged.has("facts")) writeJson(join(dir, "graph.json"), { version: 1, edges: buildGraph(facts.filter((f) => f.status === "active")) });
    atomicWrite(join(dir, "MEMORY.md"), renderMemoryMarkdown(scope, facts, docs, this.now()));
    this.cache.delete(dir);
  }
}

/** A transaction's view: the documents as read under the lock, and the changes made to them so far. */
export class MemoryTx {
  private readonly loaded = new Map<Scope, ScopeDocs>();
  private readonly changed = new Map<string, Change>();

  constructor(private readonly store: MemoryStore) {}

  get now(): number {
    return this.store.now();
  }

  docs(scope: Scope): ScopeDocs {
    let d = this.loaded.get(scope);
    if (!d) this.loaded.set(scope, (d = this.store.load(scope)));
    return d;
  }

  facts(scope?: Scope): Fact[] {
    const scopes: Scope[] = scope ? [scope] : ["user", "project"];
    return scopes.flatMap((s) => [...this.docs(s).facts.values()]);
  }

  fact(id: string): Fact | undefined {
    return this.docs("user").facts.get(id) ?? this.docs("project").facts.get(id);
  }

  putFact(f: Fact): void {
    this.set(f.scope, "facts", f.id, f);
  }

  removeFact(f: Fact): void {
    this.set(f.scope, "facts", f.id, null);
  }

  get(scope: Scope, doc: DocName, key: string): unknown {
    const d = this.docs(scope);
    switch (doc) {
      case "facts":
        return d.facts.get(key) ?? null;
      case "profile":
        return d.profile[key] ?? null;
      case "topics":
        return d.topics[key] ?? null;
      case "projects":
        return d.projects[key] ?? null;
      case "daily":
        return this.store.readDaily(scope, key) ?? null;
    }
  }

  /** Sets one keyed value (null removes it). The journal gets the value before the transaction's first change. */
  set(scope: Scope, doc: DocName, key: string, value: unknown): void {
    const id = `${scope}\u0000${doc}\u0000${key}`;
    const prior = this.changed.get(id);
    const before = prior ? prior.before : clone(this.get(scope, doc, key));
    this.changed.set(id, { scope, doc, key, before, after: clone(value) });
    const d = this.docs(scope);
    const record = value === null || value === undefined ? undefined : clone(value);
    switch (doc) {
      case "facts":
        if (record) d.facts.set(key, record as Fact);
        else d.facts.delete(key);
        return;
      case "profile":
      case "topics":
      case "projects": {
        const map = d[doc] as Record<string, unknown>;
        if (record) map[key] = record;
        else delete map[key];
        return;
      }
      case "daily":
        return; // written from the change list
    }
  }

  changes(): Change[] {
    return [...this.changed.values()];
  }
}

export function sortFacts(facts: Fact[]): Fact[] {
  return facts.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function newFactId(now: number): string {
  return `m${now.toString(36).slice(-5)}${Math.random().toString(36).slice(2, 6)}`;
}

function clone<T>(v: T): T {
  return v === null || v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Changes whenever one of the files is replaced (an atomic write gives it a new inode) or edited. */
function fileStamp(...paths: string[]): string {
  return paths
    .map((p) => {
      if (!existsSync(p)) return "-";
      const st = statSync(p);
      return `${st.ino}:${st.mtimeMs}:${st.size}`;
    })
    .join("|");
}
