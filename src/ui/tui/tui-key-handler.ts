/** The TUI keymap: what each key does in each state (approval box, menus, history search, completion, prompt). */
import type { KeyEvent } from "@opentui/core";
import { t } from "../../i18n/i18n.ts";
import { decisionForKey } from "./approval-box.ts";
import { completionKey } from "./completion-popup.ts";
import type { TuiInternals } from "./tui-internals.ts";
import { handleVimKey } from "./vim-mode.ts";
import { pasteClipboardImage } from "./clipboard-image.ts";

const APPROVAL_GUARD_MS = 250;
const CTRL_C_WINDOW_MS = 2000;

/** TuiApp's keypress listener: approval box, open menus, history search, then the prompt's own keys. */
export function handleKey(app: TuiInternals, k: KeyEvent): void {
  if (app.destroyed || k.eventType === "release") return;
  const now = app.renderer.clock.now();
  const isEsc = k.name === "escape" && !k.ctrl && !k.shift;
  if (!isEsc) app.input.lastEscAt = -Infinity;
  // Any other key disarms a pending Ctrl+C: clearing a freshly typed prompt with Ctrl+C must not quit.
  if (!(k.name === "c" && k.ctrl)) {
    app.input.lastCtrlCAt = -Infinity;
    if (app.input.hint) {
      app.input.hint = "";
      app.syncStatus();
    }
  }

  if (app.state.approval) {
    k.preventDefault();
    onApprovalKey(app, k, now);
    return;
  }
  if (app.rewindMenu?.isOpen) {
    if (isEsc || (k.name === "c" && k.ctrl)) {
      k.preventDefault();
      app.rewindMenu.close();
    }
    return;
  }
  if (app.picker.isOpen) {
    if (isEsc || (k.name === "c" && k.ctrl)) {
      k.preventDefault();
      app.picker.close();
    }
    return;
  }
  if (app.input.search) {
    k.preventDefault();
    onSearchKey(app, k);
    return;
  }
  if (handleVimKey(app, k)) {
    k.preventDefault();
    return;
  }
  if (k.name === "c" && k.ctrl) {
    k.preventDefault();
    return onCtrlC(app, now);
  }
  if (k.name === "v" && k.ctrl && !k.meta) {
    k.preventDefault();
    return void pasteImage(app);
  }
  if (k.name === "d" && k.ctrl) {
    if (app.prompt.plainText === "") {
      k.preventDefault();
      app.quit(0);
    }
    return;
  }
  if (isEsc) {
    k.preventDefault();
    return onEscape(app, k, now);
  }
  if (k.name === "tab" && k.shift) {
    k.preventDefault();
    return app.cyclePermissionMode();
  }
  if (app.input.completion && completionKey(app, k)) {
    k.preventDefault();
    return;
  }
  const empty = app.prompt.plainText === "";
  switch (k.name) {
    case "pageup":
      k.preventDefault();
      return app.transcript?.pageBy(-0.5);
    case "pagedown":
      k.preventDefault();
      return app.transcript?.pageBy(0.5);
    case "home":
      if (empty || k.ctrl) {
        k.preventDefault();
        app.transcript?.toTop();
      }
      return;
    case "end":
      if (empty || k.ctrl) {
        k.preventDefault();
        app.transcript?.toBottom();
      }
      return;
    case "up":
      if (!k.ctrl && !k.meta && !k.shift && app.prompt.logicalCursor.row === 0) {
        const prev = app.history.prev(app.prompt.plainText);
        k.preventDefault();
        if (prev !== null) app.setPrompt(prev);
      }
      return;
    case "down":
      if (!k.ctrl && !k.meta && !k.shift && app.prompt.logicalCursor.row >= app.prompt.lineCount - 1) {
        const next = app.history.next();
        if (next !== null) {
          k.preventDefault();
          app.setPrompt(next);
        }
      }
      return;
  }
  if (k.ctrl && k.name === "r") {
    k.preventDefault();
    app.input.search = { query: "", index: app.history.all.length, match: "" };
    app.syncStatus();
    return;
  }
  if (k.ctrl && k.name === "t") {
    k.preventDefault();
    app.input.thinkingToggled = !app.input.thinkingToggled;
    app.state = { ...app.state, epoch: app.state.epoch + 1 };
    app.syncNow();
    return;
  }
  if (k.ctrl && k.name === "x" && app.state.queue.length) {
    k.preventDefault();
    app.submit({ type: "remove_queued", index: app.state.queue.length - 1 });
  }
}

function onApprovalKey(app: TuiInternals, k: KeyEvent, now: number): void {
  const a = app.state.approval;
  if (!a) return;
  if (k.name === "c" && k.ctrl) return onCtrlC(app, now);
  if (now - app.input.approvalShownAt < APPROVAL_GUARD_MS) return;
  if (k.name === "escape" && !k.ctrl && !k.shift) {
    // Esc still interrupts the turn: the pending action is denied first so nothing runs.
    app.submit({ type: "approval", requestId: a.requestId, decision: "deny" });
    app.dispatch({ type: "approval.resolved", requestId: a.requestId, decision: "deny" });
    app.submit({ type: "interrupt" });
    return;
  }
  const decision = decisionForKey(k, a.noAlways === true);
  if (!decision) return;
  app.submit({ type: "approval", requestId: a.requestId, decision });
  app.dispatch({ type: "approval.resolved", requestId: a.requestId, decision });
}

function onCtrlC(app: TuiInternals, now: number): void {
  if (now - app.input.lastCtrlCAt <= CTRL_C_WINDOW_MS) return app.quit(0);
  app.input.lastCtrlCAt = now;
  // Stops a run or a side task (/compact's summary); the session ignores it when idle. The queue stays.
  app.submit({ type: "interrupt" });
  app.setPrompt("");
  app.input.search = null;
  app.input.hint = t("tui.quitHint");
  app.syncStatus();
  app.renderer.requestRender();
}

function onEscape(app: TuiInternals, k: KeyEvent, now: number): void {
  if (app.input.completion) {
    app.input.completion = null;
    app.syncCompletion();
    return;
  }
  const double = k.meta || now - app.input.lastEscAt <= app.rewindEscMs;
  app.input.lastEscAt = double ? -Infinity : now;
  if (app.state.status.running) {
    app.submit({ type: "interrupt" });
    return;
  }
  // /compact's summary runs outside a turn, so `running` is false while it does: Esc cancels it too (an
  // interrupt with nothing to cancel is ignored by the session).
  app.submit({ type: "interrupt" });
  if (!double) return;
  if (app.prompt.plainText !== "") app.setPrompt("");
  else app.requestRewind();
}

function onSearchKey(app: TuiInternals, k: KeyEvent): void {
  const s = app.input.search!;
  const find = (query: string, before: number) => {
    const r = app.history.search(query, before);
    app.input.search = r ? { query, index: r.index, match: r.text } : { query, index: before, match: s.match };
  };
  if (k.name === "escape" || (k.ctrl && (k.name === "c" || k.name === "g"))) app.input.search = null;
  else if (k.name === "return") {
    if (s.match) app.setPrompt(s.match);
    app.input.search = null;
  } else if (k.ctrl && k.name === "r") find(s.query, s.index);
  else if (k.name === "backspace") find(s.query.slice(0, -1), app.history.all.length);
  else if (k.sequence && k.sequence.length === 1 && k.sequence >= " " && !k.ctrl && !k.meta) {
    find(s.query + k.sequence, app.history.all.length);
  }
  app.syncStatus();
  app.renderer.requestRender();
}

/** Ctrl+V: a clipboard image becomes an `@path` in the prompt (clipboard-image.ts). */
async function pasteImage(app: TuiInternals): Promise<void> {
  const r = await pasteClipboardImage();
  if (app.destroyed) return;
  if (!r.ok) return app.dispatch({ type: "ui.notice", level: "warn", text: r.message });
  const before = app.prompt.plainText;
  const sep = before && !/\s$/.test(before.slice(0, app.prompt.cursorOffset)) ? " " : "";
  app.prompt.insertText(`${sep}@${r.path} `);
  app.dispatch({ type: "ui.notice", level: "info", text: t("image.clipboardSaved", { path: r.path }) });
}
