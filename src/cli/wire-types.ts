/** What wireSession (wire-session.ts) takes and returns. */
import type { Session } from "../agent/session/session.ts";
import type { SessionWorkspace } from "../store/session-workspace.ts";
import type { PermissionMode } from "../protocol/events.ts";
import type { UsageTracker } from "../llm/usage.ts";
import type { ToolUseSummarizer } from "../agent/summaries.ts";
import type { CheckpointStore } from "../agent/checkpoints.ts";
import type { SessionStore } from "../store/session-store.ts";
import type { SessionRecorder } from "../store/session-recorder.ts";
import type { LoadedSession } from "../store/session-file.ts";
import type { ContextManager } from "../agent/contexts.ts";
import type { SandboxRuntime } from "../sandbox/sandbox.ts";
import type { Extensions } from "../ext/hooks/wire-extensions.ts";
import type { TodoState } from "../agent/todo/todo-state.ts";
import type { BudgetGuard } from "../llm/budget.ts";
import type { InitGuard } from "../agent/init/init-guard.ts";
import type { ExtRuntime } from "../ext/ext-runtime.ts";
import type { McpManager } from "../mcp/runtime/mcp-manager.ts";
import type { MemoryRuntime } from "../memory/runtime.ts";
import type { SubagentRuntime } from "../agent/subagents/subagent-runtime.ts";
import type { K8sSlot } from "./wire-k8s.ts";
import type { Config } from "../config/load-config.ts";
import type { ResolvedModel } from "./resolve-model.ts";
import type { FileAccess } from "../tool/file-access.ts";

export interface WireOptions {
  cfg: Config;
  resolved: ResolvedModel;
  permissionMode: PermissionMode;
  maxTurns?: number;
  interactive: boolean;
  /** Headless: called when an `ask` could not be answered (no terminal). */
  onUnansweredApproval?: (action: string, reason: string, tool: string) => void;
  /** Tool-use summaries (issue 9); false skips them (headless text/json, where nothing shows them). */
  summaries?: boolean;
  /** `--resume`/`--continue`: start from this saved session and keep appending to its file (issue 10). */
  resume?: LoadedSession;
  /** Autosave to `<home>/sessions/` (default true). */
  record?: boolean;
  /** The saved sessions (default: `<home>/sessions/` with the real file system). */
  store?: SessionStore;
  /** `--mcp-config FILE…` and `--strict-mcp-config` (issue 17). */
  mcp?: { configFiles: readonly string[]; strict: boolean };
  /** An editor's file access (ACP fs methods): the main session's read/write/edit go through it (file-access.ts). */
  files?: FileAccess;
}

export interface WiredSession {
  session: Session;
  usage: UsageTracker;
  /** The tool-use labeller, when enabled and a fast model is configured; `whenIdle()` before printing results. */
  summaries: ToolUseSummarizer | undefined;
  workspace: SessionWorkspace | undefined;
  /** Checkpoints and file snapshots of the main session (issue 7), persisted under `<home>/snapshots/<sessionId>/`. */
  checkpoints: CheckpointStore;
  /** Saved sessions (issue 10); `recorder` autosaves this one (undefined when recording is off). */
  store: SessionStore;
  recorder: SessionRecorder | undefined;
  /** The agent's todo list (issue 25). */
  todos: TodoState;
  /** `--max-budget-usd` / maxBudgetUsd, when set. */
  budget: BudgetGuard | undefined;
  /** `/init`: the read-only run that may only write AGENTS.md. */
  initGuard: InitGuard;
  /** Named context sets attached to the system prompt (`/context`). */
  contexts: ContextManager;
  /** The OS sandbox exec runs in (issue 14); `status()` says whether it works here. */
  sandbox: SandboxRuntime;
  /** Hooks and plugins (issue 19); undefined when none are configured. `ext.runtime.end(reason)` before dispose. */
  ext: Extensions | undefined;
  /** Skills, personas and custom commands (issue 18). */
  skills: ExtRuntime;
  /** The MCP servers (issue 17); undefined when none is configured. The caller starts them (`startAll`). */
  mcp: McpManager | undefined;
  /** MCP configuration warnings found while wiring (an invalid entry skipped), for the caller to show. */
  mcpWarnings: string[];
  /** Memory (issue 21): recall, "remember that …"; undefined when `memory.mode` is off. main.ts starts its worker. */
  memory: MemoryRuntime | undefined;
  /** Subagents (issue 20): the children, their scheduler and locks. */
  subagents: SubagentRuntime;
  /** The Kubernetes watch (issue 23): `/watch`, settings `k8s.watch` (the TUI calls start() after its first frame). */
  k8s: K8sSlot;
  dispose(): void;
}
