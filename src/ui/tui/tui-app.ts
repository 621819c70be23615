/**
 * The TUI controller: builds the component tree on a renderer (real or test), feeds session events through the
 * pure reducer, syncs the components, and owns the keymap. It never exits the process: quitting calls
 * `onExit(code)` and the caller (runTui, or a test) tears the renderer down.
 */
import {
  BoxRenderable,
  ScrollBoxRenderable,
  StyledText,
  TextRenderable,
  TextareaRenderable,
  type CliRenderer,
  type KeyEvent,
  type TimerHandle,
} from "@opentui/core";
import type { Op, PermissionMode } from "../../protocol/events.ts";
import type { SessionLike } from "../../protocol/session-like.ts";
import { initialViewState, reduce, type DisplayMode, type ViewInput, type ViewState } from "./view-model.ts";
import { TranscriptView, LiveArea } from "./transcript-view.ts";
import { ScrollbackCommitter } from "./scrollback-committer.ts";
import { PromptHistory } from "./prompt-history.ts";
import { BUILTIN_COMMANDS, complete, listProjectFiles, type CompletionResult, type SlashCommand } from "./completion.ts";
import { statusText } from "./status-line.ts";
import { chunk, type RenderFlags } from "./item-chunks.ts";
import { colors, createSyntaxStyle } from "./theme.ts";
import { approvalChunks, decisionForKey } from "./approval-box.ts";
import { Picker, type PickerItem } from "./picker.ts";
import { RewindMenu, type CheckpointSource } from "./rewind-menu.ts";
import { t } from "../../i18n/i18n.ts";
import { DisplayFilter } from "../shared/display-filter.ts";
import { formatCost, formatTokens } from "../../llm/usage.ts";

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
  contextWindow?: number;
  /** The first request's estimated size (system prompt + tools), for the status line before any turn. */
  contextTokens?: number;
  /** Commands the app does not handle itself; the returned text is shown as a notice. */
  onSlashCommand?(cmd: string, args: string): Promise<string | undefined>;
  /** Esc+Esc on an empty idle prompt, and /rewind (issue 7 opens its menu here). */
  onRewindRequest?(): void;
  /** The session's checkpoints: Esc+Esc and /rewind open the rewind menu over them (takes precedence over onRewindRequest). */
  checkpoints?: CheckpointSource;
  /** Choices for the /model and /provider pickers. */
  listModels?(): Promise<ModelChoice[]>;
  /** Extra slash commands to complete (handled by onSlashCommand). */
  extraCommands?: SlashCommand[];
  onExit(code: number): void;
  log?(msg: string): void;
  /** Also given each mouse selection copied with OSC 52 (run-tui: the plain OSC 52 tmux turns into a buffer). */
  onCopy?(text: string): void;
  /** Double-Esc window, default CHATCLI_REWIND_ESC_MS or 500. */
  rewindEscMs?: number;
}

const APPROVAL_GUARD_MS = 250;
const CTRL_C_WINDOW_MS = 2000;
/** Session events are coalesced to one sync per frame at the renderer's targetFps (never more often than this). */
const SYNC_DELAY_MS = 16;
const PERMISSION_CYCLE: PermissionMode[] = ["default", "accept-edits", "plan"];

export class TuiApp {
  state: ViewState;
  readonly prompt: TextareaRenderable;
  readonly transcript: TranscriptView | null;
  private readonly live: LiveArea | null;
  private readonly committer: ScrollbackCommitter | null;
  private readonly root: BoxRenderable;
  private readonly queueText: TextRenderable;
  private readonly approvalBox: BoxRenderable;
  private readonly approvalText: TextRenderable;
  private readonly completionText: TextRenderable;
  private readonly statusLine: TextRenderable;
  private readonly picker: Picker;
  private readonly rewindMenu: RewindMenu | null;
  private readonly history: PromptHistory;
  private readonly commands: SlashCommand[];
  /** Ctrl+T flipped the display mode's default (expanded in full, collapsed in compact). */
  private thinkingToggled = false;
  private syncTimer: TimerHandle | null = null;
  private spinnerTimer: TimerHandle | null = null;
  private spinnerFrame = 0;
  private hint = "";
  private lastEscAt = -Infinity;
  private lastCtrlCAt = -Infinity;
  private approvalShownAt = -Infinity;
  private approvalShownId: string | null = null;
  private completion: CompletionResult | null = null;
  private completionIndex = 0;
  private files: string[] | null = null;
  private search: { query: string; index: number; match: string } | null = null;
  private unsubscribe: () => void;
  private destroyed = false;
  private readonly rewindEscMs: number;
  /** Texts sent with Enter whose turn has not started yet, oldest first. */
  private submittedTexts: string[] = [];
  /** The running turn's typed text while it has produced no answer text (kept for "put the prompt back on failure"). */
  private unanswered: { turnId: string; text: string } | null = null;

  constructor(
    readonly renderer: CliRenderer,
    private readonly opts: TuiAppOptions,
  ) {
    this.state = initialViewState(opts);
    this.history = new PromptHistory(opts.historyFile);
    this.commands = [...BUILTIN_COMMANDS, ...(opts.extraCommands ?? [])];
    const envMs = Number(process.env.CHATCLI_REWIND_ESC_MS);
    this.rewindEscMs = opts.rewindEscMs ?? (Number.isFinite(envMs) && envMs > 0 ? envMs : 500);
    const syntaxStyle = createSyntaxStyle(renderer);

    this.root = new BoxRenderable(renderer, { id: "app", flexDirection: "column", width: "100%", height: "100%" });
    if (opts.inline) {
      this.transcript = null;
      const liveScroll = new ScrollBoxRenderable(renderer, { flexGrow: 1, flexShrink: 1, stickyScroll: true, stickyStart: "bottom" });
      this.live = new LiveArea(renderer, syntaxStyle);
      liveScroll.add(this.live.box);
      this.root.add(liveScroll);
      this.committer = new ScrollbackCommitter(renderer, syntaxStyle, (m) => this.log(m));
    } else {
      this.transcript = new TranscriptView(renderer, syntaxStyle);
      this.live = null;
      this.committer = null;
      this.root.add(this.transcript.scroll);
    }
    this.queueText = new TextRenderable(renderer, { content: "", visible: false, flexShrink: 0, paddingLeft: 1 });
    this.approvalText = new TextRenderable(renderer, { content: "", width: "100%" });
    this.approvalBox = new BoxRenderable(renderer, {
      border: true,
      borderStyle: "rounded",
      borderColor: colors.warn,
      title: t("tui.approvalTitle"),
      visible: false,
      flexShrink: 0,
      paddingLeft: 1,
      paddingRight: 1,
    });
    this.approvalBox.add(this.approvalText);
    this.completionText = new TextRenderable(renderer, { content: "", visible: false, flexShrink: 0, paddingLeft: 2 });
    const promptBox = new BoxRenderable(renderer, {
      border: true,
      borderStyle: "rounded",
      borderColor: colors.border,
      flexShrink: 0,
      flexDirection: "row",
    });
    this.prompt = new TextareaRenderable(renderer, {
      width: "100%",
      height: "auto",
      minHeight: 1,
      maxHeight: 8,
      placeholder: t("tui.placeholder"),
      keyBindings: [
        { name: "return", action: "submit" },
        { name: "return", shift: true, action: "newline" },
        { name: "return", meta: true, action: "newline" },
        { name: "linefeed", action: "newline" },
        { name: "j", ctrl: true, action: "newline" },
      ],
      onSubmit: () => this.onSubmit(),
      onContentChange: () => this.onPromptChanged(),
    });
    promptBox.add(new TextRenderable(renderer, { content: new StyledText([chunk("› ", colors.accent)]), width: 2, flexShrink: 0 }));
    promptBox.add(this.prompt);
    this.statusLine = new TextRenderable(renderer, { content: "", flexShrink: 0, fg: colors.dim, paddingLeft: 1, height: 1 });
    this.root.add(this.queueText);
    this.root.add(this.approvalBox);
    this.root.add(this.completionText);
    this.root.add(promptBox);
    this.root.add(this.statusLine);
    this.picker = new Picker(renderer, () => this.prompt.focus());
    renderer.root.add(this.root);
    renderer.root.add(this.picker.box);
    this.rewindMenu = opts.checkpoints
      ? new RewindMenu(renderer, opts.checkpoints, (op) => this.submit(op), () => this.closeRewindMenu(), (text, level) => this.dispatch({ type: "ui.notice", level, text }), opts.cwd)
      : null;
    if (this.rewindMenu) renderer.root.add(this.rewindMenu.box);

    renderer.keyInput.on("keypress", this.onKey);
    renderer.on("selection", this.onSelection);
    this.prompt.focus();
    // Text-protocol tool-call markup never reaches the transcript (the history keeps it).
    const display = new DisplayFilter();
    this.unsubscribe = opts.session.subscribe((e) => {
      for (const shown of display.apply(e)) this.dispatch(shown, false);
    });
    this.syncNow();
  }

  /** Applies an event or UI action; `immediate` syncs now, otherwise coalesced to one sync per frame. */
  dispatch(input: ViewInput, immediate = true): void {
    if (this.destroyed) return;
    this.state = reduce(this.state, input, this.renderer.clock.now());
    if (input.type === "rewound" && input.prompt) this.setPrompt(input.prompt);
    this.restorePromptOnFailure(input);
    if (immediate) this.syncNow();
    else if (this.syncTimer === null) {
      this.syncTimer = this.renderer.clock.setTimeout(() => {
        this.syncTimer = null;
        this.syncNow();
      }, Math.max(SYNC_DELAY_MS, 1000 / this.renderer.targetFps));
    }
  }

  /** Pushes the current state into the components (tests call it to skip the coalescing delay). */
  syncNow(): void {
    if (this.destroyed) return;
    if (this.syncTimer !== null) {
      this.renderer.clock.clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    const s = this.state;
    const flags: RenderFlags = { mode: s.displayMode, showThinking: (s.displayMode === "full") !== this.thinkingToggled, labels: s.labels };
    if (this.transcript) this.transcript.sync(s, flags);
    if (this.live) this.live.sync(s, flags);
    if (this.committer) this.committer.sync(s.items, s.epoch, flags);
    this.syncQueue();
    this.syncApproval();
    this.syncSpinner();
    this.syncStatus();
    if (this.opts.inline) this.syncFooterHeight();
    this.renderer.requestRender();
  }

  /** Resolves once inline-mode scrollback commits are done (tests). */
  get scrollbackIdle(): Promise<void> {
    return this.committer?.idle ?? Promise.resolve();
  }

  submit(op: Op): void {
    try {
      this.opts.session.submit(op);
    } catch (e) {
      this.log(`submit ${op.type} failed: ${String(e)}`);
      this.dispatch({ type: "ui.notice", level: "error", text: t("tui.submitFailed", { op: op.type, error: String(e) }) });
    }
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.unsubscribe();
    if (this.syncTimer !== null) this.renderer.clock.clearTimeout(this.syncTimer);
    if (this.spinnerTimer !== null) this.renderer.clock.clearInterval(this.spinnerTimer);
    this.renderer.keyInput.off("keypress", this.onKey);
    this.renderer.off("selection", this.onSelection);
  }

  quit(code = 0): void {
    this.submit({ type: "shutdown" });
    this.destroy();
    this.opts.onExit(code);
  }

  private log(msg: string): void {
    this.opts.log?.(msg);
  }

  // ---- sync helpers ----

  private syncQueue(): void {
    const q = this.state.queue;
    this.queueText.visible = q.length > 0;
    if (!q.length) return;
    const lines = q.map((q1, i) => `  ${i + 1}. ${q1.split("\n")[0]!.slice(0, 120)}`);
    this.queueText.content = new StyledText([
      chunk(`${t("tui.queued", { count: q.length })}\n`, colors.accent),
      chunk(lines.join("\n"), colors.dim),
    ]);
  }

  private syncApproval(): void {
    const a = this.state.approval;
    this.approvalBox.visible = a !== null;
    if (!a) {
      this.approvalShownId = null;
      return;
    }
    if (this.approvalShownId !== a.requestId) {
      this.approvalShownId = a.requestId;
      // The guard starts when the box is drawn: nothing before, and nothing in the next 250 ms, answers it.
      this.approvalShownAt = this.renderer.clock.now();
      this.approvalText.content = new StyledText(approvalChunks(a));
    }
  }

  private syncSpinner(): void {
    const running = this.state.status.running;
    if (running && this.spinnerTimer === null) {
      this.spinnerTimer = this.renderer.clock.setInterval(() => {
        this.spinnerFrame++;
        this.syncStatus();
        this.renderer.requestRender();
      }, 100);
    } else if (!running && this.spinnerTimer !== null) {
      this.renderer.clock.clearInterval(this.spinnerTimer);
      this.spinnerTimer = null;
    }
  }

  private syncStatus(): void {
    let hint = this.hint;
    if (this.search) hint = t("tui.search", { query: this.search.query, match: this.search.match.split("\n")[0] ?? "" });
    this.statusLine.content = statusText(this.state, this.renderer.clock.now(), this.spinnerFrame, hint);
  }

  private syncCompletion(): void {
    const c = this.completion;
    this.completionText.visible = c !== null;
    if (!c) return;
    const max = 8;
    const start = Math.max(0, Math.min(this.completionIndex - max + 1, c.items.length - max));
    const out = c.items.slice(start, start + max).flatMap((it, i) => {
      const sel = start + i === this.completionIndex;
      return [
        chunk((sel ? "▶ " : "  ") + it.label, sel ? colors.accent : colors.text),
        chunk(it.description ? `  ${it.description}\n` : "\n", colors.dim),
      ];
    });
    this.completionText.content = new StyledText(out);
  }

  private syncFooterHeight(): void {
    const extra =
      (this.queueText.visible ? Math.min(this.state.queue.length, 5) + 1 : 0) +
      (this.approvalBox.visible ? 12 : 0) +
      (this.completionText.visible ? Math.min(this.completion?.items.length ?? 0, 8) : 0) +
      (this.rewindMenu?.rows ?? 0);
    const promptRows = Math.min(8, Math.max(1, this.prompt.lineCount)) + 2;
    const liveRows = this.live ? Math.min(12, this.live.lineEstimate) : 0;
    const want = Math.max(4, Math.min(this.renderer.terminalHeight - 2, promptRows + 1 + extra + liveRows + (liveRows ? 1 : 0)));
    if (this.renderer.footerHeight !== want) this.renderer.footerHeight = want;
  }

  // ---- input ----

  private onSelection = (sel: { getSelectedText(): string } | null): void => {
    const text = sel?.getSelectedText();
    if (!text) return;
    let ok = false;
    try {
      ok = this.renderer.copyToClipboardOSC52(text);
    } catch (e) {
      // The native session refuses outside its output phase (seen in the test renderer): never fatal.
      this.log(`osc52 failed: ${String(e)}`);
    }
    this.opts.onCopy?.(text);
    this.log(`selection: ${text.length} chars, osc52 ${ok ? "sent" : "not sent"}`);
  };

  private onPromptChanged(): void {
    const text = this.prompt.plainText;
    const c = complete(text, this.commands, () => (this.files ??= listProjectFiles(this.opts.cwd)));
    this.completion = c && !(c.items.length === 1 && c.items[0]!.insert === text.slice(c.start)) ? c : null;
    this.completionIndex = 0;
    this.syncCompletion();
    if (this.opts.inline) this.syncFooterHeight();
  }

  private onKey = (k: KeyEvent): void => {
    if (this.destroyed || k.eventType === "release") return;
    const now = this.renderer.clock.now();
    const isEsc = k.name === "escape" && !k.ctrl && !k.shift;
    if (!isEsc) this.lastEscAt = -Infinity;
    // Any other key disarms a pending Ctrl+C: clearing a freshly typed prompt with Ctrl+C must not quit.
    if (!(k.name === "c" && k.ctrl)) {
      this.lastCtrlCAt = -Infinity;
      if (this.hint) {
        this.hint = "";
        this.syncStatus();
      }
    }

    if (this.state.approval) {
      k.preventDefault();
      this.onApprovalKey(k, now);
      return;
    }
    if (this.rewindMenu?.isOpen) {
      if (isEsc || (k.name === "c" && k.ctrl)) {
        k.preventDefault();
        this.rewindMenu.close();
      }
      return;
    }
    if (this.picker.isOpen) {
      if (isEsc || (k.name === "c" && k.ctrl)) {
        k.preventDefault();
        this.picker.close();
      }
      return;
    }
    if (this.search) {
      k.preventDefault();
      this.onSearchKey(k);
      return;
    }
    if (k.name === "c" && k.ctrl) {
      k.preventDefault();
      return this.onCtrlC(now);
    }
    if (k.name === "d" && k.ctrl) {
      if (this.prompt.plainText === "") {
        k.preventDefault();
        this.quit(0);
      }
      return;
    }
    if (isEsc) {
      k.preventDefault();
      return this.onEscape(k, now);
    }
    if (k.name === "tab" && k.shift) {
      k.preventDefault();
      return this.cyclePermissionMode();
    }
    if (this.completion && this.onCompletionKey(k)) {
      k.preventDefault();
      return;
    }
    const empty = this.prompt.plainText === "";
    switch (k.name) {
      case "pageup":
        k.preventDefault();
        return this.transcript?.pageBy(-0.5);
      case "pagedown":
        k.preventDefault();
        return this.transcript?.pageBy(0.5);
      case "home":
        if (empty || k.ctrl) {
          k.preventDefault();
          this.transcript?.toTop();
        }
        return;
      case "end":
        if (empty || k.ctrl) {
          k.preventDefault();
          this.transcript?.toBottom();
        }
        return;
      case "up":
        if (!k.ctrl && !k.meta && !k.shift && this.prompt.logicalCursor.row === 0) {
          const prev = this.history.prev(this.prompt.plainText);
          k.preventDefault();
          if (prev !== null) this.setPrompt(prev);
        }
        return;
      case "down":
        if (!k.ctrl && !k.meta && !k.shift && this.prompt.logicalCursor.row >= this.prompt.lineCount - 1) {
          const next = this.history.next();
          if (next !== null) {
            k.preventDefault();
            this.setPrompt(next);
          }
        }
        return;
    }
    if (k.ctrl && k.name === "r") {
      k.preventDefault();
      this.search = { query: "", index: this.history.all.length, match: "" };
      this.syncStatus();
      return;
    }
    if (k.ctrl && k.name === "t") {
      k.preventDefault();
      this.thinkingToggled = !this.thinkingToggled;
      this.state = { ...this.state, epoch: this.state.epoch + 1 };
      this.syncNow();
      return;
    }
    if (k.ctrl && k.name === "x" && this.state.queue.length) {
      k.preventDefault();
      this.submit({ type: "remove_queued", index: this.state.queue.length - 1 });
    }
  };

  private onApprovalKey(k: KeyEvent, now: number): void {
    const a = this.state.approval;
    if (!a) return;
    if (k.name === "c" && k.ctrl) return this.onCtrlC(now);
    if (now - this.approvalShownAt < APPROVAL_GUARD_MS) return;
    if (k.name === "escape" && !k.ctrl && !k.shift) {
      // Esc still interrupts the turn: the pending action is denied first so nothing runs.
      this.submit({ type: "approval", requestId: a.requestId, decision: "deny" });
      this.dispatch({ type: "approval.resolved", requestId: a.requestId, decision: "deny" });
      this.submit({ type: "interrupt" });
      return;
    }
    const decision = decisionForKey(k);
    if (!decision) return;
    this.submit({ type: "approval", requestId: a.requestId, decision });
    this.dispatch({ type: "approval.resolved", requestId: a.requestId, decision });
  }

  private onCtrlC(now: number): void {
    if (now - this.lastCtrlCAt <= CTRL_C_WINDOW_MS) return this.quit(0);
    this.lastCtrlCAt = now;
    if (this.state.status.running) this.submit({ type: "interrupt" });
    this.setPrompt("");
    this.search = null;
    this.hint = t("tui.quitHint");
    this.syncStatus();
    this.renderer.requestRender();
  }

  private onEscape(k: KeyEvent, now: number): void {
    if (this.completion) {
      this.completion = null;
      this.syncCompletion();
      return;
    }
    const double = k.meta || now - this.lastEscAt <= this.rewindEscMs;
    this.lastEscAt = double ? -Infinity : now;
    if (this.state.status.running) {
      this.submit({ type: "interrupt" });
      return;
    }
    // /compact's summary runs outside a turn, so `running` is false while it does: Esc cancels it too (an
    // interrupt with nothing to cancel is ignored by the session).
    this.submit({ type: "interrupt" });
    if (!double) return;
    if (this.prompt.plainText !== "") this.setPrompt("");
    else this.requestRewind();
  }

  private onSearchKey(k: KeyEvent): void {
    const s = this.search!;
    const find = (query: string, before: number) => {
      const r = this.history.search(query, before);
      this.search = r ? { query, index: r.index, match: r.text } : { query, index: before, match: s.match };
    };
    if (k.name === "escape" || (k.ctrl && (k.name === "c" || k.name === "g"))) this.search = null;
    else if (k.name === "return") {
      if (s.match) this.setPrompt(s.match);
      this.search = null;
    } else if (k.ctrl && k.name === "r") find(s.query, s.index);
    else if (k.name === "backspace") find(s.query.slice(0, -1), this.history.all.length);
    else if (k.sequence && k.sequence.length === 1 && k.sequence >= " " && !k.ctrl && !k.meta) {
      find(s.query + k.sequence, this.history.all.length);
    }
    this.syncStatus();
    this.renderer.requestRender();
  }

  private onCompletionKey(k: KeyEvent): boolean {
    const c = this.completion!;
    if (k.name === "up" || k.name === "down") {
      const n = c.items.length;
      this.completionIndex = (this.completionIndex + (k.name === "up" ? n - 1 : 1)) % n;
      this.syncCompletion();
      return true;
    }
    if (k.name === "tab" || (k.name === "return" && !k.shift && !k.meta)) {
      const item = c.items[this.completionIndex];
      if (!item) return false;
      const text = this.prompt.plainText;
      const next = text.slice(0, c.start) + item.insert + (item.insert.startsWith("@") ? " " : "");
      this.completion = null;
      this.syncCompletion();
      if (k.name === "return" && item.insert.startsWith("/")) {
        this.setPrompt(next);
        this.onSubmit();
      } else this.setPrompt(item.insert.startsWith("/") ? next + " " : next);
      return true;
    }
    return false;
  }

  private setPrompt(text: string): void {
    this.prompt.setText(text);
    this.prompt.gotoBufferEnd();
  }

  private closeRewindMenu(): void {
    this.prompt.focus();
    this.syncNow();
  }

  private cyclePermissionMode(): void {
    const i = PERMISSION_CYCLE.indexOf(this.state.status.permissionMode);
    const mode = PERMISSION_CYCLE[(i + 1) % PERMISSION_CYCLE.length]!;
    this.submit({ type: "set_permission_mode", mode });
    this.dispatch({ type: "ui.set_permission_mode", mode });
  }

  private requestRewind(): void {
    if (this.rewindMenu) {
      if (this.state.status.running) return this.dispatch({ type: "ui.notice", level: "warn", text: t("tui.rewindWhileRunning") });
      this.lastEscAt = -Infinity;
      if (this.rewindMenu.open()) this.syncNow();
      return;
    }
    if (this.opts.onRewindRequest) this.opts.onRewindRequest();
    else this.dispatch({ type: "ui.notice", level: "info", text: t("tui.rewindUnavailable") });
  }

  private onSubmit(): void {
    const text = this.prompt.plainText;
    if (!text.trim()) return;
    this.history.add(text);
    this.setPrompt("");
    this.completion = null;
    this.syncCompletion();
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
    if (m) {
      void this.runSlash(m[1]!, m[2]!.trim());
      return;
    }
    this.submittedTexts = [...this.submittedTexts.slice(-19), text];
    this.submit({ type: "user_input", text });
    this.transcript?.toBottom();
  }

  /**
   * A turn the user typed here that fails before any answer text (provider down, auth, missing model) gives
   * the text back to an empty prompt, so it can be sent again without retyping.
   */
  private restorePromptOnFailure(input: ViewInput): void {
    switch (input.type) {
      case "turn.started": {
        const i = this.submittedTexts.indexOf(input.input);
        this.unanswered = i >= 0 ? { turnId: input.turnId, text: input.input } : null;
        if (i >= 0) this.submittedTexts.splice(0, i + 1);
        return;
      }
      case "message.delta":
        if (input.text) this.unanswered = null;
        return;
      case "message.completed":
        if (input.message.role === "assistant" && input.message.content.trim()) this.unanswered = null;
        return;
      case "tool.started":
        this.unanswered = null;
        return;
      case "turn.completed": {
        const u = this.unanswered;
        this.unanswered = null;
        if (!u || u.turnId !== input.turnId || input.stopReason !== "error" || this.prompt.plainText !== "") return;
        this.setPrompt(u.text);
        this.dispatch({ type: "ui.notice", level: "info", text: t("tui.promptRestored") });
        return;
      }
      default:
        return;
    }
  }

  private async runSlash(name: string, args: string): Promise<void> {
    const notice = (text: string, level: "info" | "warn" | "error" = "info") => this.dispatch({ type: "ui.notice", level, text });
    switch (name) {
      case "help":
        return notice(helpText(this.commands));
      case "exit":
      case "quit":
        return this.quit(0);
      case "clear":
        this.submit({ type: "clear" });
        return this.dispatch({ type: "ui.clear" });
      case "compact":
        return this.submit(args ? { type: "compact", instruction: args } : { type: "compact" });
      case "rewind":
        return this.requestRewind();
      case "ui": {
        const mode = args === "compact" || args === "full" ? args : this.state.displayMode === "full" ? "compact" : "full";
        if (args && args !== mode) return notice(t("tui.uiUsage"), "warn");
        this.dispatch({ type: "ui.set_display_mode", mode });
        return notice(t("tui.displayMode", { mode }));
      }
      case "model":
      case "provider":
        if (args) {
          const [p, ...rest] = args.split(":");
          // `/provider X` takes X's default model (the current model belongs to the old provider).
          const choice = name === "provider" ? { provider: args, model: "" } : rest.length ? { provider: p!, model: rest.join(":") } : { provider: this.state.status.provider, model: args };
          return this.submit({ type: "set_model", ...choice });
        }
        if (this.opts.listModels) return this.openModelPicker(name);
        break;
      case "stats":
        if (!this.opts.onSlashCommand) return notice(statsText(this.state));
        break;
    }
    if (!this.opts.onSlashCommand) return notice(t("tui.unknownCommand", { name }), "warn");
    try {
      const out = await this.opts.onSlashCommand(name, args);
      if (out) notice(out);
    } catch (e) {
      notice(t("tui.commandFailed", { name, error: String(e) }), "error");
    }
  }

  private async openModelPicker(kind: "model" | "provider"): Promise<void> {
    let choices: ModelChoice[];
    try {
      choices = (await this.opts.listModels?.()) ?? [];
    } catch (e) {
      return this.dispatch({ type: "ui.notice", level: "error", text: t("tui.listModelsFailed", { error: String(e) }) });
    }
    if (kind === "provider") {
      const seen = new Set<string>();
      choices = choices.filter((c) => !seen.has(c.provider) && seen.add(c.provider));
    }
    if (!choices.length) return this.dispatch({ type: "ui.notice", level: "warn", text: t("tui.noModels") });
    const items: PickerItem[] = choices.map((c) => ({
      name: kind === "provider" ? c.provider : `${c.provider}:${c.model}`,
      description: c.description ?? "",
      value: c,
    }));
    const current = choices.findIndex((c) => c.provider === this.state.status.provider && (kind === "provider" || c.model === this.state.status.model));
    this.picker.open(kind === "model" ? t("tui.pickerModel") : t("tui.pickerProvider"), items, Math.max(0, current), (v) => {
      const c = v as ModelChoice;
      this.submit({ type: "set_model", provider: c.provider, model: c.model });
    });
  }
}

function helpText(commands: readonly SlashCommand[]): string {
  const cmds = commands.map((c) => `/${c.name.padEnd(10)} ${c.description}`).join("\n");
  const keys = [t("tui.helpKeys1"), t("tui.helpKeys2"), t("tui.helpKeys3")].join("\n");
  return `${cmds}\n${keys}`;
}

function statsText(s: ViewState): string {
  const st = s.status;
  return t("tui.stats", { input: st.totalInputTokens, output: st.totalOutputTokens, context: formatTokens(st.contextTokens), window: formatTokens(st.contextWindow), cost: st.costUsd === undefined ? "n/a" : formatCost(st.costUsd) });
}
