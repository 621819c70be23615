/** `chatcli auth login|logout|status copilot`: GitHub device-flow login for Copilot; the token is stored 0600. */
import { existsSync, rmSync } from "node:fs";
import type { Config } from "../../config/load-config.ts";
import { copilotTokenPath, loginCopilot } from "../../llm/providers/copilot-auth.ts";
import { UsageError } from "../args.ts";
import { t } from "../../i18n/i18n.ts";

export async function authCommand(cfg: Config, action: "login" | "logout" | "status", provider: string, out: { write(s: string): unknown }): Promise<number> {
  if (provider.toLowerCase() !== "copilot") throw new UsageError(t("auth.onlyCopilot"));
  const env = { ...cfg.env, CHATCLI_HOME: cfg.home };
  const path = copilotTokenPath(env);
  switch (action) {
    case "status":
      out.write(`${existsSync(path) ? t("auth.loggedIn", { path }) : t("auth.notLoggedIn")}\n`);
      return existsSync(path) ? 0 : 1;
    case "logout":
      rmSync(path, { force: true });
      out.write(`${t("auth.loggedOut")}\n`);
      return 0;
    case "login": {
      const ctrl = new AbortController();
      const onSigint = () => ctrl.abort();
      process.on("SIGINT", onSigint);
      try {
        const saved = await loginCopilot({
          env,
          signal: ctrl.signal,
          onCode: (code, uri) => out.write(`${t("auth.code", { uri, code })}\n`),
        });
        out.write(`${t("auth.saved", { path: saved })}\n`);
        return 0;
      } catch (err) {
        process.stderr.write(`chatcli: ${t("auth.failed", { message: (err as Error).message })}\n`);
        return ctrl.signal.aborted ? 130 : 1;
      } finally {
        process.off("SIGINT", onSigint);
      }
    }
  }
}
