/** TuiApp actions the key handler and slash commands call (through TuiInternals): mode cycling and rewind. */
import type { PermissionMode } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import type { TuiInternals } from "./tui-internals.ts";

const PERMISSION_CYCLE: PermissionMode[] = ["default", "accept-edits", "plan"];

/** Shift+Tab: default → accept-edits → plan → default (bypass is never reached by cycling). */
export function cyclePermissionMode(ix: TuiInternals): void {
  const i = PERMISSION_CYCLE.indexOf(ix.state.status.permissionMode);
  const mode = PERMISSION_CYCLE[(i + 1) % PERMISSION_CYCLE.length]!;
  ix.submit({ type: "set_permission_mode", mode });
  ix.dispatch({ type: "ui.set_permission_mode", mode });
}

/** Esc+Esc and /rewind: the rewind menu over the session's checkpoints, or the caller's handler. */
export function requestRewind(ix: TuiInternals): void {
  if (ix.rewindMenu) {
    if (ix.state.status.running) return ix.dispatch({ type: "ui.notice", level: "warn", text: t("tui.rewindWhileRunning") });
    ix.input.lastEscAt = -Infinity;
    if (ix.rewindMenu.open()) ix.syncNow();
    return;
  }
  if (ix.opts.onRewindRequest) ix.opts.onRewindRequest();
  else ix.dispatch({ type: "ui.notice", level: "info", text: t("tui.rewindUnavailable") });
}

/** A mouse selection: copied with OSC 52 (and handed to `onCopy`); a refusal is logged, never fatal. */
export function copySelection(ix: TuiInternals, text: string | undefined): void {
  if (!text) return;
  let ok = false;
  try {
    ok = ix.renderer.copyToClipboardOSC52(text);
  } catch (e) {
    // The native session refuses outside its output phase (seen in the test renderer).
    ix.opts.log?.(`osc52 failed: ${String(e)}`);
  }
  ix.opts.onCopy?.(text);
  ix.opts.log?.(`selection: ${text.length} chars, osc52 ${ok ? "sent" : "not sent"}`);
}

/**
 * What arrives after the first frame: late slash commands and events, the sandbox probe's answer; and a remote
 * session's connection label (`chatcli connect`), followed until the returned function is called.
 */
export function applyLateOptions(ix: TuiInternals, promptChanged: () => void): () => void {
  ix.opts.lateExtras?.then((x) => {
    ix.commands.push(...x.commands);
    for (const e of x.events) ix.dispatch(e);
    // A `/…` typed before the commands arrived: its completion list must show them now, not at the next key.
    if (ix.prompt.plainText.startsWith("/")) promptChanged();
  });
  ix.opts.sandboxState?.then((s) => {
    ix.dispatch({ type: "ui.set_sandbox", label: s.label });
    if (s.notice) ix.dispatch({ type: "ui.notice", ...s.notice });
  });
  return ix.opts.connection?.subscribe((label) => ix.dispatch({ type: "ui.set_connection", label })) ?? (() => undefined);
}
