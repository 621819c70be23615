/** The slash commands TuiApp handles itself; the rest go to `onSlashCommand`, whose text is shown as a notice. */
import { t } from "../../i18n/i18n.ts";
import { formatCost, formatTokens } from "../../llm/usage.ts";
import type { SlashCommand } from "./completion.ts";
import { openModelPicker } from "./model-picker.ts";
import { openPickerFlow } from "./picker-flow.ts";
import type { TuiInternals } from "./tui-internals.ts";
import { runThemeCommand } from "./theme-command.ts";
import { toggleVim } from "./vim-mode.ts";
import type { ViewState } from "./view-model.ts";

export async function runSlashCommand(app: TuiInternals, name: string, args: string): Promise<void> {
  const notice = (text: string, level: "info" | "warn" | "error" = "info") => app.dispatch({ type: "ui.notice", level, text });
  switch (name) {
    case "help":
      return notice(helpText(app.commands));
    case "exit":
    case "quit":
      return app.quit(0);
    case "clear":
      app.submit({ type: "clear" });
      return app.dispatch({ type: "ui.clear" });
    case "compact":
      return app.submit(args ? { type: "compact", instruction: args } : { type: "compact" });
    case "rewind":
      return app.requestRewind();
    case "ui": {
      const mode = args === "compact" || args === "full" ? args : app.state.displayMode === "full" ? "compact" : "full";
      if (args && args !== mode) return notice(t("tui.uiUsage"), "warn");
      app.dispatch({ type: "ui.set_display_mode", mode });
      return notice(t("tui.displayMode", { mode }));
    }
    case "model":
    case "provider":
      if (args) {
        const [p, ...rest] = args.split(":");
        // `/provider X` takes X's default model (the current model belongs to the old provider).
        const choice = name === "provider" ? { provider: args, model: "" } : rest.length ? { provider: p!, model: rest.join(":") } : { provider: app.state.status.provider, model: args };
        return app.submit({ type: "set_model", ...choice });
      }
      if (app.opts.listModels) return openModelPicker(app, name);
      break;
    case "theme": {
      const r = runThemeCommand(app, args);
      return notice(r.text, r.level);
    }
    case "vim":
      return notice(toggleVim(app));
    case "stats":
      if (!app.opts.onSlashCommand) return notice(statsText(app.state));
      break;
  }
  const flow = await app.opts.onPickerCommand?.(name, args).catch(() => undefined);
  if (flow) return openPickerFlow(app, flow);
  if (!app.opts.onSlashCommand) return notice(t("tui.unknownCommand", { name }), "warn");
  try {
    const out = await app.opts.onSlashCommand(name, args);
    if (out) notice(out);
  } catch (e) {
    notice(t("tui.commandFailed", { name, error: String(e) }), "error");
  }
}

function helpText(commands: readonly SlashCommand[]): string {
  const cmds = commands.map((c) => `/${c.name.padEnd(10)} ${c.description}`).join("\n");
  const keys = [t("tui.helpKeys1"), t("tui.helpKeys2"), t("tui.helpKeys3"), t("tui.helpKeysShell"), t("help.imagePaste"), t("help.vimKeys"), t("help.agentsPicker")].join("\n");
  return `${cmds}\n${keys}`;
}

function statsText(s: ViewState): string {
  const st = s.status;
  return t("tui.stats", { input: st.totalInputTokens, output: st.totalOutputTokens, context: formatTokens(st.contextTokens), window: formatTokens(st.contextWindow), cost: st.costUsd === undefined ? t("usage.na") : formatCost(st.costUsd) });
}
