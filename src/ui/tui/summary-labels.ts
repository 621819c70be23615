/**
 * Where tool-use labels go in the transcript (issue 9). Pure helpers for the view-model reducer.
 *
 * The transcript is append-only within an epoch, so a label can only decorate a group that is not drawn yet:
 * - the label arrives while its group is still live → the group commits with the label in its header
 *   (compact mode) followed by a `summary` item marked `inHeader` (full mode shows it, compact hides it);
 * - the group is already committed during a live session → a standalone `summary` item is appended,
 *   shown in both modes, so a late label is never lost and never shown twice;
 * - restoring (history.replaced or a fresh view, no turn started in this epoch yet: resume, rewind) → the label
 *   is placed right after its group and the epoch is bumped (one redraw; renderers coalesce).
 * Groups are matched by batchId or, for groups rebuilt from history (batchId = first call id), by call ids.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { ToolCallView, TranscriptItem, ViewState } from "./view-model.ts";

type SummaryEvent = Extract<AgentEvent, { type: "tool_use_summary" }>;

function covers(batchId: string, calls: readonly ToolCallView[], e: { batchId: string; callIds: readonly string[] }): boolean {
  return batchId === e.batchId || calls.some((c) => e.callIds.includes(c.callId));
}

export function onToolUseSummary(state: ViewState, e: SummaryEvent): ViewState {
  if (!e.label || state.labels[e.batchId] !== undefined) return state; // a replay of a label already placed
  const labels = { ...state.labels, [e.batchId]: e.label };
  const labelCalls = { ...state.labelCalls, [e.batchId]: [...e.callIds] };
  const live = state.live.tools;
  if (live && covers(live.batchId, live.calls, e)) {
    labels[live.batchId] = e.label;
    return { ...state, labels, labelCalls };
  }
  let idx = -1;
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i]!;
    if (it.kind === "tools" && covers(it.batchId, it.calls, e)) {
      idx = i;
      break;
    }
  }
  if (idx < 0) return { ...state, labels, labelCalls }; // its group is gone (cleared, compacted away)
  const group = state.items[idx] as Extract<TranscriptItem, { kind: "tools" }>;
  if (!state.turnInEpoch) {
    const items = [...state.items];
    items.splice(idx, 1, { ...group, label: e.label }, { kind: "summary", batchId: group.batchId, label: e.label, inHeader: true });
    return { ...state, labels, labelCalls, items, epoch: state.epoch + 1 };
  }
  return { ...state, labels, labelCalls, items: [...state.items, { kind: "summary", batchId: group.batchId, label: e.label, inHeader: false }] };
}

/** The items a live group commits to: the group (with its label, if one arrived) and the label line. */
export function committedGroupItems(state: ViewState, batchId: string, calls: ToolCallView[]): TranscriptItem[] {
  const label = state.labels[batchId];
  if (!label) return [{ kind: "tools", batchId, calls }];
  return [
    { kind: "tools", batchId, calls, label },
    { kind: "summary", batchId, label, inHeader: true },
  ];
}

/** Re-attaches every known label to the groups of a rebuilt transcript (rewind, history.replaced). */
export function attachKnownLabels(items: TranscriptItem[], state: ViewState): TranscriptItem[] {
  const known = Object.entries(state.labelCalls ?? {});
  if (!known.length) return items;
  const out: TranscriptItem[] = [];
  for (const it of items) {
    if (it.kind !== "tools") {
      out.push(it);
      continue;
    }
    const hit = known.find(([batchId, callIds]) => covers(it.batchId, it.calls, { batchId, callIds }));
    const label = hit ? state.labels[hit[0]] : undefined;
    if (!label) {
      out.push(it);
      continue;
    }
    out.push({ ...it, label }, { kind: "summary", batchId: it.batchId, label, inHeader: true });
  }
  return out;
}
