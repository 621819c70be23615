/**
 * The TUI controller: builds the component tree on a renderer (real or test), feeds session events through the
 * pure reducer, syncs the components, and owns the keymap. It never exits the process: quitting calls
 * `onExit(code)` and the caller (runTui, or a test) tears the renderer down.
 */
import type { BoxRenderable, CliRenderer, KeyEvent, TextRenderable, TextareaRenderable, TimerHandle } from "@opentui/core";
import { StyledText } from "@opentui/core";
import type { Op } from "../../protocol/events.ts";
import { initialViewState, reduce, type ViewInput, type ViewState } from "./view-model.ts";
import type { TranscriptView, LiveArea } from "./transcript-view.ts";
import type { ScrollbackCommitter } from "./scrollback-committer.ts";
import { PromptHistory } from "./prompt-history.ts";
import { BUILTIN_COMMANDS, listProjectFiles, type SlashCommand } from "./completion.ts";
import { statusText } from "./status-line.ts";
import { chunk, type RenderFlags } from "./item-chunks.ts";
import { colors } from "./theme.ts";
import { ApprovalPanel } from "./approval-box.ts";
import { Picker } from "./picker.ts";
import { RewindMenu } from "./rewind-menu.ts";
import { t } from "../../i18n/i18n.ts";
import { DisplayFilter } from "../shared/display-filter.ts";
import { completionChunks, completionFor } from "./completion-popup.ts";
import { PromptRestore } from "./prompt-restore.ts";
import { runSlashCommand } from "./slash-command-runner.ts";
import type { TuiAppOptions } from "./tui-app-options.ts";
import { initialInputState, type TuiInternals } from "./tui-internals.ts";
import { handleKey } from "./tui-key-handler.ts";
import { buildTuiLayout } from "./tui-layout.ts";
import { submitShellLine } from "./shell-mode.ts";
import { footerHeightFor, queueContent, todoContent } from "./footer-panels.ts";
import { applyLateOptions, copySelection, cyclePermissionMode, requestRewind } from "./tui-actions.ts";
import { StreamPacer } from "./stream-pacer.ts";
import { Ticker } from "./ticker.ts";
import { vimLabel } from "./vim-mode.ts";
import { followTerminalTheme } from "./theme-command.ts";
import { initialVimState } from "./vim-keys.ts";

export type { ModelChoice, TuiAppOptions } from "./tui-app-options.ts";

/** Session events are coalesced to one sync per frame at the renderer's targetFps (never more often than this). */
const SYNC_DELAY_MS = 16;

export class TuiApp {
  state: ViewState;
  readonly prompt: TextareaRenderable;
  readonly transcript: TranscriptView | null;
  private readonly live: LiveArea | null;
  private readonly committer: ScrollbackCommitter | null;
  private readonly root: BoxRenderable;
  private readonly queueText: TextRenderable;
  private readonly todoText: TextRenderable;
  private readonly promptMarker: TextRenderable;
  private shellMarker = false;
  private readonly approvalPanel: ApprovalPanel;
  private readonly completionText: TextRenderable;
  private readonly statusLine: TextRenderable;
  private statusShown: string | null = null;
  private readonly picker: Picker;
  private readonly rewindMenu: RewindMenu | null;
  private readonly history: PromptHistory;
  private readonly commands: SlashCommand[];
  /** Keyboard-side state shared with the keymap (tui-key-handler.ts). */
  private readonly input = initialInputState();
  private syncTimer: TimerHandle | null = null;
  private syncAt = 0;
  /** Paces transcript redraws while text streams faster than anyone reads (issue 24); `transcriptDue` forces one. */
  private readonly pacer: StreamPacer;
  private transcriptDue = true;
  private spinnerFrame = 0;
  private readonly spinner: Ticker;
  private readonly k8sAge: Ticker;
  private files: string[] | null = null;
  private unsubscribe: () => void;
  private destroyed = false;
  private readonly rewindEscMs: number;
  private readonly promptRestore: PromptRestore;
  /** What the keymap, slash commands and pickers see of this app. */
  private readonly internals: TuiInternals;
  private readonly restyleLayout: () => void;
  private readonly unfollow: Array<() => void> = []; // ended at destroy: the terminal theme, the connection state

  constructor(
    readonly renderer: CliRenderer,
    private readonly opts: TuiAppOptions,
  ) {
    this.state = initialViewState(opts);
    this.spinner = new Ticker(renderer.clock, 100, () => this.redrawStatus(1));
    this.k8sAge = new Ticker(renderer.clock, 1000, () => this.redrawStatus());
    this.pacer = new StreamPacer(1000 / renderer.targetFps);
    this.history = new PromptHistory(opts.historyFile);
    this.commands = [...BUILTIN_COMMANDS, ...(opts.extraCommands ?? [])];
    const envMs = Number(process.env.CHATCLI_REWIND_ESC_MS);
    this.rewindEscMs = opts.rewindEscMs ?? (Number.isFinite(envMs) && envMs > 0 ? envMs : 500);
    const layout = buildTuiLayout(renderer, opts.inline, { submit: () => this.onSubmit(), promptChanged: () => this.onPromptChanged(), log: (m) => this.log(m) });
    this.root = layout.root;
    this.transcript = layout.transcript;
    this.live = layout.live;
    this.committer = layout.committer;
    this.queueText = layout.queueText;
    this.todoText = layout.todoText;
    this.promptMarker = layout.promptMarker;
    this.approvalPanel = new ApprovalPanel(layout.approvalBox, layout.approvalText);
    this.completionText = layout.completionText;
    this.prompt = layout.prompt;
    this.statusLine = layout.statusLine;
    this.restyleLayout = layout.restyle;
    if (opts.vim) this.input.vim = initialVimState("insert");
    this.picker = new Picker(renderer, () => this.refocus());
    renderer.root.add(this.root);
    renderer.root.add(this.picker.box);
    this.rewindMenu = opts.checkpoints
      ? new RewindMenu(renderer, opts.checkpoints, (op) => this.submit(op), () => this.refocus(), (text, level) => this.dispatch({ type: "ui.notice", level, text }), opts.cwd)
      : null;
    if (this.rewindMenu) renderer.root.add(this.rewindMenu.box);
    this.promptRestore = new PromptRestore(
      () => this.prompt.plainText === "",
      (text) => {
        this.setPrompt(text);
        this.dispatch({ type: "ui.notice", level: "info", text: t("tui.promptRestored") });
      },
    );
    this.internals = this.makeInternals();
    this.unfollow.push(followTerminalTheme(renderer, opts.theme ?? "auto", this.internals));

    renderer.keyInput.on("keypress", this.onKey);
    renderer.on("selection", this.onSelection);
    renderer.on("resize", this.onResize);
    this.prompt.focus();
    // Text-protocol tool-call markup never reaches the transcript (the history keeps it).
    const display = new DisplayFilter();
    this.unsubscribe = opts.session.subscribe((e) => {
      for (const shown of display.apply(e)) this.dispatch(shown, false);
    });
    // A resumed transcript was just replayed with the meter of its time: today's model and history win.
    if (opts.contextWindow) this.dispatch({ type: "ui.set_context", tokens: opts.contextTokens ?? this.state.status.contextTokens, window: opts.contextWindow }, false);
    this.unfollow.push(applyLateOptions(this.internals, () => this.onPromptChanged()));
    this.syncNow();
    // idle() resolves once the first frame is written; a renderer kept busy (an animation) still gets it after 1.5 s.
    if (opts.afterFirstFrame) void Promise.race([this.renderer.idle(), new Promise((r) => setTimeout(r, 1500))]).then(() => opts.afterFirstFrame?.());
  }

  /** Applies an event or UI action; `immediate` syncs now, otherwise coalesced to one sync per frame. */
  dispatch(input: ViewInput, immediate = true): void {
    if (this.destroyed) return;
    this.state = reduce(this.state, input, this.renderer.clock.now());
    if (input.type === "message.delta") this.pacer.arrived((input.text?.length ?? 0) + (input.thinking?.length ?? 0), this.renderer.clock.now());
    else if (input.type === "tool.updated") this.pacer.arrived(input.output.length, this.renderer.clock.now());
    else this.transcriptDue = true;
    // The approval box takes the keys: no picker or menu may stay over it (or keep the focus) meanwhile.
    if (input.type === "approval.requested") {
      if (this.picker.isOpen) this.picker.close();
      if (this.rewindMenu?.isOpen) this.rewindMenu.close();
    }
    if (input.type === "rewound" && input.prompt) this.setPrompt(input.prompt);
    this.promptRestore.observe(input);
    if (immediate) this.syncNow();
    // The end of an answer is not coalesced with what follows: its last line shows on the next frame.
    else if (input.type === "message.completed") this.scheduleSync(0);
    else this.scheduleSync(Math.max(SYNC_DELAY_MS, 1000 / this.renderer.targetFps));
  }

  /** One sync timer: a sooner sync (the end of a stream waiting behind a paced redraw) replaces a later one. */
  private scheduleSync(delay: number): void {
    const at = this.renderer.clock.now() + delay;
    if (this.syncTimer !== null) {
      if (this.syncAt <= at) return;
      this.renderer.clock.clearTimeout(this.syncTimer);
    }
    this.syncAt = at;
    this.syncTimer = this.renderer.clock.setTimeout(() => {
      this.syncTimer = null;
      this.sync(false);
    }, delay);
  }

  /** Pushes the current state into the components (tests call it to skip the coalescing delay). */
  syncNow(): void {
    this.sync(true);
  }

  /** `force`: the transcript too, whatever the pacer says (otherwise it waits its turn; the rest syncs now). */
  private sync(force: boolean): void {
    if (this.destroyed) return;
    if (this.syncTimer !== null) {
      this.renderer.clock.clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    const s = this.state;
    const flags: RenderFlags = { mode: s.displayMode, showThinking: (s.displayMode === "full") !== this.input.thinkingToggled, labels: s.labels };
    const now = this.renderer.clock.now();
    const wait = force || this.transcriptDue ? 0 : this.pacer.waitMs(now);
    if (wait === 0) {
      if (this.transcript) this.transcript.sync(s, flags);
      if (this.live) this.live.sync(s, flags);
      if (this.committer) this.committer.sync(s.items, s.epoch, flags);
      this.pacer.drawn(now);
      this.transcriptDue = false;
    } else this.scheduleSync(wait);
    this.syncQueue();
    this.syncTodo();
    this.syncPromptMarker();
    this.syncApproval();
    this.syncSpinner();
    this.syncStatus();
    if (this.picker.isOpen) this.picker.fit();
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
    this.spinner.dispose();
    this.k8sAge.dispose();
    this.renderer.keyInput.off("keypress", this.onKey);
    this.renderer.off("selection", this.onSelection);
    this.renderer.off("resize", this.onResize);
    for (const end of this.unfollow) end();
    this.committer?.dispose();
  }

  quit(code = 0): void {
    this.submit({ type: "shutdown" });
    this.destroy();
    this.opts.onExit(code);
  }

  private log(msg: string): void {
    this.opts.log?.(msg);
  }

  private makeInternals(): TuiInternals {
    const self = this; // the getters read the live fields
    return {
      opts: this.opts,
      input: this.input,
      get state() { return self.state; },
      set state(s: ViewState) { self.state = s; },
      renderer: this.renderer,
      prompt: this.prompt,
      transcript: this.transcript,
      picker: this.picker,
      rewindMenu: this.rewindMenu,
      history: this.history,
      commands: this.commands,
      rewindEscMs: this.rewindEscMs,
      get destroyed() { return self.destroyed; },
      submit: (op) => this.submit(op),
      dispatch: (input) => this.dispatch(input),
      quit: (code) => this.quit(code),
      setPrompt: (text) => this.setPrompt(text),
      syncNow: () => this.syncNow(),
      syncStatus: () => this.syncStatus(),
      syncCompletion: () => this.syncCompletion(),
      cyclePermissionMode: () => cyclePermissionMode(this.internals),
      requestRewind: () => requestRewind(this.internals),
      onSubmit: () => this.onSubmit(),
      restyle: () => {
        this.restyleLayout();
        this.shellMarker = this.state.shellMode !== true; // the marker is drawn again in the new palette
        this.state = { ...this.state, epoch: this.state.epoch + 1 };
        this.syncNow();
      },
    };
  }

  // ---- sync helpers ----

  private syncQueue(): void {
    const content = queueContent(this.state);
    this.queueText.visible = content !== null;
    if (content) this.queueText.content = content;
  }

  private syncTodo(): void {
    const content = todoContent(this.state, Date.now());
    this.todoText.visible = content !== null;
    if (content) this.todoText.content = content;
  }

  private syncPromptMarker(): void {
    const shell = this.state.shellMode === true;
    if (shell === this.shellMarker) return;
    this.shellMarker = shell;
    this.promptMarker.content = new StyledText([shell ? chunk("! ", colors.warn) : chunk("› ", colors.accent)]);
  }

  private syncApproval(): void {
    // The guard starts when the box is drawn: nothing before, and nothing in the next 250 ms, answers it.
    if (this.approvalPanel.sync(this.state.approval)) this.input.approvalShownAt = this.renderer.clock.now();
  }

  private syncSpinner(): void {
    const running = this.state.status.running;
    this.spinner.set(running);
    // The Kubernetes watch's "last check Ns ago" (issue 23): a slow tick while a watch is on and nothing else redraws.
    this.k8sAge.set(this.state.status.k8s !== undefined && !running);
  }

  /** `frames`: spinner frames to advance first. */
  private redrawStatus(frames = 0): void {
    this.spinnerFrame += frames;
    this.syncStatus();
    this.renderer.requestRender();
  }

  private syncStatus(): void {
    const search = this.input.search;
    const hint = search ? t("tui.search", { query: search.query, match: search.match.split("\n")[0] ?? "" }) : this.input.hint;
    // The status line has one column of left padding.
    const text = statusText(this.state, this.renderer.clock.now(), this.spinnerFrame, hint, Math.max(1, this.renderer.width - 1), vimLabel(this.internals));
    // Every sync lands here (30 a second while streaming): an unchanged line is not re-encoded and re-laid out.
    if (text !== this.statusShown) this.statusLine.content = this.statusShown = text;
  }

  private onResize = (): void => this.syncNow();

  private syncCompletion(): void {
    const c = this.input.completion;
    this.completionText.visible = c !== null;
    if (!c) return;
    this.completionText.content = new StyledText(completionChunks(c, this.input.completionIndex));
  }

  private syncFooterHeight(): void {
    const want = footerHeightFor(this.state, {
      queueVisible: this.queueText.visible,
      approvalVisible: this.approvalPanel.visible,
      completionItems: this.completionText.visible ? this.input.completion?.items.length : 0,
      rewindRows: this.rewindMenu?.rows ?? 0,
      pickerRows: this.picker.rows,
      promptLines: this.prompt.lineCount,
      liveLines: this.live?.lineEstimate,
      terminalHeight: this.renderer.terminalHeight,
    });
    if (this.renderer.footerHeight !== want) this.renderer.footerHeight = want;
  }

  // ---- input ----

  private onSelection = (sel: { getSelectedText(): string } | null): void => copySelection(this.internals, sel?.getSelectedText());

  private onPromptChanged(): void {
    const text = this.prompt.plainText;
    const commands = this.opts.dynamicCommands ? [...this.commands, ...this.opts.dynamicCommands()] : this.commands;
    this.input.completion = completionFor(text, commands, () => (this.files ??= listProjectFiles(this.opts.cwd)));
    this.input.completionIndex = 0;
    this.syncCompletion();
    if (this.opts.inline) this.syncFooterHeight();
  }

  private onKey = (k: KeyEvent): void => handleKey(this.internals, k);

  private setPrompt(text: string): void {
    this.prompt.setText(text);
    this.prompt.gotoBufferEnd();
  }

  /** A picker or the rewind menu closed: the prompt takes the keys again. */
  private refocus(): void {
    this.prompt.focus();
    this.syncNow();
  }

  private onSubmit(): void {
    const text = this.prompt.plainText;
    // Enter on an empty prompt sends what an interrupt left waiting in the queue.
    if (!text.trim() && this.state.queuePaused && this.state.queue.length) return this.submit({ type: "send_queued" });
    if (!text.trim()) return;
    this.history.add(text);
    this.setPrompt("");
    this.input.completion = null;
    this.syncCompletion();
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
    if (m) {
      void runSlashCommand(this.internals, m[1]!, m[2]!.trim());
      return;
    }
    if (submitShellLine(this.internals, text)) return this.transcript?.toBottom();
    this.promptRestore.submitted(text);
    this.submit({ type: "user_input", text });
    this.transcript?.toBottom();
  }
}
