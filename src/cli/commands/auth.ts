/** `chatcli auth login|logout|status copilot`: GitHub device-flow login for Copilot; the token is stored 0600. */
import { existsSync, rmSync } from "node:fs";
import type { Config } from "../../config/load-config.ts";
import { copilotTokenPath, loginCopilot } from "../../llm/providers/copilot-auth.ts";
import { UsageError } from "../args.ts";

export async function authCommand(cfg: Config, action: "login" | "logout" | "status", provider: string, out: { write(s: string): unknown }): Promise<number> {
  if (provider.toLowerCase() !== "copilot") throw new UsageError(`auth supports only "copilot" (device login); other providers use an API key in the environment. Run chatcli providers to see which.`);
  const env = { ...cfg.env, CHATCLI_HOME: cfg.home };
  const path = copilotTokenPath(env);
  switch (action) {
    case "status":
      out.write(existsSync(path) ? `Copilot: logged in (token at ${path})\n` : "Copilot: not logged in. Run: chatcli auth login copilot\n");
      return existsSync(path) ? 0 : 1;
    case "logout":
      rmSync(path, { force: true });
      out.write("Copilot: logged out.\n");
      return 0;
    case "login": {
      const ctrl = new AbortController();
      const onSigint = () => ctrl.abort();
      process.on("SIGINT", onSigint);
      try {
        const saved = await loginCopilot({
          env,
          signal: ctrl.signal,
          onCode: (code, uri) => out.write(`Open ${uri} in a browser and enter the code: ${code}\nWaiting for authorization… (Ctrl+C to cancel)\n`),
        });
        out.write(`Copilot: logged in. Token saved to ${saved}\n`);
        return 0;
      } catch (err) {
        process.stderr.write(`chatcli: Copilot login failed: ${(err as Error).message}\n`);
        return ctrl.signal.aborted ? 130 : 1;
      } finally {
        process.off("SIGINT", onSigint);
      }
    }
  }
}
