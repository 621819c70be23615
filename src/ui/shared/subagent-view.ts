/**
 * The children of a session as a UI shows them (issue 20): one row per subagent, folded from `subagent.*` events
 * (live or replayed from a session file), so a resumed session lists the children it had.
 */
import type { AgentEvent } from "../../protocol/events.ts";

export interface SubagentRow {
  agentId: string;
  parentId: string;
  agent: string;
  description: string;
  status: "running" | "completed" | "failed" | "timeout" | "cancelled" | "max_turns";
  turns: number;
  tokens: number;
  currentTool?: string;
  elapsedMs: number;
  /** When the row last changed (for a live elapsed clock). */
  startedAt: number;
}

type SubagentEvent = Extract<AgentEvent, { type: "subagent.started" | "subagent.progress" | "subagent.completed" }>;

export function foldSubagent(rows: readonly SubagentRow[] | undefined, e: SubagentEvent, now: number): SubagentRow[] {
  const list = [...(rows ?? [])];
  const i = list.findIndex((r) => r.agentId === e.agentId);
  if (e.type === "subagent.started") {
    const row: SubagentRow = { agentId: e.agentId, parentId: e.parentId, agent: e.agent, description: e.description, status: "running", turns: 0, tokens: 0, elapsedMs: 0, startedAt: now };
    if (i >= 0) list[i] = row;
    else list.push(row);
    return list;
  }
  if (i < 0) return list;
  const old = list[i]!;
  if (e.type === "subagent.progress") {
    const { currentTool: _drop, ...rest } = old;
    list[i] = { ...rest, turns: e.turns, tokens: e.tokens, elapsedMs: e.elapsedMs, ...(e.currentTool ? { currentTool: e.currentTool } : {}) };
    return list;
  }
  const { currentTool: _gone, ...rest } = old;
  list[i] = { ...rest, status: e.status, turns: e.turns, tokens: e.tokens, elapsedMs: e.durationMs };
  return list;
}

/** One line per child: `agent · task · turns · tokens · elapsed · tool`. */
export function subagentLine(r: SubagentRow, now?: number): string {
  const elapsed = r.status === "running" && now !== undefined ? Math.max(r.elapsedMs, now - r.startedAt) : r.elapsedMs;
  const parts = [`${r.agent} (${r.agentId})`, r.description, `${r.turns} turns`, `${r.tokens} tok`, `${(elapsed / 1000).toFixed(1)}s`, r.status === "running" ? (r.currentTool ?? "…") : r.status];
  return parts.join(" · ");
}
