/**
 * The extraction request (our own prompt text) and the parser of its reply. The model answers `NOTHING_NEW`, or
 * one JSON object with the seed's five categories: DAILY (notes for today, ephemeral), LONGTERM (durable facts),
 * PROFILE_UPDATE (about the user), TOPICS, PROJECTS. The parser is lenient about shape (code fences, lower-case
 * keys, strings or objects, `CATEGORY: text` lines) and says `malformed` when it finds nothing it can use.
 * Both the transcript sent and every item received pass through the redactor: secrets never enter memory.
 */
import type { LlmRequest } from "../protocol/llm.ts";
import type { Message } from "../protocol/message.ts";
import { REDACTED, type Redactor } from "../store/redact.ts";
import { safeHead } from "../util/text.ts";
import { CONFIDENCE, type Candidate, type Category, type FactSource, type Scope } from "./types.ts";

export const NOTHING_NEW = "NOTHING_NEW";
export const EXTRACTION_TIMEOUT_MS = 180_000;
const TRANSCRIPT_CHARS = 16_000;
const MESSAGE_CHARS = 2_000;

export const EXTRACTION_SYSTEM_PROMPT = [
  "You keep the long-term memory of a coding assistant. Read the conversation excerpt and pick out only what will",
  "still matter in a later session: stable preferences and habits of the user, decisions about the project, facts",
  "about the environment, corrections the user made. Skip small talk, one-off requests, anything already obvious",
  "from the code, and never record passwords, keys, tokens or other secrets.",
  "",
  `If nothing is worth keeping, reply with exactly ${NOTHING_NEW}.`,
  "Otherwise reply with one JSON object and nothing else, using any of these keys:",
  '  "LONGTERM": [{"text": "...", "subject": "short topic, e.g. indentation", "scope": "user" or "project", "correction": true if it corrects something said before}]',
  '  "PROFILE_UPDATE": [{"text": "what the user is or prefers, e.g. The user prefers Vim", "subject": "editor"}]',
  '  "DAILY": ["what happened today that may matter tomorrow"]',
  '  "TOPICS": ["recurring subject"]',
  '  "PROJECTS": [{"name": "project name", "note": "what it is or its state"}]',
  'Write each text as one short standalone sentence in the third person ("The user prefers tabs for indentation").',
  'Scope "user" is for facts true everywhere (the person); "project" for facts about the current code base.',
].join("\n");

export type ExtractionReply = { kind: "nothing" } | { kind: "items"; candidates: Candidate[] } | { kind: "malformed"; reason: string };

/** The conversation slice as text for the extraction model, newest last, redacted, cut to a fixed size. */
export function transcriptOf(messages: readonly Message[], redact: Redactor): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      lines.push(`[tool ${m.name} returned ${m.content.length} characters]`);
      continue;
    }
    const body = m.content.length > MESSAGE_CHARS ? `${safeHead(m.content, MESSAGE_CHARS)}…` : m.content;
    if (!body.trim()) continue;
    lines.push(`${m.role === "user" ? "User" : "Assistant"}: ${body}`);
  }
  let text = redact(lines.join("\n\n"));
  if (text.length > TRANSCRIPT_CHARS) text = `…${text.slice(text.length - TRANSCRIPT_CHARS)}`;
  return text;
}

export function buildExtractionRequest(transcript: string, model: string): LlmRequest {
  const system = /qwen3/i.test(model) ? `${EXTRACTION_SYSTEM_PROMPT}\n/no_think` : EXTRACTION_SYSTEM_PROMPT;
  return {
    model,
    system: [{ text: system }],
    messages: [{ role: "user", content: `Conversation excerpt:\n\n${transcript}\n\nWhat should be remembered?` }],
    maxOutputTokens: 1024,
    temperature: 0.2,
    purpose: "memory",
    contextWindow: 8192,
  };
}

const KEY_ALIASES: Record<string, Category> = {
  daily: "daily",
  longterm: "longterm",
  long_term: "longterm",
  facts: "longterm",
  long_term_facts: "longterm",
  memories: "longterm",
  user_profile: "profile",
  preferences: "profile",
  notes: "daily",
  daily_notes: "daily",
  profile_update: "profile",
  profileupdate: "profile",
  profile: "profile",
  topics: "topic",
  topic: "topic",
  projects: "project",
  project: "project",
};

export interface ParseContext {
  redact: Redactor;
  source: FactSource;
  /** Scope for items the model gave none: project facts where there is a project. */
  defaultScope: Scope;
}

export function parseExtractionReply(raw: string, ctx: ParseContext): ExtractionReply {
  const text = raw.replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, "").trim();
  if (!text) return { kind: "malformed", reason: "empty reply" };
  if (new RegExp(`^[\\s\`*"'_]*${NOTHING_NEW}[\\s\`*"'_.]*$`).test(text)) return { kind: "nothing" };
  const json = jsonObjectIn(text);
  const candidates = json ? fromJson(json, ctx) : fromLines(text, ctx);
  if (candidates === undefined) {
    if (text.includes(NOTHING_NEW)) return { kind: "nothing" };
    return { kind: "malformed", reason: json ? "JSON without any known category" : "neither JSON nor NOTHING_NEW" };
  }
  return { kind: "items", candidates };
}

function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const body = fenced ?? text;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const v: unknown = JSON.parse(body.slice(start, end + 1));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when no key is a known category; an empty list when the known ones are empty. */
function fromJson(obj: Record<string, unknown>, ctx: ParseContext): Candidate[] | undefined {
  let known = false;
  const out: Candidate[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const category = KEY_ALIASES[k.toLowerCase().replace(/[\s-]/g, "_")];
    if (!category) continue;
    known = true;
    for (const item of itemsOf(v, category)) {
      const c = candidateOf(item, category, ctx);
      if (c) out.push(c);
    }
  }
  return known ? out : undefined;
}

/** A list, one item, or a `{key: value}` map (a profile written as fields: `{"editor": "vim"}`). */
function itemsOf(v: unknown, category: Category): unknown[] {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null) return [];
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    // A project is `{name, note}`; a profile's fields may well include "name".
    const textKeys = category === "profile" ? ["text", "fact", "content", "value"] : ["text", "fact", "content", "value", "name", "note"];
    if (!textKeys.some((k) => typeof o[k] === "string")) {
      return Object.entries(o).flatMap(([k, x]) => (typeof x === "string" && x.trim() ? [{ text: `${k}: ${x}`, subject: k }] : []));
    }
  }
  return [v];
}

function fromLines(text: string, ctx: ParseContext): Candidate[] | undefined {
  const out: Candidate[] = [];
  let known = false;
  for (const line of text.split("\n")) {
    const m = /^\s*(?:[-*•]\s*)?\[?(DAILY|LONGTERM|LONG_TERM|PROFILE_UPDATE|TOPICS?|PROJECTS?)\]?\s*[:\-–]?\s*(.+)$/i.exec(line);
    if (!m) continue;
    known = true;
    const c = candidateOf(m[2]!, KEY_ALIASES[m[1]!.toLowerCase()]!, ctx);
    if (c) out.push(c);
  }
  return known ? out : undefined;
}

function candidateOf(item: unknown, category: Category, ctx: ParseContext): Candidate | undefined {
  let text: string | undefined;
  let subject: string | undefined;
  let scope: Scope | undefined;
  let correction = false;
  if (typeof item === "string") text = item;
  else if (item && typeof item === "object") {
    const o = item as Record<string, unknown>;
    const str = (...keys: string[]) => keys.map((k) => o[k]).find((x): x is string => typeof x === "string" && x.trim() !== "");
    const name = str("name");
    const note = str("note", "description", "status");
    text = str("text", "fact", "content", "value") ?? (name && note ? `${name}: ${note}` : (name ?? note));
    subject = str("subject", "key", "topic") ?? (category === "project" ? name : undefined);
    const s = str("scope")?.toLowerCase();
    if (s === "user" || s === "global") scope = "user";
    else if (s === "project") scope = "project";
    correction = o.correction === true;
  }
  text = text?.replace(/\s+/g, " ").trim();
  if (!text || text.length > 500) return undefined;
  const clean = ctx.redact(text);
  if (clean.includes(REDACTED)) return undefined; // a fact about a secret is the secret
  const cleanSubject = subject ? ctx.redact(subject.trim()).slice(0, 80) : undefined;
  return {
    text: clean,
    category,
    scope: scope ?? (category === "profile" ? "user" : ctx.defaultScope),
    confidence: correction ? CONFIDENCE.correction : CONFIDENCE.extracted,
    ...(cleanSubject && !cleanSubject.includes(REDACTED) ? { subject: cleanSubject } : {}),
    source: ctx.source,
  };
}
