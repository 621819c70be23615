/**
 * `!cmd` and shell mode in the TUI (issue 25): a line starting with `!` runs the rest as a command in the project
 * (the session's `shell` op: sandboxed, no model call); `!` alone toggles shell mode, in which every line that is not
 * a slash command runs as a command. The status line shows `! shell` meanwhile.
 */
import { t } from "../../i18n/i18n.ts";
import type { TuiInternals } from "./tui-internals.ts";

/** True when the line was a shell line (run, or the toggle); false: an ordinary prompt. */
export function submitShellLine(app: Pick<TuiInternals, "state" | "submit" | "dispatch">, text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === "!") {
    const on = !app.state.shellMode;
    app.dispatch({ type: "ui.set_shell_mode", on });
    app.dispatch({ type: "ui.notice", level: "info", text: t(on ? "shell.modeOn" : "shell.modeOff") });
    return true;
  }
  if (!trimmed.startsWith("!") && !app.state.shellMode) return false;
  app.submit({ type: "shell", command: trimmed.startsWith("!") ? trimmed.slice(1) : trimmed });
  return true;
}
