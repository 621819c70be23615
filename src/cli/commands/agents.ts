/**
 * `chatcli agents [list|init] [--force]`: the agent definitions this project sees (project, user, built-in; the
 * first of a name wins), or the built-in ones written to `.chatcli/agents/` to edit. Exit 0; 1 when init could
 * not write.
 */
import type { Config } from "../../config/load-config.ts";
import { t } from "../../i18n/i18n.ts";
import { loadAgentDefinitions } from "../../ext/agents/agent-definition.ts";
import { initAgents } from "../../ext/agents/init-agents.ts";

interface Writer {
  write(s: string): unknown;
}

export async function agentsCommand(cfg: Config, action: "list" | "init", force: boolean, out: Writer, err: Writer): Promise<number> {
  if (action === "init") {
    try {
      const r = await initAgents(cfg.projectRoot, { force });
      out.write(`${t("ext.agentsInitDone", { count: r.written.length, dir: r.dir })}\n`);
      if (r.kept.length) out.write(`${t("ext.agentsInitKept", { count: r.kept.length, files: r.kept.join(", ") })}\n`);
      return 0;
    } catch (e) {
      err.write(`chatcli: ${String((e as Error)?.message ?? e)}\n`);
      return 1;
    }
  }
  const found = await loadAgentDefinitions(cfg.projectRoot, cfg.home, cfg.env.HOME ? { userHome: cfg.env.HOME } : {});
  for (const w of found.warnings) err.write(`chatcli: ${t("cli.warning", { message: w })}\n`);
  out.write(`${t("ext.agentsHeader")}\n`);
  for (const a of found.entries) {
    const scope = a.source.scope === "project" ? t("ext.scope.project") : a.source.scope === "user" ? t("ext.scope.user") : t("ext.scope.builtin");
    const tools = a.tools ? t("ext.agentTools", { tools: a.tools.join(", ") }) : t("ext.agentAllTools");
    out.write(`  ${a.name} ${scope} — ${a.description}\n      ${tools}${a.modelAsWritten ? ` · ${a.modelAsWritten}` : ""}${a.source.path ? ` · ${a.source.path}` : ""}\n`);
  }
  return 0;
}
