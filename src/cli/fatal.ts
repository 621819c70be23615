/**
 * Last-resort handling of errors nothing else caught. Contract: the user never sees a stack trace — one
 * `chatcli: …` line on stderr, and the stack goes to the log file. A closed stdout (`chatcli -p … | head -1`)
 * is not a failure: the run ends quietly with status 0, like other command-line tools.
 * While the TUI runs it installs its own handlers (which restore the terminal first); these then stand aside.
 */
import { Logger } from "../util/logger.ts";
import { t } from "../i18n/i18n.ts";

export function isBrokenPipe(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EPIPE";
}

export interface FatalDeps {
  logger: Logger;
  stderr: { write(s: string): unknown };
  exit: (code: number) => void;
}

/** Reports `err` (one line on stderr, stack to the log) and returns the exit status to use. */
export function reportFatal(err: unknown, deps: Omit<FatalDeps, "exit">): number {
  if (isBrokenPipe(err)) return 0;
  deps.logger.error(`fatal: ${(err as Error)?.stack ?? String(err)}`);
  const message = (err as Error)?.message ?? String(err);
  try {
    deps.stderr.write(`chatcli: ${t("error.unexpected", { message, log: deps.logger.file })}\n`);
  } catch {
    // stderr is gone too: nothing left to tell.
  }
  return 1;
}

export function installFatalHandlers(deps: FatalDeps): void {
  const onFatal = (event: "uncaughtException" | "unhandledRejection") => (err: unknown) => {
    if (process.listenerCount(event) > 1) return;
    deps.exit(reportFatal(err, deps));
  };
  process.on("uncaughtException", onFatal("uncaughtException"));
  process.on("unhandledRejection", onFatal("unhandledRejection"));
  process.stdout.on("error", (err: unknown) => {
    if (process.stdout.listenerCount("error") > 1) return; // `serve --stdio` ends its sessions cleanly itself
    deps.exit(reportFatal(err, deps));
  });
}
