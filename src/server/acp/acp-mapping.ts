/**
 * The pure half of `chatcli acp`: our AgentEvents and saved history → ACP `session/update`s, approvals → ACP
 * permission options and back, turn stop reasons, prompt content blocks → prompt text, ACP MCP servers → our
 * `--mcp-config` JSON. No I/O: acp-agent.ts owns the connection and the session host.
 */
import { isAbsolute, resolve } from "node:path";
import type { ContentBlock, McpServer, PermissionOption, PlanEntry, RequestPermissionOutcome, SessionUpdate, StopReason, ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { AgentEvent, ApprovalDecision, PermissionMode } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";

/** The modes an editor may switch between. `bypass` is never offered (nor accepted) over ACP. */
export const ACP_MODES = ["default", "accept-edits", "plan"] as const satisfies readonly PermissionMode[];
export type AcpMode = (typeof ACP_MODES)[number];

export function isAcpMode(id: string): id is AcpMode {
  return (ACP_MODES as readonly string[]).includes(id);
}

/** What an ACP client shows for a tool (icons, grouping); an unknown tool (MCP, plugins) is `other`. */
export function toolKind(name: string): ToolKind {
  switch (name) {
    case "read":
      return "read";
    case "write":
    case "edit":
      return "edit";
    case "exec":
      return "execute";
    case "search":
    case "glob":
    case "tree":
      return "search";
    case "fetch":
      return "fetch";
    case "todo":
      return "think";
    default:
      return "other";
  }
}

/** Per-session memory the mapping needs: the calls started and not yet completed (callId → tool name). */
export interface MappingState {
  cwd: string;
  open: Map<string, string>;
}

export function newMappingState(cwd: string): MappingState {
  return { cwd, open: new Map() };
}

type Args = Record<string, unknown>;

function argsOf(raw: unknown): Args {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) return raw as Args;
  if (typeof raw !== "string") return {};
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Args) : {};
  } catch {
    return {};
  }
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function absPath(cwd: string, p: string): string {
  return isAbsolute(p) ? p : resolve(cwd, p);
}

/** The files a call touches (ACP wants absolute paths), for "follow along" in the editor. */
export function toolLocations(name: string, raw: unknown, cwd: string): ToolCallLocation[] {
  const a = argsOf(raw);
  const p = str(a.path) ?? str(a.file_path) ?? str(a.filePath);
  if (!p || name === "exec") return [];
  const line = typeof a.offset === "number" ? a.offset : typeof a.start_line === "number" ? a.start_line : undefined;
  return [{ path: absPath(cwd, p), ...(line !== undefined ? { line } : {}) }];
}

/**
 * The diff an edit shows before it runs, from its arguments: `write` is the whole new text; `edit` each replaced
 * snippet (the file's full text is not read here: the mapping does no I/O).
 */
export function toolDiffs(name: string, raw: unknown, cwd: string): ToolCallContent[] {
  const a = argsOf(raw);
  const p = str(a.path) ?? str(a.file_path) ?? str(a.filePath);
  if (!p) return [];
  const path = absPath(cwd, p);
  if (name === "write" && typeof a.content === "string") return [{ type: "diff", path, oldText: null, newText: a.content }];
  if (name !== "edit") return [];
  const out: ToolCallContent[] = [];
  if (typeof a.old_string === "string" && typeof a.new_string === "string") out.push({ type: "diff", path, oldText: a.old_string, newText: a.new_string });
  for (const e of Array.isArray(a.edits) ? a.edits : []) {
    const ea = argsOf(e);
    if (typeof ea.old_string === "string" && typeof ea.new_string === "string") out.push({ type: "diff", path, oldText: ea.old_string, newText: ea.new_string });
  }
  return out;
}

function text(t: string): ContentBlock {
  return { type: "text", text: t };
}

function textContent(t: string): ToolCallContent {
  return { type: "content", content: text(t) };
}

const PLAN_STATUS = { pending: "pending", in_progress: "in_progress", done: "completed" } as const;

/**
 * One live event → the updates it means for an ACP client. Events with no ACP counterpart (usage, checkpoints,
 * notices, approvals: those are requests, see acp-agent.ts) map to nothing. `turn.started` is the user's own
 * prompt: sent only when replaying (`replay`), never echoed live.
 */
export function eventToUpdates(e: AgentEvent, st: MappingState, replay = false): SessionUpdate[] {
  switch (e.type) {
    case "turn.started":
      return replay ? [{ sessionUpdate: "user_message_chunk", content: text(e.input) }] : [];
    case "message.delta": {
      const out: SessionUpdate[] = [];
      if (e.thinking) out.push({ sessionUpdate: "agent_thought_chunk", content: text(e.thinking) });
      if (e.text) out.push({ sessionUpdate: "agent_message_chunk", content: text(e.text) });
      return out;
    }
    case "tool.started": {
      st.open.set(e.callId, e.name);
      const locations = toolLocations(e.name, e.args, st.cwd);
      const diffs = toolDiffs(e.name, e.args, st.cwd);
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: e.callId,
          title: e.title || e.name,
          kind: toolKind(e.name),
          status: "pending",
          rawInput: e.args,
          ...(locations.length ? { locations } : {}),
          ...(diffs.length ? { content: diffs } : {}),
        },
      ];
    }
    case "tool.updated":
      return st.open.has(e.callId) ? [{ sessionUpdate: "tool_call_update", toolCallId: e.callId, status: "in_progress", content: [textContent(e.output)] }] : [];
    case "tool.completed": {
      st.open.delete(e.callId);
      const diff = typeof e.details?.diff === "string" && e.details.diff ? `\n\n${e.details.diff}` : "";
      return [{ sessionUpdate: "tool_call_update", toolCallId: e.callId, status: e.isError ? "failed" : "completed", content: [textContent(`${e.result}${diff}`)], rawOutput: { result: e.result, ...(e.details ? { details: e.details } : {}) } }];
    }
    case "todo.updated":
      return [{ sessionUpdate: "plan", entries: e.items.map((i): PlanEntry => ({ content: i.content, priority: "medium", status: PLAN_STATUS[i.status] })) }];
    case "permission_mode.changed":
      return isAcpMode(e.mode) ? [{ sessionUpdate: "current_mode_update", currentModeId: e.mode }] : [];
    default:
      return [];
  }
}

/**
 * A saved session's history → the updates that replay it (session/load): user text, assistant text and thinking,
 * each tool call with its result. System messages and our own notes to the model (context, summaries) are skipped.
 */
export function historyToUpdates(history: readonly Message[], cwd: string): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const m of history) {
    if (m.role === "system") continue;
    if (m.role === "user") {
      if (m.meta?.kind && m.meta.kind !== "continuation") continue;
      if (m.content) out.push({ sessionUpdate: "user_message_chunk", content: text(m.content) });
      continue;
    }
    if (m.role === "assistant") {
      if (m.thinking) out.push({ sessionUpdate: "agent_thought_chunk", content: text(m.thinking) });
      if (m.content) out.push({ sessionUpdate: "agent_message_chunk", content: text(m.content) });
      for (const c of m.toolCalls ?? []) {
        const args = argsOf(c.arguments);
        const locations = toolLocations(c.name, args, cwd);
        const diffs = toolDiffs(c.name, args, cwd);
        out.push({ sessionUpdate: "tool_call", toolCallId: c.id, title: c.name, kind: toolKind(c.name), status: "pending", rawInput: args, ...(locations.length ? { locations } : {}), ...(diffs.length ? { content: diffs } : {}) });
      }
      continue;
    }
    out.push({ sessionUpdate: "tool_call_update", toolCallId: m.toolCallId, status: m.isError ? "failed" : "completed", content: [textContent(m.content)] });
  }
  return out;
}

/** The options of a permission request; no "always" when nothing would be remembered (`noAlways`). */
export function permissionOptions(noAlways: boolean, names: Record<"allowOnce" | "allowAlways" | "rejectOnce" | "rejectAlways", string>): PermissionOption[] {
  return [
    { optionId: "allow_once", name: names.allowOnce, kind: "allow_once" },
    ...(noAlways ? [] : [{ optionId: "allow_always", name: names.allowAlways, kind: "allow_always" } as const]),
    { optionId: "reject_once", name: names.rejectOnce, kind: "reject_once" },
    ...(noAlways ? [] : [{ optionId: "reject_always", name: names.rejectAlways, kind: "reject_always" } as const]),
  ];
}

/** The client's answer → our decision. Cancelled, unknown or not offered: deny (fail closed). */
export function decisionFor(outcome: RequestPermissionOutcome | undefined, offered: readonly PermissionOption[]): ApprovalDecision {
  if (!outcome || outcome.outcome !== "selected") return "deny";
  const opt = offered.find((o) => o.optionId === outcome.optionId);
  switch (opt?.kind) {
    case "allow_once":
      return "once";
    case "allow_always":
      return "always";
    case "reject_always":
      return "deny_always";
    default:
      return "deny";
  }
}

/** Our turn's stop reason → ACP's; `error` is not a stop reason (the prompt fails with the error instead). */
export function stopReasonFor(ours: string): StopReason | "error" {
  switch (ours) {
    case "interrupted":
    case "aborted":
      return "cancelled";
    case "max_turns":
      return "max_turn_requests";
    case "content_filter":
      return "refusal";
    case "length":
      return "max_tokens";
    case "error":
      return "error";
    default:
      return "end_turn";
  }
}

/**
 * The prompt's blocks → our prompt text. Text as is; an embedded text resource (the editor's selection, a file)
 * as a fenced block named by its URI; a resource link as `@path` for a file inside reach (our @-mention), else its URI.
 * Images and audio are not accepted (promptCapabilities says so): they become a note.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === "text") parts.push(b.text);
    else if (b.type === "resource") {
      const r = b.resource;
      if ("text" in r) parts.push(`\n${r.uri}:\n\`\`\`\n${r.text}\n\`\`\`\n`);
      else parts.push(`[binary resource ${r.uri} not included]`);
    } else if (b.type === "resource_link") parts.push(b.uri.startsWith("file://") ? `@${decodeURIComponent(new URL(b.uri).pathname)}` : b.uri);
    else parts.push(`[${b.type} not supported by this agent]`);
  }
  return parts.join("\n").trim();
}

const MCP_NAME = /[^A-Za-z0-9_-]/g;

/** ACP's MCP servers → inline `--mcp-config` JSON (undefined when there are none). Names made safe for tool names. */
export function mcpConfigFor(servers: readonly McpServer[]): string | undefined {
  if (!servers.length) return undefined;
  const out: Record<string, unknown> = {};
  for (const s of servers) {
    const name = s.name.replace(MCP_NAME, "_").slice(0, 64) || "server";
    if ("type" in s && (s.type === "http" || s.type === "sse")) {
      out[name] = { type: s.type, url: s.url, ...(s.headers.length ? { headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])) } : {}) };
    } else if ("command" in s) {
      out[name] = { type: "stdio", command: s.command, args: s.args, ...(s.env.length ? { env: Object.fromEntries(s.env.map((v) => [v.name, v.value])) } : {}) };
    }
  }
  return JSON.stringify({ mcpServers: out });
}
