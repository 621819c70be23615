/** What the protocol subcommands (`serve`, `acp`, `connect`, `watch`) share: their output streams and argv handling. */
import { t } from "../../i18n/i18n.ts";
import type { MessageKey } from "../../i18n/messages.ts";

export interface Out {
  write(s: string): unknown;
}

/**
 * Parses a subcommand's argv. A usage error is printed with the hint to run --help (the caller exits 2), `--help`
 * prints the subcommand's text (exit 0); both come back as the exit code.
 */
export function parseSubcommandArgs<A extends { help?: boolean }>(
  parse: () => A,
  isUsageError: (e: unknown) => boolean,
  keys: { help: MessageKey; runHelp: MessageKey },
  out: Out,
  err: Out,
): A | number {
  let args: A;
  try {
    args = parse();
  } catch (e) {
    if (!isUsageError(e)) throw e;
    err.write(`chatcli: ${(e as Error).message}\n${t(keys.runHelp)}\n`);
    return 2;
  }
  if (!args.help) return args;
  out.write(`${t(keys.help)}\n`);
  return 0;
}
