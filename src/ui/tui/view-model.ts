/**
 * The TUI's pure view model: `reduce(state, event)` turns AgentEvents (and UI-local actions) into ViewState.
 * No OpenTUI here: replaying a session's events through `reduce` rebuilds the screen (resume, snapshot tests).
 *
 * Contract for renderers: `items` is append-only within one `epoch`. A renderer remembers how many items it
 * has drawn; when `epoch` changes (clear, rewind, history.replaced, display-mode switch) it redraws from zero.
 * Everything still moving lives in `live` and is repainted on each sync.
 */
import type { TodoItem } from "../../protocol/todo.ts";
import type { AgentEvent, PermissionMode } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import { assertNever } from "../../protocol/assert-never.ts";
import { foldSubagent, type SubagentRow } from "../shared/subagent-view.ts";
import type { BlockScan } from "./markdown-blocks.ts";
import { attachKnownLabels, onToolUseSummary } from "./summary-labels.ts";
import { foldK8sFindings, type K8sStatus } from "./k8s-status.ts";
import { addNotice, commitLive, commitText, commitTools, emptyLive, onDelta, tailOfView, updateCall, withTail } from "./commit-live.ts";
import { t } from "../../i18n/i18n.ts";
import { appendTail, tailOf } from "../shared/output-tail.ts";
import { toolErrorLine, toolResultForPeople } from "../shared/tool-error-line.ts";
import { compactionLine } from "../shared/compaction-line.ts";
import { callTitle, canonicalToolName } from "../../tool/registry.ts";
import { SUMMARY_MARKER } from "../../agent/compaction/summarize.ts";
import { QUOTES_HEADING } from "../../agent/compaction/blocks.ts";

export type DisplayMode = "full" | "compact";

export interface ToolCallView {
  callId: string;
  name: string;
  title: string;
  /** Live output (exec) while running, the result once completed: only its last 64 KB (output-tail.ts). */
  output: string;
  /** Lines of the output before `output` that are not kept. */
  droppedLines?: number;
  /** Chars of the output before `output` that are not kept. */
  droppedChars?: number;
  status: "running" | "ok" | "error";
  durationMs?: number;
  /** A `!` command the user ran: its output is shown at length, in every display mode. */
  full?: boolean;
}

export type TranscriptItem =
  | { kind: "user"; text: string }
  | { kind: "markdown"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "tools"; batchId: string; calls: ToolCallView[]; label?: string }
  /** `inHeader`: the group was committed with this label in its header, so compact mode hides this line. */
  | { kind: "summary"; batchId: string; label: string; inHeader?: boolean }
  | { kind: "notice"; level: "info" | "warn" | "error"; text: string };

export interface LiveState {
  messageId: string | null;
  /** Chars of the current message (the deltas so far) already committed as markdown items. */
  committedChars: number;
  /** The uncommitted tail of the answer being streamed. */
  tail: string;
  /** Where the block splitter stopped in `tail` (valid while scan.tailLength === tail.length). */
  scan?: BlockScan;
  thinking: string;
  tools: { batchId: string; calls: ToolCallView[] } | null;
}

/** The approval being asked: the protocol's `approval.requested` event without its type. */
export type PendingApproval = Omit<Extract<AgentEvent, { type: "approval.requested" }>, "type">;

export interface StatusState {
  provider: string;
  model: string;
  contextTokens: number;
  contextWindow: number;
  /** USD so far; undefined until a priced call happened (local/unknown models have no price: no cost shown). */
  costUsd: number | undefined;
  /** The fallback entry serving instead of provider/model (`PROVIDER:model`, from provider.switched); unset while the primary serves. */
  serving?: string;
  running: boolean;
  /** Clock time the running turn started (ms), for the elapsed counter. */
  turnStartedAt: number | null;
  permissionMode: PermissionMode;
  /** The active persona (`/agent NAME`), shown in the status line. */
  persona?: string;
  gitBranch?: string;
  /** Shown when commands are not sandboxed ("sandbox off", "no sandbox"); unset when they are. */
  sandbox?: string;
  totalInputTokens: number;
  totalOutputTokens: number;
  /** `--max-budget-usd` / maxBudgetUsd: the status line shows the spend against it. */
  budgetUsd?: number;
  /** The Kubernetes watch (issue 23), while one is active: the status-line segment. */
  k8s?: K8sStatus;
  /** `chatcli connect`: "connected to host:port" / "reconnecting…". */
  connection?: string;
}

export interface ViewState {
  epoch: number;
  items: TranscriptItem[];
  live: LiveState;
  status: StatusState;
  queue: string[];
  /** An interrupt holds the queue: Enter on an empty prompt sends it, Ctrl+X drops the last. */
  queuePaused?: boolean;
  approval: PendingApproval | null;
  displayMode: DisplayMode;
  /** batchId → label, so compact mode can show labels in group headers. */
  labels: Record<string, string>;
  /** batchId → the call ids a label covers, to find its group again after history.replaced (summary-labels.ts). */
  labelCalls?: Record<string, string[]>;
  /** A turn started in this epoch; until then labels for committed groups are restored in place. */
  turnInEpoch?: boolean;
  lastCheckpointId: string | null;
  /** The agent's todo list (`todo.updated`), drawn above the prompt (todo-panel.ts). */
  todos?: TodoItem[];
  /** `!` alone toggled shell mode: prompt lines run as commands. */
  shellMode?: boolean;
  /** Subagents of the session (issue 20): the live group above the prompt, `/agents`. */
  subagents?: SubagentRow[];
}

/** Actions that come from the UI itself, not from the core. */
export type UiAction =
  | { type: "ui.set_display_mode"; mode: DisplayMode }
  | { type: "ui.notice"; level: "info" | "warn" | "error"; text: string }
  | { type: "ui.clear" }
  | { type: "ui.set_permission_mode"; mode: PermissionMode }
  /** The sandbox probe answered after start: the status-line segment (undefined = commands are contained). */
  | { type: "ui.set_sandbox"; label: string | undefined }
  /** The live session's meter, applied after a resumed transcript was replayed (its figures are from then). */
  | { type: "ui.set_context"; tokens: number; window: number }
  | { type: "ui.set_shell_mode"; on: boolean }
  /** A remote session's connection changed (the status-line label). */
  | { type: "ui.set_connection"; label: string };

export type ViewInput = AgentEvent | UiAction;

export interface InitialViewOptions {
  provider: string;
  model: string;
  permissionMode: PermissionMode;
  displayMode: DisplayMode;
  gitBranch?: string;
  sandbox?: string;
  contextWindow?: number;
  /** What the first request will carry (system prompt + tools), shown before any turn. */
  contextTokens?: number;
  budgetUsd?: number;
}

export function initialViewState(o: InitialViewOptions): ViewState {
  return {
    epoch: 0,
    items: [],
    live: emptyLive(),
    status: {
      provider: o.provider,
      model: o.model,
      contextTokens: o.contextTokens ?? 0,
      contextWindow: o.contextWindow ?? 0,
      costUsd: undefined,
      running: false,
      turnStartedAt: null,
      permissionMode: o.permissionMode,
      gitBranch: o.gitBranch,
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      totalInputTokens: 0,
      totalOutputTokens: 0,
      ...(o.budgetUsd ? { budgetUsd: o.budgetUsd } : {}),
    },
    queue: [],
    approval: null,
    displayMode: o.displayMode,
    labels: {},
    lastCheckpointId: null,
  };
}

/** `now` stamps turn starts; pass the renderer clock in the app, anything fixed in tests. */
export function reduce(state: ViewState, input: ViewInput, now = 0): ViewState {
  // A subagent's own tool calls (issue 20) are not the main transcript's; the live group shows them.
  if ((input.type === "tool.started" || input.type === "tool.completed") && input.agentId) return state;
  switch (input.type) {
    case "session.started":
      return { ...state, status: { ...state.status, provider: input.provider, model: input.model } };
    case "turn.started": {
      const s = commitLive(state);
      return {
        ...s,
        items: input.input ? [...s.items, { kind: "user", text: input.input }] : s.items,
        status: { ...s.status, running: true, turnStartedAt: now },
        turnInEpoch: true,
      };
    }
    case "message.delta":
      return onDelta(state, input);
    case "message.completed": {
      if (input.message.role !== "assistant") return state;
      const text = input.message.content;
      const s = state.live.messageId === input.messageId ? state : commitLive(state);
      const rest = state.live.messageId === input.messageId ? text.slice(s.live.committedChars) : text;
      const items = [...s.items];
      if (s.live.thinking) items.push({ kind: "thinking", text: s.live.thinking });
      if (rest.trim()) items.push({ kind: "markdown", text: rest.replace(/\s+$/, "") });
      return { ...s, items, live: { ...s.live, messageId: null, committedChars: 0, tail: "", thinking: "" } };
    }
    case "tool.started": {
      let s = state;
      if (s.live.tail || s.live.thinking) s = commitText(s);
      if (s.live.tools && s.live.tools.batchId !== input.batchId) s = commitTools(s);
      // Headed by our tool's name whatever the model called it (`read_file` → Read), as its title begins with it.
      const call: ToolCallView = { callId: input.callId, name: canonicalToolName(input.name), title: input.title, output: "", status: "running" };
      const tools = s.live.tools ?? { batchId: input.batchId, calls: [] };
      return { ...s, live: { ...s.live, tools: { ...tools, calls: [...tools.calls, call] } } };
    }
    case "tool.updated":
      return updateCall(state, input.callId, (c) => withTail(c, appendTail(tailOfView(c), input.output)));
    case "tool.completed":
      return updateCall(state, input.callId, (c) => ({
        // A result addressed to the model (a denial, "do not retry…") is shown as a short line for a person.
        ...withTail(c, tailOf(toolResultForPeople(input))),
        status: input.isError ? "error" : "ok",
        durationMs: input.durationMs,
        ...(input.details?.typedByUser === true ? { full: true } : {}),
      }));
    case "tool_use_summary":
      return onToolUseSummary(state, input);
    case "approval.requested":
      return {
        ...state,
        approval: { requestId: input.requestId, tool: input.tool, action: input.action, diff: input.diff, reason: input.reason, ...(input.outsideProject ? { outsideProject: input.outsideProject } : {}), ...(input.noAlways ? { noAlways: true } : {}) },
      };
    case "approval.resolved":
      return state.approval?.requestId === input.requestId ? { ...state, approval: null } : state;
    case "pipeline":
      // Issue 5: the one-line repair/budget/microcompact report is shown in every display mode.
      return addNotice(state, "info", input.summary);
    case "compaction": {
      // The meter follows at once: what the next request carries is the compacted history.
      const s = addNotice(state, "info", compactionLine(input));
      return { ...s, status: { ...s.status, contextTokens: input.tokensAfter } };
    }
    case "checkpoint.saved":
      return { ...state, lastCheckpointId: input.checkpointId };
    case "rewound":
      return addNotice(state, "info", t("view.rewound", { mode: input.mode, checkpoint: input.checkpointId }));
    case "retry":
      return addNotice(
        state,
        "warn",
        t("view.retry", { attempt: input.attempt, seconds: (input.delayMs / 1000).toFixed(1), message: input.error.message }),
      );
    case "provider.switched": {
      // The status line names who serves: the fallback entry, or the primary again when the chain goes back to it.
      const s = addNotice(state, "warn", t("view.providerSwitched", { from: input.from, to: input.to, reason: input.reason }));
      const primary = input.to === s.status.provider || input.to === `${s.status.provider}:${s.status.model}`;
      return { ...s, status: { ...s.status, serving: primary ? undefined : input.to } };
    }
    case "model.changed":
      return { ...state, status: { ...state.status, provider: input.provider, model: input.model, serving: undefined, ...(input.contextWindow ? { contextWindow: input.contextWindow } : {}) } };
    case "persona.changed": {
      const { persona: _old, ...rest } = state.status;
      return { ...state, status: input.name ? { ...rest, persona: input.name } : rest };
    }
    case "permission_mode.changed":
    case "ui.set_permission_mode":
      return { ...state, status: { ...state.status, permissionMode: input.mode } };
    case "ui.set_sandbox": {
      const { sandbox: _old, ...rest } = state.status;
      return { ...state, status: input.label ? { ...rest, sandbox: input.label } : rest };
    }
    case "ui.set_context":
      return { ...state, status: { ...state.status, contextTokens: input.tokens, contextWindow: input.window || state.status.contextWindow } };
    case "queue.updated":
      return { ...state, queue: input.items, queuePaused: input.paused === true };
    case "notice":
    case "ui.notice":
      return addNotice(state, input.level, input.text);
    case "error":
      return addNotice(state, "error", input.message);
    case "turn.completed": {
      const s = commitLive(state);
      return {
        ...s,
        status: {
          ...s.status,
          running: false,
          turnStartedAt: null,
          contextTokens: input.contextTokens,
          contextWindow: input.contextWindow || s.status.contextWindow,
          costUsd: input.costUsd ?? s.status.costUsd,
          totalInputTokens: input.totalUsage.inputTokens,
          totalOutputTokens: input.totalUsage.outputTokens,
        },
      };
    }
    case "history.replaced":
      return { ...state, epoch: state.epoch + 1, items: attachKnownLabels(itemsFromHistory(input.messages), state), live: emptyLive(), approval: null, turnInEpoch: false };
    case "session.ended": {
      const s = commitLive(state);
      return { ...s, status: { ...s.status, running: false, turnStartedAt: null } };
    }
    case "todo.updated":
      return { ...state, todos: input.items };
    case "subagent.started":
    case "subagent.progress":
    case "subagent.completed":
      return { ...state, subagents: foldSubagent(state.subagents, input, Date.now()) };
    case "k8s.findings":
      return foldK8sFindings(state, input, now);
    case "ui.set_connection":
      return { ...state, status: { ...state.status, connection: input.label } };
    case "ui.set_shell_mode":
      return { ...state, shellMode: input.on };
    case "ui.set_display_mode":
      return input.mode === state.displayMode ? state : { ...state, displayMode: input.mode, epoch: state.epoch + 1 };
    case "ui.clear":
      return { ...state, epoch: state.epoch + 1, items: [], live: emptyLive(), labels: {}, labelCalls: {}, turnInEpoch: false };
    default:
      return assertNever(input);
  }
}

/** Rebuilds transcript items from a message history (rewind, resume). */
export function itemsFromHistory(messages: readonly Message[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const byId = new Map<string, ToolCallView>();
  for (const m of messages) {
    if (m.role === "user") items.push(...userItems(m));
    else if (m.role === "assistant") {
      if (m.content.trim()) items.push({ kind: "markdown", text: m.content.trim() });
      if (m.toolCalls?.length) {
        const calls = m.toolCalls.map((tc): ToolCallView => {
          const v: ToolCallView = { callId: tc.id, name: canonicalToolName(tc.name), title: callTitle(tc.name, tc.arguments), output: "", status: "ok" };
          byId.set(tc.id, v);
          return v;
        });
        items.push({ kind: "tools", batchId: m.toolCalls[0]?.id ?? "", calls });
      }
    } else if (m.role === "tool") {
      const v = byId.get(m.toolCallId);
      if (v) {
        const line = m.isError ? toolErrorLine({ name: m.name, ...(m.errorCode ? { errorCode: m.errorCode } : {}) }) : undefined;
        Object.assign(v, withTail(v, tailOf(line ?? m.content)));
        v.status = m.isError ? "error" : "ok";
      }
    }
  }
  return items;
}

/**
 * A user-role message as the live transcript showed it: what the user typed; a compaction summary as a titled
 * note (its bookkeeping for the model — quoted requests, the archive path — left out); nothing for what was
 * only ever meant for the model (text-protocol results, injected context, continuation prompts).
 */
function userItems(m: Extract<Message, { role: "user" }>): TranscriptItem[] {
  const kind = m.meta?.kind;
  if (kind === "summary") {
    const view = summaryView(m.content);
    if (!view) return [];
    const head: TranscriptItem = { kind: "notice", level: "info", text: view.header };
    return view.notes ? [head, { kind: "markdown", text: view.notes }] : [head];
  }
  if (kind) return [];
  return [{ kind: "user", text: m.content }];
}

function summaryView(content: string): { header: string; notes: string } | undefined {
  const count = Number(/covering (\d+) earlier messages/.exec(content)?.[1] ?? 0);
  if (content.startsWith(SUMMARY_MARKER)) {
    const body = content.slice(content.indexOf("\n") + 1);
    // The notes end where the bookkeeping starts, or where compaction itself cut the summary short.
    const end = [body.indexOf(QUOTES_HEADING), body.indexOf("The full original "), body.indexOf("\n\n... [")].filter((i) => i >= 0);
    const notes = (end.length ? body.slice(0, Math.min(...end)) : body).trim();
    return { header: t("view.summaryHeader", { count }), notes };
  }
  const dropped = Number(/^\[CONTEXT TRUNCATED: (\d+) earlier message/.exec(content)?.[1] ?? 0);
  if (dropped) return { header: t("view.truncatedHeader", { count: dropped }), notes: "" };
  return undefined;
}
