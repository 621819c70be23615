/**
 * Notifications (issue 25): when a turn that took at least `afterSeconds` ends, or when an approval waits, ring the
 * terminal bell or send a desktop notification escape, so a person in another window knows. Only when stdout is a
 * terminal (never into a pipe or a file).
 *
 * Settings `notify`: `"bell" | "osc" | "off"`, or `{ "mode": …, "afterSeconds": N }` (defaults: bell, 10 s).
 * `osc` sends OSC 777 (`ESC ] 777 ; notify ; title ; body BEL`: foot, VTE terminals, urxvt, Ghostty) where the
 * terminal is known to read it, else OSC 9 (`ESC ] 9 ; body BEL`: iTerm2, WezTerm, Windows Terminal, kitty, Ghostty);
 * tmux gets the sequence wrapped for passthrough.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";

export type NotifyMode = "bell" | "osc" | "off";
export type NotifySetting = NotifyMode | { mode?: NotifyMode; afterSeconds?: number } | undefined;

export const DEFAULT_NOTIFY_AFTER_SECONDS = 10;

export interface NotifyConfig {
  mode: NotifyMode;
  afterSeconds: number;
}

export function notifyConfig(setting: NotifySetting): NotifyConfig {
  if (typeof setting === "string") return { mode: setting, afterSeconds: DEFAULT_NOTIFY_AFTER_SECONDS };
  return { mode: setting?.mode ?? "bell", afterSeconds: setting?.afterSeconds ?? DEFAULT_NOTIFY_AFTER_SECONDS };
}

export interface NotifierOptions {
  config: NotifyConfig;
  out: { write(s: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  now?: () => number;
}

/** Returns the session-event listener; undefined when nothing would ever be sent (off, or not a terminal). */
export function createNotifier(o: NotifierOptions): ((e: AgentEvent) => void) | undefined {
  if (o.config.mode === "off" || o.out.isTTY !== true) return undefined;
  const now = o.now ?? Date.now;
  let startedAt: number | undefined;
  const send = (body: string) => {
    try {
      o.out.write(o.config.mode === "bell" ? "\x07" : oscSequence(body, o.env));
    } catch {
      // a closed terminal must not break the session
    }
  };
  return (e) => {
    if (e.type === "turn.started") startedAt = now();
    else if (e.type === "approval.requested") send(t("notify.approval", { action: e.action.split("\n")[0]!.slice(0, 80) }));
    else if (e.type === "turn.completed" && startedAt !== undefined) {
      const seconds = (now() - startedAt) / 1000;
      startedAt = undefined;
      if (seconds >= o.config.afterSeconds) send(t("notify.turnDone", { seconds: Math.round(seconds) }));
    }
  };
}

/** The desktop-notification escape for this terminal (no control characters from the body get through). */
export function oscSequence(body: string, env: Readonly<Record<string, string | undefined>>): string {
  const clean = body.replace(/[\x00-\x1f\x7f;]/g, " ");
  const osc777 = env.VTE_VERSION !== undefined || /^(foot|rxvt|xterm-ghostty)/.test(env.TERM ?? "");
  const seq = osc777 ? `\x1b]777;notify;chatcli;${clean}\x07` : `\x1b]9;${clean}\x07`;
  // Inside tmux the sequence reaches the outer terminal only through DCS passthrough (ESCs doubled).
  return env.TMUX ? `\x1bPtmux;${seq.replace(/\x1b/g, "\x1b\x1b")}\x1b\\` : seq;
}
