/** `chatcli models`: the models the chosen provider offers. */
import type { Config } from "../../config/load-config.ts";
import { LlmProviderError } from "../../llm/provider.ts";
import { t } from "../../i18n/i18n.ts";
import { failureFrom, providerFor } from "../resolve-model.ts";

export async function modelsCommand(cfg: Config, json: boolean, out: { write(s: string): unknown }): Promise<number> {
  const { provider, baseUrl } = providerFor(cfg);
  let models;
  try {
    models = await provider.listModels();
  } catch (err) {
    if (err instanceof LlmProviderError) throw await failureFrom(err, { provider: cfg.provider, model: "", baseUrl }, fetch);
    throw err;
  }
  if (json) {
    out.write(`${JSON.stringify(models)}\n`);
    return 0;
  }
  out.write(`${t("models.header", { provider: cfg.provider, host: baseUrl })}\n`);
  if (!models.length) out.write(`  ${t("models.none")}\n`);
  for (const m of models) {
    const size = m.sizeBytes ? `  ${(m.sizeBytes / 1e9).toFixed(1)} GB` : "";
    out.write(`  ${m.id}${size}\n`);
  }
  return 0;
}
