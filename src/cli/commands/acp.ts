/**
 * `chatcli acp`: the Agent Client Protocol on stdin/stdout (issue 22, docs/server.md "ACP"). Loaded with
 * `await import()` by main.ts for this subcommand only. stdout carries protocol frames only; logs go to stderr.
 * Sessions are built by serve.ts's factory (the TUI's wiring: approvals round-trip to the editor, autosave).
 * Exit codes: 0 done (stdin closed, SIGTERM), 1 failure, 2 usage.
 */
import { loadConfig } from "../../config/load-config.ts";
import { t } from "../../i18n/i18n.ts";
import { ACP_MODES, isAcpMode, type AcpMode } from "../../server/acp/acp-mapping.ts";
import { runAcpAgent } from "../../server/acp/acp-agent.ts";
import { SessionHost } from "../../server/session-host.ts";
import { VERSION } from "../../version.ts";
import { UsageError, type CommonFlags } from "../args.ts";
import { createFactory } from "./serve.ts";
import { parseSubcommandArgs, type Out } from "./subcommand.ts";


export interface AcpArgs {
  help: boolean;
  flags: CommonFlags;
}

export async function acpCommand(argv: string[], out: Out, err: Out): Promise<number> {
  const args = parseSubcommandArgs(() => parseAcpArgs(argv), (e) => e instanceof UsageError, { help: "acp.help", runHelp: "acp.runHelp" }, out, err);
  if (typeof args === "number") return args;
  const cwd = process.cwd();
  // The mode sessions start in: the flag, else the settings' default; bypass is never entered over ACP (fail closed).
  const configured = args.flags.permissionMode ?? loadConfig({ cwd, env: process.env, flags: {} }).permissionMode;
  const initialMode: AcpMode = isAcpMode(configured) ? configured : "default";
  const host = new SessionHost(createFactory(cwd, process.env, { ...args.flags, permissionMode: initialMode }));
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await runAcpAgent({
    host,
    input: Bun.stdin.stream(),
    // Each frame is handed on once stdout took it (backpressure: a slow editor slows the writer, never drops frames).
    output: new WritableStream<Uint8Array>({ write: (chunk) => new Promise<void>((resolve) => void process.stdout.write(chunk, () => resolve())) }),
    version: VERSION,
    initialMode,
    log: (line) => err.write(`${t("acp.log", { line })}\n`),
    signal: stopping.signal,
  });
  process.off("SIGTERM", stop);
  process.off("SIGINT", stop);
  return 0;
}

export function parseAcpArgs(argv: string[]): AcpArgs {
  const a: AcpArgs = { help: false, flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const eq = word.startsWith("--") ? word.indexOf("=") : -1;
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const inline = eq > 0 ? word.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(t("acp.missingValue", { flag }));
      return v;
    };
    if (flag === "--help" || flag === "-h") a.help = true;
    else if (flag === "--provider") a.flags.provider = value();
    else if (flag === "--model" || flag === "-m") a.flags.model = value();
    else if (flag === "--permission-mode") {
      const m = value();
      if (!isAcpMode(m)) throw new UsageError(t("acp.badMode", { modes: ACP_MODES.join(", ") }));
      a.flags.permissionMode = m;
    } else throw new UsageError(t("acp.unknownFlag", { flag: word }));
  }
  return a;
}
