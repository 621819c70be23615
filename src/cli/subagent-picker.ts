/**
 * `/agents` in the TUI (issue 20): a picker over the session's children (running and finished, those of a resumed
 * session too). Picking one offers its own transcript (shown as a notice in the transcript area) and, while it
 * runs, cancelling it alone.
 */
import type { Message } from "../protocol/message.ts";
import { subagentLine, type SubagentRow } from "../ui/shared/subagent-view.ts";
import type { PickerFlow } from "../ui/tui/tui-app-options.ts";
import { t } from "../i18n/i18n.ts";

export interface SubagentPickerSource {
  rows(): readonly SubagentRow[];
  /** The child's conversation: live for a running child, saved for a finished one; undefined when unknown. */
  transcript(agentId: string): readonly Message[] | undefined;
  cancel(agentId: string): boolean;
}

const MARK = { running: "▸", completed: "✓" } as Record<string, string>;
/** A transcript notice is bounded: each message is cut to this many characters. */
const MAX_MESSAGE_CHARS = 2000;

export function subagentPickerFlow(src: SubagentPickerSource): PickerFlow | undefined {
  const rows = src.rows();
  if (!rows.length) return undefined;
  const now = Date.now();
  return {
    title: t("subagents.pickerTitle"),
    items: rows.map((r) => ({ name: `${MARK[r.status] ?? "✗"} ${subagentLine(r, now)}`, value: r.agentId })),
    pick: async (agentId) => {
      const row = src.rows().find((r) => r.agentId === agentId);
      if (!row) return undefined;
      const items = [{ name: t("subagents.showTranscript"), value: "show" }];
      if (row.status === "running") items.push({ name: t("subagents.cancelOne"), value: "cancel" });
      return {
        title: `${row.agent} (${row.agentId})`,
        items,
        pick: async (action) => {
          if (action === "cancel") return { notice: src.cancel(agentId) ? t("subagents.cancelled", { id: agentId }) : t("subagents.notRunning", { id: agentId }) };
          return { notice: transcriptText(row, src.transcript(agentId)) };
        },
      };
    },
  };
}

/** A child's transcript as text: its task, each reply, its tool calls and their results (cut). */
export function transcriptText(row: SubagentRow, messages: readonly Message[] | undefined): string {
  const head = t("subagents.transcriptTitle", { agent: row.agent, id: row.agentId, description: row.description, status: row.status });
  if (!messages?.length) return `${head}\n${t("subagents.noTranscript")}`;
  const lines = messages.map((m) => {
    const body = cut(m.content.trim());
    switch (m.role) {
      case "user":
        return `› ${body}`;
      case "assistant": {
        const calls = (m.toolCalls ?? []).map((c) => `  → ${c.name} ${cut(c.arguments, 200)}`);
        return [body, ...calls].filter(Boolean).join("\n");
      }
      case "tool":
        return `  ⎿ ${m.name}: ${body}`;
      default:
        return body;
    }
  });
  return [head, ...lines.filter(Boolean)].join("\n");
}

function cut(s: string, max = MAX_MESSAGE_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
