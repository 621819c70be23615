/**
 * What TuiApp's own modules (key handling, slash commands, the model picker) see of it: its components, its
 * input state and the actions they call back. Built by TuiApp; every property is read live.
 */
import type { CliRenderer, TextareaRenderable } from "@opentui/core";
import type { Op } from "../../protocol/events.ts";
import type { CompletionResult, SlashCommand } from "./completion.ts";
import type { Picker } from "./picker.ts";
import type { PromptHistory } from "./prompt-history.ts";
import type { RewindMenu } from "./rewind-menu.ts";
import type { TranscriptView } from "./transcript-view.ts";
import type { TuiAppOptions } from "./tui-app-options.ts";
import type { ViewInput, ViewState } from "./view-model.ts";
import type { VimState } from "./vim-keys.ts";

/** Keyboard-side state that outlives one key press. */
export interface TuiInputState {
  /** Ctrl+T flipped the display mode's default (expanded in full, collapsed in compact). */
  thinkingToggled: boolean;
  hint: string;
  lastEscAt: number;
  lastCtrlCAt: number;
  /** When the current approval box was drawn (the key guard counts from it). */
  approvalShownAt: number;
  completion: CompletionResult | null;
  completionIndex: number;
  /** Ctrl+R history search in progress. */
  search: { query: string; index: number; match: string } | null;
  /** Vim mode of the prompt editor (vim-mode.ts); null when off. */
  vim: VimState | null;
}

export function initialInputState(): TuiInputState {
  return { thinkingToggled: false, hint: "", lastEscAt: -Infinity, lastCtrlCAt: -Infinity, approvalShownAt: -Infinity, completion: null, completionIndex: 0, search: null, vim: null };
}

export interface TuiInternals {
  readonly opts: TuiAppOptions;
  readonly input: TuiInputState;
  state: ViewState;
  readonly renderer: CliRenderer;
  readonly prompt: TextareaRenderable;
  readonly transcript: TranscriptView | null;
  readonly picker: Picker;
  readonly rewindMenu: RewindMenu | null;
  readonly history: PromptHistory;
  readonly commands: SlashCommand[];
  readonly rewindEscMs: number;
  readonly destroyed: boolean;
  submit(op: Op): void;
  /** Applies and syncs at once. */
  dispatch(input: ViewInput): void;
  quit(code: number): void;
  setPrompt(text: string): void;
  syncNow(): void;
  syncStatus(): void;
  syncCompletion(): void;
  cyclePermissionMode(): void;
  requestRewind(): void;
  onSubmit(): void;
  /** Re-reads the palette everywhere and redraws (after /theme). */
  restyle(): void;
}
