/**
 * The reducer's helpers for what is still moving (view-model.ts): streaming deltas into the live tail, committing
 * the live text and tool batch as transcript items, updating a running call's output, adding a notice after them.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { FRESH_SCAN, scanFinishedBlocks } from "./markdown-blocks.ts";
import { committedGroupItems } from "./summary-labels.ts";
import type { OutputTail } from "../shared/output-tail.ts";
import type { LiveState, ToolCallView, ViewState } from "./view-model.ts";

export function emptyLive(): LiveState {
  return { messageId: null, committedChars: 0, tail: "", thinking: "", tools: null };
}

export function onDelta(state: ViewState, e: Extract<AgentEvent, { type: "message.delta" }>): ViewState {
  let s = state;
  if (s.live.messageId !== e.messageId) {
    s = commitLive(s);
    s = { ...s, live: { ...s.live, messageId: e.messageId, committedChars: 0, tail: "", thinking: "" } };
  } else if (s.live.tools && e.text) {
    s = commitTools(s);
  }
  let thinking = s.live.thinking + (e.thinking ?? "");
  let items = s.items;
  // Deltas carry only what is new (the event schema has no "text so far"): the uncommitted tail is extended by
  // the delta, and the block splitter resumes where it stopped instead of re-scanning the tail.
  const prevTail = s.live.tail;
  const uncommitted = prevTail + (e.text ?? "");
  const from = s.live.scan?.tailLength === prevTail.length ? s.live.scan : FRESH_SCAN;
  // A delta without a line break cannot finish a block: the scan just moves its end (scanning would flatten the
  // tail, a rope, on every chunk).
  const { finished, rest, scan } =
    from !== FRESH_SCAN && !(e.text ?? "").includes("\n")
      ? { finished: [], rest: uncommitted, scan: { ...from, tailLength: uncommitted.length } }
      : scanFinishedBlocks(uncommitted, from);
  let committedChars = s.live.committedChars;
  if (thinking && /\S/.test(uncommitted)) {
    items = [...items, { kind: "thinking", text: thinking }];
    thinking = "";
  }
  if (finished.length) {
    items = items === s.items ? [...items] : items;
    for (const b of finished) {
      committedChars += b.length;
      if (b.trim()) items.push({ kind: "markdown", text: b.trim() });
    }
  }
  return { ...s, items, live: { ...s.live, tail: rest, scan, thinking, committedChars } };
}

export function commitText(s: ViewState): ViewState {
  const items = [...s.items];
  if (s.live.thinking) items.push({ kind: "thinking", text: s.live.thinking });
  if (s.live.tail.trim()) items.push({ kind: "markdown", text: s.live.tail.trim() });
  const committedChars = s.live.committedChars + s.live.tail.length;
  return { ...s, items, live: { ...s.live, tail: "", thinking: "", committedChars } };
}

export function commitTools(s: ViewState): ViewState {
  if (!s.live.tools) return s;
  const { batchId, calls } = s.live.tools;
  return { ...s, items: [...s.items, ...committedGroupItems(s, batchId, calls)], live: { ...s.live, tools: null } };
}

/** Commits everything live: thinking, the answer tail, the tool batch. */
export function commitLive(s: ViewState): ViewState {
  const t = s.live.tail || s.live.thinking ? commitText(s) : s;
  const u = commitTools(t);
  return { ...u, live: { ...u.live, messageId: null, committedChars: 0 } };
}

export function tailOfView(c: ToolCallView): OutputTail {
  return { text: c.output, droppedChars: c.droppedChars ?? 0, droppedLines: c.droppedLines ?? 0 };
}

export function withTail(c: ToolCallView, tail: OutputTail): ToolCallView {
  const { droppedChars: _c, droppedLines: _l, ...rest } = c;
  void _c;
  void _l;
  return tail.droppedChars ? { ...rest, output: tail.text, droppedChars: tail.droppedChars, droppedLines: tail.droppedLines } : { ...rest, output: tail.text };
}

export function updateCall(s: ViewState, callId: string, f: (c: ToolCallView) => ToolCallView): ViewState {
  const tools = s.live.tools;
  if (!tools || !tools.calls.some((c) => c.callId === callId)) return s;
  return { ...s, live: { ...s.live, tools: { ...tools, calls: tools.calls.map((c) => (c.callId === callId ? f(c) : c)) } } };
}

/**
 * A notice goes after what came before it, as in the event order (headless prints it there): the live answer
 * text and a finished tool group are committed first, or "Interrupted." and the pipeline line would be drawn
 * above the block they follow. A group with a call still running stays live (its updates must reach it).
 */
export function addNotice(s: ViewState, level: "info" | "warn" | "error", text: string): ViewState {
  let c = s.live.tail || s.live.thinking ? commitText(s) : s;
  if (c.live.tools && c.live.tools.calls.every((call) => call.status !== "running")) c = commitTools(c);
  return { ...c, items: [...c.items, { kind: "notice", level, text }] };
}
