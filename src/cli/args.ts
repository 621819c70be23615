/**
 * The command line (yargs). Parsing only: returns a tagged command for main.ts to run.
 * Usage errors exit 2 with the message on stderr (never a stack trace).
 */
import yargs from "yargs";
import type { PermissionMode } from "../protocol/events.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/types.ts";
import { t } from "../i18n/i18n.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface CommonFlags {
  provider?: string;
  model?: string;
  permissionMode?: PermissionMode;
  sandbox?: SandboxMode;
}

export type CliCommand =
  | { kind: "interactive"; flags: CommonFlags; inline: boolean; noTui: boolean; resume?: string; continue: boolean; rewind?: number }
  | {
      kind: "oneshot";
      flags: CommonFlags;
      prompt: string;
      outputFormat: OutputFormat;
      maxTurns?: number;
      resume?: string;
      continue: boolean;
      rewind?: number;
    }
  | { kind: "models"; flags: CommonFlags; json: boolean }
  | { kind: "providers"; flags: CommonFlags; json: boolean }
  | { kind: "sessions"; flags: CommonFlags; action: "list" | "import"; file?: string }
  | { kind: "auth"; flags: CommonFlags; action: "login" | "logout" | "status"; provider: string }
  | { kind: "update"; flags: CommonFlags; check: boolean; version?: string }
  /** yargs already printed --help or --version. */
  | { kind: "printed" };

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const PERMISSION_MODES = ["default", "accept-edits", "plan", "bypass"] as const;
const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;

/** yargs reports `--no-foo` as "foo" plus a camelCase twin ("such-flag, suchFlag"); name what the user typed. */
function unknownArgsMessage(msg: string, argv: string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m?.[1]) return msg;
  const listed = m[1].split(", ");
  const kebab = (x: string) => x.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const names = listed
    .filter((x) => kebab(x) === x || !listed.includes(kebab(x)))
    .map((n) => (argv.some((a) => a === `--no-${n}` || a.startsWith(`--no-${n}=`)) ? `no-${n}` : n));
  return `Unknown argument${names.length > 1 ? "s" : ""}: ${names.join(", ")}`;
}

export function parseArgs(argv: string[], version: string): CliCommand {
  let result: CliCommand | undefined;
  const common = (a: Record<string, unknown>): CommonFlags => {
    const f: CommonFlags = {};
    if (typeof a.provider === "string" && a.provider) f.provider = a.provider;
    if (typeof a.model === "string" && a.model) f.model = a.model;
    if (typeof a["permission-mode"] === "string") f.permissionMode = a["permission-mode"] as PermissionMode;
    if (typeof a.sandbox === "string") f.sandbox = a.sandbox as SandboxMode;
    return f;
  };
  const parser = yargs(argv)
    .scriptName("chatcli")
    .usage("$0 [options]            start the interactive TUI\n$0 -p \"prompt\" [options]  run one task headlessly and print the answer")
    .option("prompt", { alias: "p", type: "string", describe: "Run one-shot: the prompt (piped stdin is appended)" })
    .option("provider", { type: "string", describe: "Provider id (OLLAMA, OPENAI, CLAUDEAI, GOOGLEAI, …); env LLM_PROVIDER" })
    .option("model", { alias: "m", type: "string", describe: "Model name; env LLM_MODEL" })
    .option("output-format", { choices: OUTPUT_FORMATS, default: "text" as const, describe: "One-shot output: text, json or stream-json" })
    .option("max-turns", { type: "number", describe: "One-shot: stop the agent after N model turns" })
    .option("permission-mode", { choices: PERMISSION_MODES, describe: "default, accept-edits, plan or bypass" })
    .option("sandbox", { choices: SANDBOX_MODES, describe: "OS sandbox for commands: workspace-write (default), read-only or off; env CHATCLI_SANDBOX" })
    .option("inline", { type: "boolean", default: false, describe: "Keep the transcript in the terminal's scrollback (split footer)" })
    .option("tui", { type: "boolean", default: true, describe: "Use the TUI (--no-tui prints plain text)" })
    .option("resume", { alias: "r", type: "string", describe: "Resume a saved session by id or name" })
    .option("continue", { alias: "c", type: "boolean", default: false, describe: "Continue the last session in this project" })
    .option("rewind", { type: "number", describe: "With --resume: rewind to checkpoint N (1 = newest) before continuing" })
    .command("models", "List the models the provider offers", (y) => y.option("json", { type: "boolean", default: false }), (a) => {
      result = { kind: "models", flags: common(a), json: Boolean(a.json) };
    })
    .command("providers", "List providers and whether each is available", (y) => y.option("json", { type: "boolean", default: false }), (a) => {
      result = { kind: "providers", flags: common(a), json: Boolean(a.json) };
    })
    .command("sessions [action] [file]", "List saved sessions, or import a ChatCLI v2 session file", (y) =>
      y.positional("action", { choices: ["list", "import"] as const, default: "list" as const }).positional("file", { type: "string" }),
      (a) => {
        const action = a.action === "import" ? "import" : "list";
        if (action === "import" && !a.file) throw new UsageError("sessions import needs a FILE: chatcli sessions import path/to/session.json");
        result = { kind: "sessions", flags: common(a), action, ...(typeof a.file === "string" ? { file: a.file } : {}) };
      },
    )
    .command("auth <action> [provider]", "Log in to a provider that uses device login (copilot)", (y) =>
      y.positional("action", { choices: ["login", "logout", "status"] as const, demandOption: true }).positional("provider", { type: "string", default: "copilot" }),
      (a) => {
        result = { kind: "auth", flags: common(a), action: a.action as "login" | "logout" | "status", provider: String(a.provider ?? "copilot") };
      },
    )
    .command("update", "Update chatcli to the newest release", (y) =>
      y.version(false).option("check", { type: "boolean", default: false, describe: "Only check, do not install" }).option("version", { type: "string", describe: "Install this version" }),
      (a) => {
        result = { kind: "update", flags: common(a), check: Boolean(a.check), ...(typeof a.version === "string" ? { version: a.version } : {}) };
      },
    )
    .version("version", "Show the version", version)
    .alias("version", "v")
    .help("help")
    .alias("help", "h")
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err instanceof UsageError ? err : new UsageError(unknownArgsMessage(msg || err?.message || "invalid arguments", argv));
    });

  const a = parser.parseSync() as Record<string, unknown>;
  if (result) return result;
  if (a.help || a.version) return { kind: "printed" };
  const positional = (a._ as unknown[] | undefined) ?? [];
  if (positional.length) throw new UsageError(`unknown command "${String(positional[0])}". Run chatcli --help.`);
  const maxTurns = typeof a["max-turns"] === "number" ? a["max-turns"] : undefined;
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) throw new UsageError("--max-turns must be a positive integer");
  const rewind = typeof a.rewind === "number" ? a.rewind : undefined;
  if (rewind !== undefined && (!Number.isInteger(rewind) || rewind < 1)) throw new UsageError("--rewind must be a positive integer (1 = newest checkpoint)");
  const resume = typeof a.resume === "string" ? a.resume : undefined;
  if (rewind !== undefined && resume === undefined && !a.continue) throw new UsageError(t("cli.rewindNeedsSession"));
  const base = { flags: common(a), continue: Boolean(a.continue), ...(resume !== undefined ? { resume } : {}), ...(rewind !== undefined ? { rewind } : {}) };
  if (typeof a.prompt === "string") {
    return { kind: "oneshot", prompt: a.prompt, outputFormat: a["output-format"] as OutputFormat, ...(maxTurns !== undefined ? { maxTurns } : {}), ...base };
  }
  if (a.prompt !== undefined) throw new UsageError("-p/--prompt needs a value: chatcli -p \"your question\"");
  return { kind: "interactive", inline: Boolean(a.inline), noTui: a.tui === false, ...base };
}
