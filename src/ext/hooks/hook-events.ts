/**
 * The hook events, in Claude Code's names, and what each one's matcher is matched against. The input every hook
 * receives on stdin (or as the HTTP body) is `CommonInput` plus the event's own fields (snake_case, as Claude Code
 * sends them), so a hook written for Claude Code reads the same JSON here.
 */
export const HOOK_EVENTS = [
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "Stop",
  "PreCompact",
  "Notification",
  "SubagentStart",
  "SubagentStop",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * What the event's `matcher` is compared with: the tool name, the session source/reason, the compaction trigger,
 * the notification type or the agent type. Events without one (UserPromptSubmit, Stop) run every hook listed.
 */
export const MATCHED_FIELD: Record<HookEvent, string | undefined> = {
  SessionStart: "source",
  SessionEnd: "reason",
  UserPromptSubmit: undefined,
  PreToolUse: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name",
  PermissionRequest: "tool_name",
  Stop: undefined,
  PreCompact: "trigger",
  Notification: "notification_type",
  SubagentStart: "agent_type",
  SubagentStop: "agent_type",
};

/** Fields every event carries. `permission_mode` uses Claude Code's names (acceptEdits, bypassPermissions). */
export interface CommonInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode: string;
  hook_event_name: HookEvent;
}

/** The event-specific fields (documented in docs/hooks.md). */
export type EventFields = Record<string, unknown>;

export function claudePermissionMode(mode: string): string {
  if (mode === "accept-edits") return "acceptEdits";
  if (mode === "bypass") return "bypassPermissions";
  return mode;
}
