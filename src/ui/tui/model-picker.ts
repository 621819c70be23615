/** The /model and /provider pickers over `listModels`; picking submits `set_model`. */
import { t } from "../../i18n/i18n.ts";
import type { PickerItem } from "./picker.ts";
import type { ModelChoice } from "./tui-app-options.ts";
import type { TuiInternals } from "./tui-internals.ts";

export async function openModelPicker(app: TuiInternals, kind: "model" | "provider"): Promise<void> {
  let choices: ModelChoice[];
  try {
    choices = (await app.opts.listModels?.()) ?? [];
  } catch (e) {
    return app.dispatch({ type: "ui.notice", level: "error", text: t("tui.listModelsFailed", { error: String(e) }) });
  }
  if (kind === "provider") {
    const seen = new Set<string>();
    choices = choices.filter((c) => !seen.has(c.provider) && seen.add(c.provider));
  }
  if (!choices.length) return app.dispatch({ type: "ui.notice", level: "warn", text: t("tui.noModels") });
  const items: PickerItem[] = choices.map((c) => ({
    name: kind === "provider" ? c.provider : `${c.provider}:${c.model}`,
    description: c.description ?? "",
    value: c,
  }));
  const current = choices.findIndex((c) => c.provider === app.state.status.provider && (kind === "provider" || c.model === app.state.status.model));
  app.picker.open(kind === "model" ? t("tui.pickerModel") : t("tui.pickerProvider"), items, Math.max(0, current), (v) => {
    const c = v as ModelChoice;
    app.submit({ type: "set_model", provider: c.provider, model: c.model });
  });
  app.syncNow();
}
