/**
 * Tool-use summaries: after each completed batch of tool calls a fast model writes a git-commit-subject label
 * ("Read config and fixed the port check"), published as a `tool_use_summary` event.
 *
 * Contracts:
 * - Fire-and-forget: `onBatchCompleted` returns at once; the label request runs in parallel with the main
 *   model's next request, so its latency hides behind the main model's streaming. Nothing in the loop awaits it.
 * - Every event carries the batchId it was generated for, so a label that arrives after newer batches exist
 *   still lands on its own batch.
 * - Failures are silent (logged, no label). The main model is never used as a fallback: no fast model, no labels.
 * - Trivial single calls (one read, glob, tree or search) get a fixed label with no model call.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { LlmRequest, Purpose, Usage } from "../protocol/llm.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { createProvider, getProviderDefinition, resolveApiKey } from "../llm/registry.ts";
import { safeHead } from "../util/text.ts";
import type { CompletedBatch } from "./session/session-options.ts";

export const SUMMARY_PURPOSE: Purpose = "tool_use_summary";
/** Each field of the request (intent, a tool's input, a tool's output) is cut to this many characters. */
export const SUMMARY_FIELD_CHARS = 300;
/** Hard cap on a label, in characters (the prompt asks for ~30; the margin covers CJK). */
export const SUMMARY_MAX_CHARS = 100;
export const SUMMARY_MAX_OUTPUT_TOKENS = 40;
export const SUMMARY_TEMPERATURE = 0.2;
export const SUMMARY_TIMEOUT_MS = 30_000;
/** The prompt is a few thousand characters at most; a small window keeps a local fast model light (Ollama num_ctx). */
export const SUMMARY_CONTEXT_WINDOW = 4096;

export const SUMMARY_SYSTEM_PROMPT = [
  "You label batches of tool calls made by a coding assistant.",
  "Reply with a single line: a past-tense label in the style of a git commit subject, at most 30 characters,",
  "naming the most distinctive thing that was done (a file, a function, a command, a search term).",
  "No quotes, no list markers, no trailing period, no explanation.",
  "Examples: Read config and fixed port check | Searched for auth handlers | Ran the unit tests",
].join("\n");

export type BatchCall = CompletedBatch["calls"][number];

// ---------------------------------------------------------------------------------------------------------
// Cleaning the model's reply

const QUOTES = new Set(['"', "'", "`", "“", "”", "‘", "’"]);
const LABEL_PREFIX = /^(?:label|summary|result|output)\s*:\s*/i;
const ERROR_SHAPE = /^(?:api error\b|error:|i cannot\b|i can['’]t\b|unable to\b)/i;

/**
 * Turns a model reply into a label, or "" for no label: first line; list prefix (`-`, `*`, `•`) removed;
 * up to 10 wrapping quotes/backticks removed; `Label:`/`Summary:`/`Result:`/`Output:` removed; error-shaped
 * replies (`API error`, `Error:`, `I cannot`, `I can't`, `Unable to`) rejected; at most 100 characters
 * (code points, so a cut never splits a character).
 */
export function cleanSummary(raw: string): string {
  let s = (raw.trim().split(/\r?\n/)[0] ?? "").trim();
  s = s.replace(/^(?:[-*](?:\s+|$)|•\s*)/, "").trim();
  s = stripWrappingQuotes(s);
  const unprefixed = s.replace(LABEL_PREFIX, "").trim();
  // Quotes often sit inside the prefix: `Label: "Read config"`.
  if (unprefixed !== s) s = stripWrappingQuotes(unprefixed);
  if (!s || ERROR_SHAPE.test(s)) return "";
  const chars = Array.from(s);
  return chars.length > SUMMARY_MAX_CHARS ? chars.slice(0, SUMMARY_MAX_CHARS).join("").trimEnd() : s;
}

/** Removes matching runs (at most 10) of quotes/backticks from both ends: `"x"` → x, `Searched "foo"` stays. */
function stripWrappingQuotes(s: string): string {
  let lead = 0;
  while (lead < 10 && lead < s.length && QUOTES.has(s[lead]!)) lead++;
  if (lead === s.length) return "";
  let trail = 0;
  while (trail < 10 && trail < s.length - lead && QUOTES.has(s[s.length - 1 - trail]!)) trail++;
  const n = Math.min(lead, trail);
  return n ? s.slice(n, s.length - n).trim() : s;
}

// ---------------------------------------------------------------------------------------------------------
// Fixed labels for trivial single calls

function strArg(args: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = args?.[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return undefined;
}

/** A label for a batch of exactly one successful trivial call, without asking a model; else undefined. */
export function trivialLabel(calls: readonly BatchCall[]): string | undefined {
  if (calls.length !== 1) return undefined;
  const c = calls[0]!;
  let label: string | undefined;
  switch (c.name) {
    case "read": {
      const p = strArg(c.args, "path", "file_path", "file", "filename");
      if (p) label = `Read ${p}`;
      break;
    }
    case "glob": {
      const pattern = strArg(c.args, "pattern");
      const dir = strArg(c.args, "path");
      if (pattern) label = `Listed files matching ${pattern}${dir && dir !== "." ? ` in ${dir}` : ""}`;
      break;
    }
    case "tree": {
      const dir = strArg(c.args, "path");
      label = !dir || dir === "." || dir === "./" ? "Listed the project tree" : `Listed ${dir.endsWith("/") ? dir : `${dir}/`}`;
      break;
    }
    case "search": {
      const pattern = strArg(c.args, "pattern", "query");
      const dir = strArg(c.args, "path");
      if (pattern) label = `Searched for "${pattern}"${dir && dir !== "." ? ` in ${dir}` : ""}`;
      break;
    }
    default:
      return undefined;
  }
  if (!label) return undefined;
  const chars = Array.from(label);
  return chars.length > SUMMARY_MAX_CHARS ? `${chars.slice(0, SUMMARY_MAX_CHARS - 1).join("")}…` : label;
}

// ---------------------------------------------------------------------------------------------------------
// The request

function cut(s: string, n = SUMMARY_FIELD_CHARS): string {
  const flat = s.trim();
  return flat.length > n ? `${safeHead(flat, n)}…` : flat;
}

function inputText(args: Record<string, unknown> | undefined): string {
  try {
    return JSON.stringify(args ?? {});
  } catch {
    return "{}";
  }
}

/** The label request for the successful calls of a batch: no tools, small max tokens, low temperature. */
export function buildSummaryRequest(intent: string, calls: readonly BatchCall[], model: string): LlmRequest {
  const lines: string[] = [];
  const shownIntent = cut(intent);
  lines.push(`Assistant's intent: ${shownIntent || "(not stated)"}`, "", "Tool calls in this batch:");
  calls.forEach((c, i) => {
    lines.push(`${i + 1}. ${cut(c.name)}`, `   Input: ${cut(inputText(c.args))}`, `   Output: ${cut(c.result) || "(empty)"}`);
  });
  lines.push("", "Label:");
  // Qwen3 thinks by default and would spend the whole token budget on it; its soft switch turns that off.
  const system = /qwen3/i.test(model) ? `${SUMMARY_SYSTEM_PROMPT}\n/no_think` : SUMMARY_SYSTEM_PROMPT;
  return {
    model,
    system: [{ text: system }],
    messages: [{ role: "user", content: lines.join("\n") }],
    maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS,
    temperature: SUMMARY_TEMPERATURE,
    purpose: SUMMARY_PURPOSE,
    contextWindow: SUMMARY_CONTEXT_WINDOW,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Gate and fast-model resolution

export type Env = Record<string, string | undefined>;

/** The part of the settings this feature reads. */
export interface SummarySettings {
  /** `PROVIDER:model`, optionally `PROVIDER:model@<http(s) base URL>`, or `{ model, baseUrl }`. */
  fastModel?: string | { model: string; baseUrl?: string | undefined };
  experimental?: { emitToolUseSummaries?: boolean };
}

/** `CHATCLI_EMIT_TOOL_USE_SUMMARIES=0|1|true|false` beats `experimental.emitToolUseSummaries`; default true. */
export function summariesEnabled(env: Env, settings: SummarySettings): boolean {
  const v = env.CHATCLI_EMIT_TOOL_USE_SUMMARIES?.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  return settings.experimental?.emitToolUseSummaries ?? true;
}

export interface FastModelRef {
  providerId: string;
  model: string;
  /** The fast model's own endpoint; when absent it shares the provider's base URL (e.g. OLLAMA_HOST) with the main model. */
  baseUrl?: string;
}

/**
 * `PROVIDER:model` (the model may contain colons: `OLLAMA:qwen3:0.6b`), optionally followed by
 * `@http://host:port` so the fast model can live on another server than the main one of the same provider
 * (two Ollama hosts). Undefined when malformed.
 */
export function parseFastModel(spec: string): FastModelRef | undefined {
  let s = spec.trim();
  let baseUrl: string | undefined;
  const at = s.search(/@https?:\/\//i);
  if (at >= 0) {
    baseUrl = s.slice(at + 1).trim();
    s = s.slice(0, at).trim();
  }
  const i = s.indexOf(":");
  if (i <= 0 || i === s.length - 1) return undefined;
  const providerId = s.slice(0, i).trim().toUpperCase();
  const model = s.slice(i + 1).trim();
  if (!providerId || !model) return undefined;
  return baseUrl ? { providerId, model, baseUrl } : { providerId, model };
}

/**
 * `CHATCLI_FAST_MODEL` beats settings `fastModel`; `CHATCLI_FAST_MODEL_BASE_URL` (then the settings object's
 * `baseUrl`) gives the fast model its own endpoint, appended as the `@url` suffix `parseFastModel` reads.
 */
export function fastModelSpec(env: Env, settings: SummarySettings): string | undefined {
  const fm = settings.fastModel;
  const spec = env.CHATCLI_FAST_MODEL?.trim() || (typeof fm === "string" ? fm.trim() : fm?.model.trim()) || undefined;
  if (!spec) return undefined;
  if (/@https?:\/\//i.test(spec)) return spec;
  const baseUrl = env.CHATCLI_FAST_MODEL_BASE_URL?.trim() || (typeof fm === "object" ? fm.baseUrl?.trim() : undefined);
  return baseUrl ? `${spec}@${baseUrl}` : spec;
}

// ---------------------------------------------------------------------------------------------------------
// The summarizer

export interface SummarizerOptions {
  /** The fast model's provider. Never the main session's binding. */
  provider: LlmProvider;
  providerId: string;
  model: string;
  publish(e: AgentEvent): void;
  onUsage?(usage: Usage, purpose: Purpose, model: string, providerId: string): void;
  log?(msg: string): void;
  /** Subagent sessions never label their batches (their output is aggregated upstream). */
  subagent?: boolean;
  timeoutMs?: number;
}

export class ToolUseSummarizer {
  private readonly pending = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closed = false;

  constructor(private readonly o: SummarizerOptions) {}

  /** Number of label requests in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Session hook. Returns at once; the label (if any) is published later. */
  onBatchCompleted(batch: CompletedBatch): void {
    if (this.closed || this.o.subagent) return;
    const ok = batch.calls.filter((c) => !c.isError);
    if (!ok.length) return;
    const callIds = ok.map((c) => c.id);
    const fixed = trivialLabel(ok);
    if (fixed) {
      this.emit({ type: "tool_use_summary", batchId: batch.batchId, label: fixed, callIds });
      return;
    }
    const controller = new AbortController();
    const done = this.generate(batch.batchId, batch.intent, ok, callIds, controller.signal)
      .catch((err: unknown) => this.log(`tool-use summary ${batch.batchId} failed: ${(err as Error)?.message ?? String(err)}`))
      .finally(() => this.pending.delete(batch.batchId));
    this.pending.set(batch.batchId, { controller, done });
  }

  /** Resolves when every label request started so far (and any started meanwhile) has settled. */
  async whenIdle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending.values()].map((p) => p.done));
  }

  /** Aborts every request in flight; later batches are ignored. */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.controller.abort();
  }

  private async generate(batchId: string, intent: string, calls: BatchCall[], callIds: string[], signal: AbortSignal): Promise<void> {
    const request = buildSummaryRequest(intent, calls, this.o.model);
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? SUMMARY_TIMEOUT_MS);
    const combined = AbortSignal.any([signal, timeout]);
    let text = "";
    for await (const ev of this.o.provider.stream(request, combined)) {
      switch (ev.type) {
        case "text_delta":
          text += ev.text;
          break;
        case "usage":
          this.o.onUsage?.(ev.usage, SUMMARY_PURPOSE, this.o.model, this.o.providerId);
          break;
        case "error":
          this.log(`tool-use summary ${batchId}: ${ev.error.kind}: ${ev.error.message}`);
          return;
        default:
          break;
      }
    }
    if (signal.aborted || this.closed) return;
    const label = cleanSummary(text);
    if (!label) {
      this.log(`tool-use summary ${batchId}: no usable label in ${JSON.stringify(safeHead(text, 120))}`);
      return;
    }
    this.emit({ type: "tool_use_summary", batchId, label, callIds });
  }

  private emit(e: AgentEvent): void {
    try {
      this.o.publish(e);
    } catch (err) {
      this.log(`tool-use summary publish failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private log(msg: string): void {
    this.o.log?.(msg);
  }
}

export interface SummarizerFromConfigOptions {
  env: Env;
  settings: SummarySettings;
  publish(e: AgentEvent): void;
  onUsage?: SummarizerOptions["onUsage"];
  log?(msg: string): void;
  subagent?: boolean;
  fetch?: typeof fetch;
}

/**
 * Builds the summarizer from settings + env, or says why not. The fast model's provider is created through the
 * registry with the same env as the main one. No fast model → no summarizer (never the main model).
 */
export function summarizerFromConfig(o: SummarizerFromConfigOptions): { summarizer: ToolUseSummarizer } | { summarizer: undefined; reason: string } {
  if (o.subagent) return { summarizer: undefined, reason: "subagent session" };
  if (!summariesEnabled(o.env, o.settings)) return { summarizer: undefined, reason: "disabled" };
  const spec = fastModelSpec(o.env, o.settings);
  if (!spec) return { summarizer: undefined, reason: "no fastModel configured" };
  const ref = parseFastModel(spec);
  if (!ref) return { summarizer: undefined, reason: `fastModel "${spec}" is not PROVIDER:model` };
  const def = getProviderDefinition(ref.providerId);
  if (!def) return { summarizer: undefined, reason: `fastModel provider "${ref.providerId}" is unknown` };
  if (def.needsAuth && !resolveApiKey(def, o.env)) return { summarizer: undefined, reason: `fastModel provider ${def.id} has no API key (${def.envKeys.join(" or ")})` };
  let provider: LlmProvider;
  try {
    // Same env (keys, base URLs) but one try: a label retried after backoff would arrive too late to matter.
    // A per-entry base URL overrides the provider's base-URL variable for this provider instance only.
    const env: Env = { ...o.env, MAX_RETRIES: "1" };
    if (ref.baseUrl) env[def.baseUrlEnv] = ref.baseUrl;
    provider = createProvider(def.id, env, o.fetch ?? fetch);
  } catch (err) {
    return { summarizer: undefined, reason: `fastModel provider failed: ${(err as Error)?.message ?? String(err)}` };
  }
  const opts: SummarizerOptions = { provider, providerId: def.id, model: ref.model, publish: o.publish };
  if (o.onUsage) opts.onUsage = o.onUsage;
  if (o.log) opts.log = o.log;
  return { summarizer: new ToolUseSummarizer(opts) };
}
