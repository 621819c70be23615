/**
 * Tool-call ↔ tool-result pairing repair. Providers reject a history where a call has no result (or a result
 * has no call), so this runs before every model call, on the persistent history (saved sessions get repaired).
 *
 * Pairing is positional: an assistant message's calls are answered by the tool messages that follow it, up to
 * the next assistant message. A global id map is wrong because some providers reuse ids every turn
 * (`web_fetch:0`). Contract: a valid history comes back as the very same array; the output is always valid,
 * so a second pass is a no-op.
 */
import { toolResultMessage, type AssistantMessage, type Message, type ToolCall, type ToolMessage } from "../../protocol/message.ts";

/** Model-facing text of a result injected for a call that never got one. */
export const SYNTHETIC_TOOL_RESULT_CONTENT =
  "[Tool result missing — the tool execution was interrupted or failed silently. Do NOT retry this tool call. Analyze what went wrong and try a different approach.]";
export const MISSING_RESULT_ERROR_CODE = "missing_result";

export interface PairingReport {
  syntheticResultsInjected: number;
  orphanResultsRemoved: number;
  /** Calls dropped from an assistant message: intra-message duplicates plus empty ids. */
  duplicateCallsPruned: number;
  emptyIdCallsDropped: number;
  /** Results moved back next to their call from behind an interposed non-tool message. */
  resultsRelocated: number;
  missingToolCallIds: string[];
  orphanToolResultIds: string[];
}

export interface PairingOutcome {
  messages: Message[];
  report: PairingReport;
}

export function emptyPairingReport(): PairingReport {
  return {
    syntheticResultsInjected: 0,
    orphanResultsRemoved: 0,
    duplicateCallsPruned: 0,
    emptyIdCallsDropped: 0,
    resultsRelocated: 0,
    missingToolCallIds: [],
    orphanToolResultIds: [],
  };
}

export function hasPairingRepairs(r: PairingReport): boolean {
  return r.syntheticResultsInjected + r.orphanResultsRemoved + r.duplicateCallsPruned + r.resultsRelocated > 0;
}

/** One line for the UI/log, or "" when nothing was repaired. */
export function describePairingReport(r: PairingReport): string {
  const parts: string[] = [];
  if (r.syntheticResultsInjected) parts.push(`${r.syntheticResultsInjected} missing result${plural(r.syntheticResultsInjected)} closed`);
  if (r.orphanResultsRemoved) parts.push(`${r.orphanResultsRemoved} orphan result${plural(r.orphanResultsRemoved)} removed`);
  if (r.duplicateCallsPruned) parts.push(`${r.duplicateCallsPruned} invalid call${plural(r.duplicateCallsPruned)} pruned`);
  if (r.resultsRelocated) parts.push(`${r.resultsRelocated} result${plural(r.resultsRelocated)} moved`);
  return parts.length ? `pairing: ${parts.join(", ")}` : "";
}

/** True when the history needs no repair (every call answered by its adjacent block, no orphans). */
export function validateToolResultPairing(history: readonly Message[]): boolean {
  let i = 0;
  while (i < history.length) {
    const m = history[i]!;
    if (m.role === "tool") return false; // not consumed by a preceding block
    i++;
    if (m.role !== "assistant" || !m.toolCalls || m.toolCalls.length === 0) continue;
    const wanted = new Set<string>();
    for (const c of m.toolCalls) {
      if (c.id === "" || wanted.has(c.id)) return false;
      wanted.add(c.id);
    }
    // The adjacent run of tool messages must be exactly the calls, in any order.
    let matched = 0;
    while (i < history.length) {
      const r = history[i]!;
      if (r.role !== "tool") break;
      if (!wanted.delete(r.toolCallId)) return false; // foreign id, extra or duplicate result
      matched++;
      i++;
    }
    if (matched !== m.toolCalls.length) return false;
  }
  return true;
}

/** Number of calls of the LAST assistant block that still lack a result. */
export function countPendingToolCalls(history: readonly Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== "assistant") continue;
    const calls = m.toolCalls ?? [];
    const answered = new Set<string>();
    for (let j = i + 1; j < history.length; j++) {
      const r = history[j]!;
      if (r.role === "tool") answered.add(r.toolCallId);
    }
    return new Set(calls.map((c) => c.id).filter((id) => !answered.has(id))).size;
  }
  return 0;
}

export function ensureToolResultPairing(history: Message[]): PairingOutcome {
  const report = emptyPairingReport();
  if (validateToolResultPairing(history)) return { messages: history, report };

  const out: Message[] = [];
  const claimed = new Uint8Array(history.length);
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "tool") {
      if (claimed[i]) continue;
      report.orphanResultsRemoved++;
      report.orphanToolResultIds.push(m.toolCallId);
      continue;
    }
    if (m.role !== "assistant" || !m.toolCalls || m.toolCalls.length === 0) {
      out.push(m);
      continue;
    }
    const calls = pruneInvalidCalls(m.toolCalls, report);
    out.push(calls === m.toolCalls ? m : withCalls(m, calls));
    const found = claimResults(history, i, calls, claimed);
    for (const call of calls) {
      const hit = found.get(call.id);
      if (hit) {
        if (hit.relocated) report.resultsRelocated++;
        out.push(hit.message);
      } else {
        report.syntheticResultsInjected++;
        report.missingToolCallIds.push(call.id);
        out.push(toolResultMessage(call.id, call.name, SYNTHETIC_TOOL_RESULT_CONTENT, true, MISSING_RESULT_ERROR_CODE));
      }
    }
  }
  return hasPairingRepairs(report) ? { messages: out, report } : { messages: history, report };
}

/** Drops empty ids and repeats of an id within one message (first wins). Same array back when all are fine. */
function pruneInvalidCalls(calls: ToolCall[], report: PairingReport): ToolCall[] {
  const seen = new Set<string>();
  let kept: ToolCall[] | undefined;
  calls.forEach((c, idx) => {
    const bad = c.id === "" || seen.has(c.id);
    if (bad) {
      report.duplicateCallsPruned++;
      if (c.id === "") report.emptyIdCallsDropped++;
      kept ??= calls.slice(0, idx);
      return;
    }
    seen.add(c.id);
    kept?.push(c);
  });
  return kept ?? calls;
}

function withCalls(m: AssistantMessage, calls: ToolCall[]): AssistantMessage {
  const { toolCalls: _dropped, ...rest } = m;
  return calls.length ? { ...rest, toolCalls: calls } : rest;
}

/**
 * Claims, for each wanted id, the first unclaimed tool message between `at` and the next assistant message.
 * A claim made after a non-tool message counts as a relocation (the result is moved back next to its call).
 */
function claimResults(
  history: readonly Message[],
  at: number,
  calls: readonly ToolCall[],
  claimed: Uint8Array,
): Map<string, { message: ToolMessage; relocated: boolean }> {
  const wanted = new Set(calls.map((c) => c.id));
  const found = new Map<string, { message: ToolMessage; relocated: boolean }>();
  let interposed = false;
  for (let j = at + 1; j < history.length && found.size < wanted.size; j++) {
    const r = history[j]!;
    if (r.role === "assistant") break;
    if (r.role !== "tool") {
      interposed = true;
      continue;
    }
    if (claimed[j] || !wanted.has(r.toolCallId) || found.has(r.toolCallId)) continue;
    claimed[j] = 1;
    found.set(r.toolCallId, { message: r, relocated: interposed });
  }
  return found;
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}
