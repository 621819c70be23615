/**
 * TuiApp's component tree: transcript (or, inline, the live area above the scrollback), queue, approval box,
 * completion list, prompt and status line, top to bottom in one column. The caller adds `root` to the renderer.
 */
import { BoxRenderable, ScrollBoxRenderable, StyledText, TextRenderable, TextareaRenderable, type CliRenderer } from "@opentui/core";
import { t } from "../../i18n/i18n.ts";
import { chunk } from "./item-chunks.ts";
import { ScrollbackCommitter } from "./scrollback-committer.ts";
import { colors, createSyntaxStyle, ink } from "./theme.ts";
import { LiveArea, TranscriptView } from "./transcript-view.ts";

export interface TuiLayout {
  root: BoxRenderable;
  transcript: TranscriptView | null;
  live: LiveArea | null;
  committer: ScrollbackCommitter | null;
  queueText: TextRenderable;
  /** The todo checklist (todo-panel.ts), just above the queue and the prompt. */
  todoText: TextRenderable;
  approvalBox: BoxRenderable;
  approvalText: TextRenderable;
  completionText: TextRenderable;
  prompt: TextareaRenderable;
  /** The `› ` before the prompt (`! ` in shell mode). */
  promptMarker: TextRenderable;
  statusLine: TextRenderable;
  /** Re-reads the palette into what was coloured at construction (after /theme). */
  restyle(): void;
}

export function buildTuiLayout(renderer: CliRenderer, inline: boolean, on: { submit(): void; promptChanged(): void; log(msg: string): void }): TuiLayout {
  const syntaxStyle = createSyntaxStyle(renderer);
  const root = new BoxRenderable(renderer, { id: "app", flexDirection: "column", width: "100%", height: "100%" });
  let transcript: TranscriptView | null;
  let live: LiveArea | null;
  let committer: ScrollbackCommitter | null;
  if (inline) {
    transcript = null;
    const liveScroll = new ScrollBoxRenderable(renderer, { flexGrow: 1, flexShrink: 1, stickyScroll: true, stickyStart: "bottom" });
    live = new LiveArea(renderer, syntaxStyle);
    liveScroll.add(live.box);
    root.add(liveScroll);
    committer = new ScrollbackCommitter(renderer, syntaxStyle, (m) => on.log(m));
  } else {
    transcript = new TranscriptView(renderer, syntaxStyle);
    live = null;
    committer = null;
    root.add(transcript.scroll);
  }
  const queueText = new TextRenderable(renderer, { content: "", visible: false, flexShrink: 0, paddingLeft: 1 });
  const todoText = new TextRenderable(renderer, { content: "", visible: false, flexShrink: 0, paddingLeft: 1 });
  const approvalText = new TextRenderable(renderer, { content: "", width: "100%", bg: ink(colors.bg) });
  const approvalBox = new BoxRenderable(renderer, {
    border: true,
    borderStyle: "rounded",
    borderColor: ink(colors.warn),
    title: t("tui.approvalTitle"),
    backgroundColor: ink(colors.bg),
    shouldFill: true,
    visible: false,
    flexShrink: 0,
    paddingLeft: 1,
    paddingRight: 1,
  });
  approvalBox.add(approvalText);
  const completionText = new TextRenderable(renderer, { content: "", visible: false, flexShrink: 0, paddingLeft: 2, bg: ink(colors.bg) });
  const promptBox = new BoxRenderable(renderer, {
    border: true,
    borderStyle: "rounded",
    borderColor: ink(colors.border),
    flexShrink: 0,
    flexDirection: "row",
  });
  const prompt = new TextareaRenderable(renderer, {
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
    onSubmit: () => on.submit(),
    onContentChange: () => on.promptChanged(),
    textColor: ink(colors.text),
    focusedTextColor: ink(colors.text),
    placeholderColor: ink(colors.dim),
    cursorColor: ink(colors.text),
  });
  const promptMarker = new TextRenderable(renderer, { content: new StyledText([chunk("› ", colors.accent)]), width: 2, flexShrink: 0 });
  promptBox.add(promptMarker);
  promptBox.add(prompt);
  const statusLine = new TextRenderable(renderer, { content: "", flexShrink: 0, fg: ink(colors.dim), paddingLeft: 1, height: 1 });
  root.add(todoText);
  root.add(queueText);
  root.add(approvalBox);
  root.add(completionText);
  root.add(promptBox);
  root.add(statusLine);
  const restyle = () => {
    approvalText.bg = ink(colors.bg);
    approvalBox.borderColor = ink(colors.warn);
    approvalBox.backgroundColor = ink(colors.bg);
    completionText.bg = ink(colors.bg);
    promptBox.borderColor = ink(colors.border);
    prompt.textColor = ink(colors.text);
    prompt.focusedTextColor = ink(colors.text);
    prompt.placeholderColor = ink(colors.dim);
    prompt.cursorColor = ink(colors.text);
    statusLine.fg = ink(colors.dim);
  };
  return { root, transcript, live, committer, queueText, todoText, approvalBox, approvalText, completionText, prompt, promptMarker, statusLine, restyle };
}
