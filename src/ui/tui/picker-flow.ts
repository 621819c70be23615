/** Drives a PickerFlow (tui-app-options.ts) in the app's picker: each pick opens the next step or ends it. */
import { t } from "../../i18n/i18n.ts";
import type { PickerFlow } from "./tui-app-options.ts";
import type { TuiInternals } from "./tui-internals.ts";

export function openPickerFlow(app: TuiInternals, flow: PickerFlow): void {
  app.picker.open(flow.title, flow.items.map((i) => ({ name: i.name, description: "", value: i.value })), 0, (v) => {
    void flow.pick(String(v)).then(
      (next) => {
        if (!next || app.destroyed) return app.syncNow();
        if ("items" in next) return openPickerFlow(app, next);
        if ("notice" in next) return app.dispatch({ type: "ui.notice", level: "info", text: next.notice });
        app.setPrompt(next.prompt);
        app.syncNow();
      },
      (e: unknown) => app.dispatch({ type: "ui.notice", level: "error", text: t("tui.commandFailed", { name: flow.title, error: String(e) }) }),
    );
  });
  app.syncNow();
}
