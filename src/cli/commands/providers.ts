/** `chatcli providers`: every registered provider, whether it is available and why not. */
import type { Config } from "../../config/load-config.ts";
import { discoverProviders, formatProvidersTable } from "../../llm/discovery.ts";

export async function providersCommand(cfg: Config, json: boolean, out: { write(s: string): unknown }): Promise<number> {
  const rows = await discoverProviders(cfg.env);
  out.write(json ? `${JSON.stringify(rows)}\n` : `${formatProvidersTable(rows)}\n`);
  return 0;
}
