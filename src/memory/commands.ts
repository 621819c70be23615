/**
 * The memory actions, shared by `chatcli memory …` and `/memory …`: list, inbox, accept, reject, add, forget,
 * undo, search, export, import, and for the TUI why (the session moment a fact came from), edit, delete.
 * Returns the text to show and an exit code (0 ok, 1 nothing matched / failed, 2 usage).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { t } from "../i18n/i18n.ts";
import type { Message } from "../protocol/message.ts";
import type { Redactor } from "../store/redact.ts";
import { REDACTED } from "../store/redact.ts";
import { safeHead } from "../util/text.ts";
import { explicitRemember, scopeOfStatement } from "./explicit.ts";
import { importMarkdown } from "./migrate.ts";
import type { MemoryStore } from "./memory-store.ts";
import { acceptFact, ingest } from "./reconcile.ts";
import { bm25, tokens } from "./text-match.ts";
import { CATEGORIES, CONFIDENCE, factSchema, type Category, type Fact, type MemoryMode, type Scope } from "./types.ts";

export const MEMORY_ACTIONS = ["list", "inbox", "accept", "reject", "add", "forget", "undo", "search", "export", "import", "why", "edit", "delete"] as const;
export type MemoryAction = (typeof MEMORY_ACTIONS)[number];

export interface MemoryArgs {
  action: MemoryAction;
  args: string[];
  scope?: Scope;
  category?: Category;
  json?: boolean;
  yes?: boolean;
  /** forget: only show what would go (the default of `/memory forget` without --yes). */
  dryRun?: boolean;
  all?: boolean;
}

export interface CommandContext {
  store: MemoryStore;
  mode: MemoryMode;
  redact: Redactor;
  /** The messages of a saved session, for `why` (undefined when it is not saved). */
  sessionMessages?(id: string): readonly Message[] | undefined;
}

export interface CommandResult {
  text: string;
  code: number;
}

/** `/memory` words → MemoryArgs (flags anywhere); a usage message when the action is unknown. */
export function parseMemoryWords(words: readonly string[]): MemoryArgs | string {
  const [first, ...rest] = words;
  const action = (first ?? "list") as MemoryAction;
  if (!MEMORY_ACTIONS.includes(action)) return t("memory.usage");
  const out: MemoryArgs = { action, args: [] };
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "--json") out.json = true;
    else if (w === "--yes" || w === "-y") out.yes = true;
    else if (w === "--dry-run") out.dryRun = true;
    else if (w === "--all") out.all = true;
    else if (w === "--scope" || w.startsWith("--scope=")) {
      const v = w.includes("=") ? w.slice(8) : rest[++i];
      if (v !== "user" && v !== "project") return t("memory.badScope");
      out.scope = v;
    } else if (w === "--category" || w.startsWith("--category=")) {
      const v = (w.includes("=") ? w.slice(11) : rest[++i]) as Category;
      if (!CATEGORIES.includes(v)) return t("memory.badCategory", { list: CATEGORIES.join(", ") });
      out.category = v;
    } else out.args.push(w);
  }
  return out;
}

export function runMemoryCommand(a: MemoryArgs, ctx: CommandContext): CommandResult {
  const { store } = ctx;
  const text = a.args.join(" ").trim();
  switch (a.action) {
    case "list": {
      const facts = store.facts(a.scope).filter((f) => (a.all ? true : f.status === "active") && (!a.category || f.category === a.category));
      if (a.json) return ok(JSON.stringify(facts, null, 2));
      return ok(facts.length ? listText(facts) : t("memory.none"));
    }
    case "inbox": {
      const facts = store.facts(a.scope).filter((f) => f.status === "proposed");
      if (a.json) return ok(JSON.stringify(facts, null, 2));
      return ok(facts.length ? `${t("memory.inboxHeading", { count: facts.length })}\n${listText(facts)}` : t("memory.inboxEmpty"));
    }
    case "accept":
    case "reject": {
      if (!a.args.length && !a.all) return usage(t("memory.needsId", { action: a.action }));
      const r = store.transact(a.action, (tx) => {
        const inbox = tx.facts().filter((f) => f.status === "proposed");
        const chosen = a.all || a.args.includes("all") ? inbox : pick(inbox, a.args);
        for (const f of chosen) {
          if (a.action === "accept") acceptFact(tx, f);
          else tx.putFact({ ...f, status: "rejected" });
        }
        return chosen;
      });
      if (!r.result.length) return fail(t("memory.noMatch", { query: a.args.join(" ") }));
      return ok(t(a.action === "accept" ? "memory.accepted" : "memory.rejected", { count: r.result.length }) + `\n${listText(r.result)}`);
    }
    case "add": {
      const body = explicitRemember(text) ?? text;
      if (!body) return usage(t("memory.addNeedsText"));
      const clean = ctx.redact(body);
      if (clean.includes(REDACTED)) return fail(t("memory.secretRefused"));
      const scope = a.scope ?? scopeOfStatement(clean);
      const category = a.category ?? "longterm";
      const r = store.transact("add", (tx) => ingest(tx, [{ text: clean, category, scope, confidence: CONFIDENCE.userStated, source: { kind: "user" } }], "direct"));
      const f = r.result.added[0] ?? r.result.reinforced[0];
      return ok(f ? t("memory.added", { id: f.id, scope: f.scope, text: f.text }) : t("memory.addedTracker"));
    }
    case "forget": {
      if (!text) return usage(t("memory.forgetNeedsQuery"));
      const matches = search(store.facts().filter((f) => f.status !== "superseded"), text, a.scope);
      if (!matches.length) return fail(t("memory.noMatch", { query: text }));
      if (!a.yes || a.dryRun) return ok(`${t("memory.forgetPreview", { count: matches.length })}\n${listText(matches)}\n${t("memory.forgetConfirm", { query: text })}`);
      store.transact("forget", (tx) => {
        for (const f of matches) if (tx.fact(f.id)) tx.removeFact(f);
      });
      return ok(`${t("memory.forgot", { count: matches.length })}\n${listText(matches)}\n${t("memory.undoHint")}`);
    }
    case "delete": {
      if (!a.args.length) return usage(t("memory.needsId", { action: "delete" }));
      const r = store.transact("delete", (tx) => {
        const chosen = pick(tx.facts(), a.args);
        for (const f of chosen) tx.removeFact(f);
        return chosen;
      });
      if (!r.result.length) return fail(t("memory.noMatch", { query: a.args.join(" ") }));
      return ok(`${t("memory.forgot", { count: r.result.length })}\n${listText(r.result)}\n${t("memory.undoHint")}`);
    }
    case "edit": {
      const [id, ...words] = a.args;
      const newText = words.join(" ").trim();
      if (!id || !newText) return usage(t("memory.editUsage"));
      const clean = ctx.redact(newText);
      if (clean.includes(REDACTED)) return fail(t("memory.secretRefused"));
      const r = store.transact("edit", (tx) => {
        const [f] = pick(tx.facts(), [id]);
        if (f) tx.putFact({ ...f, text: clean, confidence: Math.max(f.confidence, CONFIDENCE.correction) });
        return f;
      });
      return r.result ? ok(t("memory.edited", { id: r.result.id, text: clean })) : fail(t("memory.noMatch", { query: id }));
    }
    case "undo": {
      const r = store.undo();
      return r ? ok(t("memory.undone", { what: r.reason, count: r.changes })) : fail(t("memory.nothingToUndo"));
    }
    case "search": {
      if (!text) return usage(t("memory.searchNeedsQuery"));
      const matches = search(store.facts().filter((f) => f.status === "active" || a.all), text, a.scope);
      if (a.json) return ok(JSON.stringify(matches, null, 2));
      return matches.length ? ok(listText(matches)) : fail(t("memory.noMatch", { query: text }));
    }
    case "why": {
      const [f] = pick(store.facts(), a.args);
      if (!f) return fail(t("memory.noMatch", { query: text }));
      return ok(whyText(f, ctx));
    }
    case "export": {
      const doc = { version: 1, exported: new Date(store.now()).toISOString(), facts: store.facts() };
      const json = JSON.stringify(doc, null, 2);
      if (!a.args[0] || a.args[0] === "-") return ok(json);
      writeFileSync(a.args[0], `${json}\n`, { mode: 0o600 });
      return ok(t("memory.exported", { count: doc.facts.length, file: a.args[0] }));
    }
    case "import":
      return importFile(a.args[0], ctx, a.scope);
  }
}

function importFile(file: string | undefined, ctx: CommandContext, scope: Scope | undefined): CommandResult {
  if (!file) return usage(t("memory.importNeedsFile"));
  if (!existsSync(file)) return fail(t("memory.noFile", { file }));
  const text = readFileSync(file, "utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) {
    const r = importMarkdown(ctx.store, file, CONFIDENCE.userStated, "kept");
    return ok(t("memory.imported", { count: r?.facts ?? 0, file }));
  }
  const list = Array.isArray((parsed as { facts?: unknown }).facts) ? ((parsed as { facts: unknown[] }).facts) : [];
  const facts = list.flatMap((x) => {
    const r = factSchema.safeParse(x);
    return r.success ? [r.data] : [];
  });
  if (!facts.length) return fail(t("memory.importNothing", { file }));
  const r = ctx.store.transact("import", (tx) => {
    let n = 0;
    for (const f of facts) {
      const clean = ctx.redact(f.text);
      if (clean.includes(REDACTED) || f.status === "superseded") continue;
      const res = ingest(tx, [{ text: clean, category: f.category, scope: scope ?? f.scope, confidence: f.confidence, ...(f.subject ? { subject: f.subject } : {}), source: { kind: "import", file } }], f.status === "proposed" ? "propose" : "direct");
      n += res.added.length + res.reinforced.length;
    }
    return n;
  });
  return ok(t("memory.imported", { count: r.result, file }));
}

export function search(facts: readonly Fact[], query: string, scope?: Scope): Fact[] {
  const pool = facts.filter((f) => !scope || f.scope === scope);
  const q = tokens(query);
  const byId = pool.filter((f) => f.id === query.trim());
  if (byId.length) return byId;
  const scores = bm25(q, pool.map((f) => tokens(`${f.text} ${f.subject ?? ""}`)));
  const lower = query.toLowerCase().trim();
  return pool.filter((f, i) => scores[i]! > 0 || (lower.length > 2 && f.text.toLowerCase().includes(lower))).sort((a, b) => scores[pool.indexOf(b)]! - scores[pool.indexOf(a)]!);
}

/** Facts by id or unique id prefix. */
function pick(facts: readonly Fact[], ids: readonly string[]): Fact[] {
  const out: Fact[] = [];
  for (const id of ids) {
    const exact = facts.find((f) => f.id === id);
    const byPrefix = facts.filter((f) => f.id.startsWith(id));
    const f = exact ?? (byPrefix.length === 1 ? byPrefix[0] : undefined);
    if (f && !out.includes(f)) out.push(f);
  }
  return out;
}

export function sourceText(f: Fact): string {
  const s = f.source;
  if (s.kind === "session") return t("memory.source.session", { id: s.sessionId ?? "?", from: (s.messages?.[0] ?? 0) + 1, to: s.messages?.[1] ?? 0 });
  if (s.kind === "migration" || s.kind === "import") return t("memory.source.file", { file: s.file ?? "?" });
  return t("memory.source.user");
}

export function factLine(f: Fact): string {
  const status = f.status === "active" ? "" : ` (${f.status})`;
  return `${f.id}  ${f.scope}/${f.category}${status}  ${f.text}  — ${sourceText(f)}`;
}

function listText(facts: readonly Fact[]): string {
  return facts.map(factLine).join("\n");
}

function whyText(f: Fact, ctx: CommandContext): string {
  const lines = [factLine(f), t("memory.why.detail", { confidence: f.confidence.toFixed(2), created: new Date(f.created).toISOString(), uses: f.uses })];
  const s = f.source;
  if (s.kind !== "session" || !s.sessionId) return lines.join("\n");
  const messages = ctx.sessionMessages?.(s.sessionId);
  if (!messages) return [...lines, t("memory.why.noSession", { id: s.sessionId })].join("\n");
  const [from, to] = s.messages ?? [0, messages.length];
  lines.push(t("memory.why.moment", { id: s.sessionId }));
  for (const m of messages.slice(from, to)) {
    if (m.role !== "user" && m.role !== "assistant") continue;
    lines.push(`  ${m.role === "user" ? "›" : "‹"} ${safeHead(m.content.replace(/\s+/g, " "), 300)}`);
  }
  return lines.join("\n");
}

const ok = (text: string): CommandResult => ({ text, code: 0 });
const fail = (text: string): CommandResult => ({ text, code: 1 });
const usage = (text: string): CommandResult => ({ text, code: 2 });
