/**
 * The running subagents as a live group above the prompt (issue 20): one line per child — agent, task, turns,
 * tokens, elapsed, current tool. Shown while any child runs; `/agents` lists every child of the session.
 */
import type { TextChunk } from "@opentui/core";
import { TextAttributes } from "@opentui/core";
import { t } from "../../i18n/i18n.ts";
import { subagentLine } from "../shared/subagent-view.ts";
import { chunk } from "./styled-chunk.ts";
import { colors } from "./theme.ts";
import type { ViewState } from "./view-model.ts";

const MAX_ROWS = 6;

function running(s: ViewState) {
  return (s.subagents ?? []).filter((r) => r.status === "running");
}

export function subagentsRows(s: ViewState): number {
  const n = running(s).length;
  return n ? Math.min(n, MAX_ROWS) + 1 : 0;
}

export function subagentsChunks(s: ViewState, now: number): TextChunk[] {
  const rows = running(s);
  if (!rows.length) return [];
  const all = s.subagents ?? [];
  const out: TextChunk[] = [chunk(`${t("subagents.title", { running: rows.length, total: all.length })}\n`, colors.accent, TextAttributes.BOLD)];
  for (const r of rows.slice(0, MAX_ROWS)) out.push(chunk(`  ▸ ${subagentLine(r, now)}\n`, colors.text));
  return out;
}
