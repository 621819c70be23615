/**
 * Progressive microcompaction of old tool results, by age in model turns (assistant messages anywhere in the
 * history, whether inside one agent run or across user prompts). No model call, pure and deterministic.
 *
 * - age < truncateTurns (the current and previous turn by default): untouched;
 * - truncateTurns ≤ age < summarizeTurns: head + tail with a marker;
 * - age ≥ summarizeTurns: a one-line stub (`[Old tool result cleared — 450 lines, 28K chars, Go source]`).
 * Only results whose ORIGINAL size (meta.originalChars, else the content) exceeds `minContentChars`: deciding
 * by the current size would let the truncated form fall under the floor and never reach the summary band.
 * Kept whole: error results, write/edit/exec tools (they carry details the model needs), verbatim messages.
 * When the full text was saved to disk (meta.savedPath), the marker and the stub keep that path.
 * Idempotent: a message is never compacted twice into the same band (meta.compacted records the band).
 * With a `memo` (one per session), the same input message in the same band gives the same output object on
 * every call, and only first-time changes are counted in the report.
 */
import type { Message, MessageMeta } from "../../protocol/message.ts";
import { headToLine, tailFromLine } from "../../util/text.ts";
import { isToolOutputMessage, type ToolOutputMessage } from "./budget.ts";
import { countLines, detectContentType, formatChars } from "./content-type.ts";

export interface MicrocompactConfig {
  /** CHATCLI_MICROCOMPACT_TRUNCATE_TURNS */
  truncateTurns: number;
  /** CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS */
  summarizeTurns: number;
  /** CHATCLI_MICROCOMPACT_HEAD_CHARS */
  headChars: number;
  /** CHATCLI_MICROCOMPACT_TAIL_CHARS */
  tailChars: number;
  /** CHATCLI_MICROCOMPACT_MIN_CONTENT */
  minContentChars: number;
}

export const DEFAULT_MICROCOMPACT_CONFIG: Readonly<MicrocompactConfig> = {
  truncateTurns: 2,
  summarizeTurns: 4,
  headChars: 2_000,
  tailChars: 500,
  minContentChars: 3_000,
};

/** Tools whose results are never compacted (lower-cased, a leading `@` ignored). */
export const MICROCOMPACT_EXEMPT_TOOLS: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "exec",
  "write_file",
  "edit_file",
  "bash",
  "shell",
  "run_command",
]);

export interface MicrocompactReport {
  truncated: number;
  summarized: number;
  charsFreed: number;
}

export function describeMicrocompactReport(r: MicrocompactReport): string {
  if (r.truncated + r.summarized === 0) return "";
  return `microcompact: ${r.truncated} truncated, ${r.summarized} summarized, ${formatChars(r.charsFreed)} freed`;
}

/** Input message → its compacted form and band, kept across calls. */
export type MicrocompactMemo = WeakMap<Message, { band: "truncated" | "summarized"; message: Message }>;

export function applyMicrocompact(history: Message[], cfg: MicrocompactConfig, memo?: MicrocompactMemo): { messages: Message[]; report: MicrocompactReport } {
  const report: MicrocompactReport = { truncated: 0, summarized: 0, charsFreed: 0 };
  let total = 0;
  for (const m of history) if (m.role === "assistant") total++;
  if (total < cfg.truncateTurns) return { messages: history, report };

  let out: Message[] | undefined;
  let turn = 0;
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "assistant") {
      turn++;
      continue;
    }
    const age = total - turn;
    if (age < cfg.truncateTurns || !isToolOutputMessage(m) || isExempt(m)) continue;
    const band = age >= cfg.summarizeTurns ? "summarized" : "truncated";
    const done = m.meta?.compacted;
    if (done === "summarized" || done === band) continue;
    if ((m.meta?.originalChars ?? m.content.length) <= cfg.minContentChars && !imagesOf(m)) continue;
    const known = memo?.get(m);
    if (known?.band === band) {
      out ??= history.slice();
      out[i] = known.message;
      continue;
    }
    const next = band === "summarized" ? summarize(m) : truncateOld(m, cfg);
    if (!next) continue;
    memo?.set(m, { band, message: next });
    out ??= history.slice();
    out[i] = next;
    report[band]++;
    report.charsFreed += m.content.length - next.content.length;
  }
  return { messages: out ?? history, report };
}

function isExempt(m: ToolOutputMessage): boolean {
  if (m.meta?.verbatim) return true;
  if (m.role !== "tool") return false;
  if (m.isError) return true;
  return MICROCOMPACT_EXEMPT_TOOLS.has(m.name.toLowerCase().replace(/^@/, ""));
}

/** Stats of the text before any cut, so later bands describe the real output, not a preview of it. */
function originalMeta(m: ToolOutputMessage, compacted: "truncated" | "summarized"): MessageMeta {
  return {
    ...m.meta,
    originalChars: m.meta?.originalChars ?? m.content.length,
    originalLines: m.meta?.originalLines ?? countLines(m.content),
    compacted,
  };
}

function truncateOld<M extends ToolOutputMessage>(m: M, cfg: MicrocompactConfig): M | undefined {
  const s = m.content;
  if (s.length <= cfg.headChars + cfg.tailChars + 100) return undefined;
  const head = headToLine(s, cfg.headChars);
  const tail = tailFromLine(s, cfg.tailChars);
  const omitted = s.length - head.length - tail.length;
  const where = m.meta?.savedPath ? ` — full output saved to ${m.meta.savedPath}` : "";
  const content = `${head}\n[... ${omitted} chars omitted from old tool result${where} ...]\n${tail}`;
  return { ...m, content, meta: originalMeta(m, "truncated") };
}

function summarize<M extends ToolOutputMessage>(m: M): M {
  const meta = originalMeta(m, "summarized");
  const kind = detectContentType(m.content);
  const where = meta.savedPath ? ` — full output saved to ${meta.savedPath}` : "";
  const count = imagesOf(m);
  const pictures = count ? `, ${count} image(s)` : "";
  const content = `[Old tool result cleared — ${meta.originalLines} lines, ${formatChars(meta.originalChars ?? 0)} chars, ${kind}${pictures}${where}]`;
  // Its images go with its text: they are the costliest part of an old result.
  if (m.images) {
    const { images: _dropped, ...rest } = m;
    return { ...rest, content, meta } as M;
  }
  return { ...m, content, meta };
}

function imagesOf(m: ToolOutputMessage): number {
  return m.images?.length ?? 0;
}
