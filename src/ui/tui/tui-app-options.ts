/** The TUI controller's options (re-exported by tui-app.ts). */
import type { PermissionMode } from "../../protocol/events.ts";
import type { SessionLike } from "../../protocol/session-like.ts";
import type { SlashCommand } from "./completion.ts";
import type { CheckpointSource } from "./rewind-menu.ts";
import type { DisplayMode } from "./view-model.ts";

export interface ModelChoice {
  provider: string;
  model: string;
  description?: string;
}

export interface TuiAppOptions {
  session: SessionLike;
  provider: string;
  model: string;
  cwd: string;
  inline: boolean;
  permissionMode: PermissionMode;
  /** Prompt history, per project. */
  historyFile: string;
  displayMode: DisplayMode;
  gitBranch?: string;
  /** Status-line segment when commands are not sandboxed ("sandbox off", "no sandbox"). */
  sandbox?: string;
  /** The sandbox probe's answer, when it comes (it never holds up the start): status-line label and a notice. */
  sandboxState?: Promise<{ label?: string; notice?: { level: "info" | "warn"; text: string } }>;
  contextWindow?: number;
  /** The first request's estimated size (system prompt + tools), for the status line before any turn. */
  contextTokens?: number;
  /** `--max-budget-usd` / maxBudgetUsd: the status line shows the spend against it. */
  budgetUsd?: number;
  /** Commands the app does not handle itself; the returned text is shown as a notice. */
  onSlashCommand?(cmd: string, args: string): Promise<string | undefined>;
  /** Esc+Esc on an empty idle prompt, and /rewind (issue 7 opens its menu here). */
  onRewindRequest?(): void;
  /** The session's checkpoints: Esc+Esc and /rewind open the rewind menu over them (takes precedence over onRewindRequest). */
  checkpoints?: CheckpointSource;
  /** Choices for the /model and /provider pickers. */
  listModels?(): Promise<ModelChoice[]>;
  /** Commands answered with a picker (e.g. `/memory` alone): undefined lets onSlashCommand answer instead. */
  onPickerCommand?(cmd: string, args: string): Promise<PickerFlow | undefined>;
  /** Extra slash commands to complete (handled by onSlashCommand). */
  extraCommands?: SlashCommand[];
  /**
   * What arrives after the first frame (skills, personas and custom commands are discovered asynchronously): more
   * slash commands to complete and list, and events to show (skipped files, the persona of `--agent`).
   */
  lateExtras?: Promise<{ commands: SlashCommand[]; events: import("../../protocol/events.ts").AgentEvent[] }>;
  /** Slash commands that come and go while the app runs (MCP server prompts), read at each completion. */
  dynamicCommands?: () => SlashCommand[];
  /** Called once the first frame is on screen and the renderer is idle (background work that must not delay it: MCP servers). */
  afterFirstFrame?: () => void;
  onExit(code: number): void;
  log?(msg: string): void;
  /** Also given each mouse selection copied with OSC 52 (run-tui: the plain OSC 52 tmux turns into a buffer). */
  onCopy?(text: string): void;
  /** Double-Esc window, default CHATCLI_REWIND_ESC_MS or 500. */
  rewindEscMs?: number;
  /** Start the prompt editor in vim mode (settings `editor.vim`). */
  vim?: boolean;
  /** A remote session (`chatcli connect`): the connection's status-line label ("connected to host:port", "reconnecting…"), now and on each change. */
  connection?: { subscribe(listener: (label: string) => void): () => void };
  /** The palette (settings `ui.theme`); run-tui detects the background for `auto`. */
  theme?: "light" | "dark" | "auto";
}

/** A picker a command opens; picking an item leads to another picker, a notice, or text put in the prompt. */
export interface PickerFlow {
  title: string;
  items: Array<{ name: string; value: string }>;
  pick(value: string): Promise<PickerFlow | { notice: string } | { prompt: string } | undefined>;
}
