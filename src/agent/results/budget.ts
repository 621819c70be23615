/**
 * Tool-result size budget: per result (`perResultMaxChars`) and per model turn (`turnBudgetChars`, across all
 * results that follow one assistant message, largest first). A cut result's full text goes to the session
 * workspace once and the model gets a head/tail preview naming the file, so nothing a tool produced is lost.
 *
 * Contracts:
 * - Stable across turns and processes: the same result (same call id + same content) maps to the same file
 *   (named by a hash of the content, so a resumed session finds and reuses it) and the very same preview on
 *   every later call, so provider prompt caches keep hitting. The caller keeps one `BudgetState` per session
 *   and directory; the same input message gives the same output object (identity-stable, so token accounting
 *   by identity keeps working when the pipeline is re-run per request over the raw history). An
 *   already-budgeted message (meta.savedPath + preview-sized content, from older session files) is never
 *   re-processed.
 * - The report counts only what is new in this call: a result served from the state is `previewsReused`.
 * - A failed disk write never stops the turn: the preview says so and the function goes on.
 * - Text-protocol feedback (user messages with meta.kind "tool_feedback") is budgeted like tool messages.
 * - Same array back when nothing changed.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message, ToolMessage, UserMessage } from "../../protocol/message.ts";
import { headToLine, tailFromLine } from "../../util/text.ts";
import { countLines, formatChars } from "./content-type.ts";

export interface BudgetConfig {
  /** CHATCLI_TOOL_RESULT_MAX_CHARS */
  perResultMaxChars: number;
  /** CHATCLI_TOOL_RESULT_BUDGET_CHARS */
  turnBudgetChars: number;
  previewHeadChars: number;
  previewTailChars: number;
}

export const DEFAULT_BUDGET_CONFIG: Readonly<BudgetConfig> = {
  perResultMaxChars: 20_000,
  turnBudgetChars: 200_000,
  previewHeadChars: 4_000,
  previewTailChars: 1_000,
};

/** Writes a new file; must fail (code EEXIST) when the path exists. Injected by tests to simulate disks. */
export type ExclusiveWrite = (path: string, text: string) => void;

export interface BudgetOptions extends BudgetConfig {
  /** `<workspace>/tool-results`; undefined when the session has no workspace (nothing can be saved). */
  toolResultsDir: string | undefined;
  state: BudgetState;
  writeFile?: ExclusiveWrite;
}

export interface BudgetReport {
  resultsSeen: number;
  truncatedPerResult: number;
  truncatedPerTurn: number;
  /** New files written this call. */
  filesWritten: number;
  /** Truncations served from the state (same file and preview as an earlier call). */
  previewsReused: number;
  diskFailures: number;
  charsRemoved: number;
  savedPaths: string[];
}

/** Per-session memory that makes previews stable. Create one with `createBudgetState()` and keep it. */
export interface BudgetState {
  byKey: Map<string, SavedResult>;
  byMessage: WeakMap<Message, SavedResult>;
  /** The preview message made for an input message (saved previews only: they do not depend on the limit). */
  outputs: WeakMap<Message, Message>;
}

interface SavedResult {
  path: string;
  preview: string;
  originalChars: number;
  originalLines: number;
}

export function createBudgetState(): BudgetState {
  return { byKey: new Map(), byMessage: new WeakMap(), outputs: new WeakMap() };
}

export function emptyBudgetReport(): BudgetReport {
  return { resultsSeen: 0, truncatedPerResult: 0, truncatedPerTurn: 0, filesWritten: 0, previewsReused: 0, diskFailures: 0, charsRemoved: 0, savedPaths: [] };
}

export function describeBudgetReport(r: BudgetReport): string {
  const n = r.truncatedPerResult + r.truncatedPerTurn;
  if (n === 0) return "";
  const failed = r.diskFailures ? `, ${r.diskFailures} not saved (disk write failed)` : "";
  return `budget: ${n} result${n === 1 ? "" : "s"} truncated, ${formatChars(r.charsRemoved)} moved out of context${failed}`;
}

export type ToolOutputMessage = ToolMessage | UserMessage;

/** Tool results as the model sees them: native tool messages and text-protocol feedback. */
export function isToolOutputMessage(m: Message): m is ToolOutputMessage {
  return m.role === "tool" || (m.role === "user" && m.meta?.kind === "tool_feedback");
}

export function enforceToolResultBudget(history: Message[], opts: BudgetOptions): { messages: Message[]; report: BudgetReport } {
  const report = emptyBudgetReport();
  let out: Message[] | undefined;
  const replace = (i: number, m: Message): void => {
    out ??= history.slice();
    out[i] = m;
  };
  const current = (i: number): Message => (out ?? history)[i]!;

  let group: number[] = [];
  const flush = (): void => {
    if (group.length) enforceTurn(group, current, replace, opts, report);
    group = [];
  };
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "assistant") {
      flush();
      continue;
    }
    if (!isToolOutputMessage(m)) continue;
    report.resultsSeen++;
    group.push(i);
    if (m.content.length > opts.perResultMaxChars && !isFinal(m, opts)) {
      const cut = truncate(m, opts.perResultMaxChars, opts, report);
      replace(i, cut.message);
      if (cut.fresh) report.truncatedPerResult++;
    }
  }
  flush();
  return { messages: out ?? history, report };
}

/** Per-turn pass: truncate the largest results until the turn fits (each cut is floored near preview size). */
function enforceTurn(
  group: number[],
  current: (i: number) => Message,
  replace: (i: number, m: Message) => void,
  opts: BudgetOptions,
  report: BudgetReport,
): void {
  let sum = 0;
  for (const i of group) sum += (current(i) as ToolOutputMessage).content.length;
  if (sum <= opts.turnBudgetChars) return;
  const floor = opts.previewHeadChars + opts.previewTailChars + 200;
  const bySize = group
    .map((i) => ({ i, m: current(i) as ToolOutputMessage }))
    .sort((a, b) => b.m.content.length - a.m.content.length || a.i - b.i);
  for (const { i, m } of bySize) {
    if (sum <= opts.turnBudgetChars) break;
    if (isFinal(m, opts)) continue;
    const len = m.content.length;
    const target = Math.max(len - (sum - opts.turnBudgetChars), floor);
    if (target >= len) continue;
    const cut = truncate(m, target, opts, report);
    replace(i, cut.message);
    if (cut.fresh) report.truncatedPerTurn++;
    sum -= len - cut.message.content.length;
  }
}

/** Already a budget preview (or compacted): never cut again, so repeated passes are no-ops. */
function isFinal(m: ToolOutputMessage, cfg: BudgetConfig): boolean {
  const meta = m.meta;
  if (!meta) return false;
  if (meta.compacted) return true;
  // A preview written when saving failed: cutting it again would save the preview as if it were the output.
  if (meta.savedPath === undefined && meta.originalChars !== undefined && UNSAVED_NOTE.test(m.content)) return true;
  return meta.savedPath !== undefined && m.content.length <= cfg.previewHeadChars + cfg.previewTailChars + meta.savedPath.length + 200;
}

/** The cut form of `m`; `fresh` is false when it is the very object an earlier call made (not reported again). */
function truncate<M extends ToolOutputMessage>(m: M, limit: number, opts: BudgetOptions, report: BudgetReport): { message: M; fresh: boolean } {
  const known = opts.state.outputs.get(m) as M | undefined;
  if (known) {
    report.previewsReused++;
    return { message: known, fresh: false };
  }
  const content = m.content;
  const saved = savedResultFor(m, opts, report);
  report.charsRemoved += content.length;
  if (saved) {
    report.charsRemoved -= saved.preview.length;
    report.savedPaths.push(saved.path);
    const message: M = { ...m, content: saved.preview, meta: { ...m.meta, savedPath: saved.path, originalChars: saved.originalChars, originalLines: saved.originalLines } };
    opts.state.outputs.set(m, message);
    return { message, fresh: true };
  }
  report.diskFailures++;
  const why = opts.toolResultsDir === undefined ? "no session workspace" : "disk write failed";
  const text = unsavedPreview(content, limit, why);
  report.charsRemoved -= text.length;
  return { message: { ...m, content: text, meta: { ...m.meta, originalChars: m.meta?.originalChars ?? content.length, originalLines: m.meta?.originalLines ?? countLines(content) } }, fresh: true };
}

/** The saved file + preview for this result: from the state when seen before, else written now. */
function savedResultFor(m: ToolOutputMessage, opts: BudgetOptions, report: BudgetReport): SavedResult | undefined {
  const { state } = opts;
  const known = state.byMessage.get(m);
  if (known) {
    report.previewsReused++;
    return known;
  }
  const content = m.content;
  const meta = m.meta;
  // The tool layer already saved the full output (its own cap cut it): point at that file, write nothing.
  if (meta?.savedPath) {
    const preview = buildPreview(content, meta.savedPath, opts, meta.originalChars);
    const r = { path: meta.savedPath, preview, originalChars: meta.originalChars ?? content.length, originalLines: meta.originalLines ?? countLines(content) };
    state.byMessage.set(m, r);
    return r;
  }
  const callId = m.role === "tool" ? m.toolCallId : "feedback";
  const key = `${callId}\u0000${content.length}\u0000${Bun.hash(content).toString(36)}`;
  const cached = state.byKey.get(key);
  if (cached) {
    report.previewsReused++;
    state.byMessage.set(m, cached);
    return cached;
  }
  if (opts.toolResultsDir === undefined) return undefined;
  const saved = writeAddressed(opts.toolResultsDir, `budget_${safeFileId(callId)}_${Bun.hash(content).toString(36)}`, content, opts.writeFile ?? exclusiveWrite);
  if (!saved) return undefined;
  const { path } = saved;
  if (saved.written) report.filesWritten++;
  const r = { path, preview: buildPreview(content, path, opts), originalChars: content.length, originalLines: countLines(content) };
  state.byKey.set(key, r);
  state.byMessage.set(m, r);
  return r;
}

/**
 * `<stem>.txt` named by the content's hash: a file already there with the same size is this content, saved by
 * an earlier call or process (a resumed session), and is reused; one of another size (a hash collision or a
 * stranger's file) moves on to `<stem>_2.txt`, …; any other error is a failure.
 */
function writeAddressed(dir: string, stem: string, content: string, write: ExclusiveWrite): { path: string; written: boolean } | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  const bytes = Buffer.byteLength(content);
  for (let n = 1; n <= 100; n++) {
    const path = join(dir, n === 1 ? `${stem}.txt` : `${stem}_${n}.txt`);
    try {
      write(path, content);
      return { path, written: true };
    } catch (e) {
      if (errorCode(e) !== "EEXIST") return undefined;
      if (sizeOf(path) === bytes) return { path, written: false };
    }
  }
  return undefined;
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * Head (cut back to its last newline) + marker + tail (cut forward past its first newline). The cuts only
 * move when the newline is in the outer half, so a single huge line still shows something.
 */
export function buildPreview(content: string, path: string, cfg: Pick<BudgetConfig, "previewHeadChars" | "previewTailChars">, originalChars?: number): string {
  const head = headToLine(content, cfg.previewHeadChars);
  let tail = tailFromLine(content, cfg.previewTailChars);
  if (content.length - tail.length < head.length) tail = "";
  const total = Math.max(originalChars ?? content.length, content.length);
  const omitted = total - head.length - tail.length;
  return `${head}\n\n... [${omitted} chars omitted — full output saved to ${path}]\n\n${tail}`;
}

const UNSAVED_NOTE = /\] \[output truncated — [^\]]+\]$/;

/** When nothing could be saved: keep as much head as fits in `limit`, then say what happened. */
function unsavedPreview(content: string, limit: number, why: string): string {
  const note = (omitted: number): string => `\n\n... [${omitted} chars omitted] [output truncated — ${why}]`;
  const head = headToLine(content, Math.max(0, limit - note(content.length).length));
  return head + note(content.length - head.length);
}

/**
 * A call id as a file-name fragment valid on every OS: `: / \ * ? " < > |`, control chars, spaces and dots
 * become `_`, and the length is capped (ids are model-made and may be long).
 */
export function safeFileId(id: string): string {
  const cleaned = id.replace(/[:/\\*?"<>|\s.\u0000-\u001f\u007f]/g, "_").slice(0, 64);
  return cleaned === "" ? "call" : cleaned;
}

/**
 * For the tools layer, when a tool's own cap cuts its output: saves the full text under
 * `<tool-results>/overflow_<id>_<hash>.txt` and returns the path (undefined when it could not be saved).
 * Content-addressed, so saving the same output twice returns the same path.
 */
export function saveOverflow(workspace: string | { toolResultsDir: string }, callId: string, fullText: string): string | undefined {
  const dir = typeof workspace === "string" ? workspace : workspace.toolResultsDir;
  const path = join(dir, `overflow_${safeFileId(callId)}_${Bun.hash(fullText).toString(36)}.txt`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined; // also EEXIST: the dir is a file
  }
  try {
    exclusiveWrite(path, fullText);
    return path;
  } catch (e) {
    return errorCode(e) === "EEXIST" ? path : undefined;
  }
}

function exclusiveWrite(path: string, text: string): void {
  writeFileSync(path, text, { flag: "wx", mode: 0o600 });
}

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined;
}
