/**
 * The command line (yargs). Parsing only: returns a tagged command for main.ts to run.
 * Usage errors exit 2 with the message on stderr (never a stack trace).
 */
import yargs from "yargs";
import { currentLang, t, type MessageKey } from "../i18n/i18n.ts";
import type { PermissionMode } from "../protocol/events.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/types.ts";
import { MEMORY_ACTIONS, type MemoryAction, type MemoryArgs } from "../memory/commands.ts";
import { CATEGORIES, SCOPES, type Category, type Scope } from "../memory/types.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface CommonFlags {
  provider?: string;
  model?: string;
  permissionMode?: PermissionMode;
  sandbox?: SandboxMode;
  /** `--max-budget-usd N` (issue 25). */
  maxBudgetUsd?: number;
  /** `--agent NAME`: the persona the session starts with (issue 18). */
  agent?: string;
  /** `--offline`: no network but the provider. */
  offline?: boolean;
  /** `--mcp-config FILE` (repeatable; a file or inline JSON) and `--strict-mcp-config` (issue 17). */
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
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
  | { kind: "memory"; flags: CommonFlags; memory: MemoryArgs }
  | { kind: "auth"; flags: CommonFlags; action: "login" | "logout" | "status"; provider: string }
  | { kind: "update"; flags: CommonFlags; check: boolean; version?: string }
  | { kind: "hooks"; flags: CommonFlags; action: "list" | "test" | "trust"; event?: string; tool?: string; input?: string }
  | { kind: "agents"; flags: CommonFlags; action: "list" | "init"; force: boolean }
  /** `chatcli mcp …`: its own parser (src/cli/commands/mcp-args.ts: a stdio server's words pass through verbatim). */
  | { kind: "mcp"; argv: string[] }
  /** `chatcli serve …`: its own parser (src/cli/commands/serve.ts). */
  | { kind: "serve"; argv: string[] }
  /** `chatcli acp …`: its own parser (src/cli/commands/acp.ts). */
  | { kind: "acp"; argv: string[] }
  /** `chatcli connect …`: its own parser (src/cli/commands/connect-args.ts). */
  | { kind: "connect"; argv: string[] }
  /** `chatcli watch …`: its own parser (src/cli/commands/watch.ts). */
  | { kind: "watch"; argv: string[] }
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

/**
 * yargs' own strings (usage errors, `--help` headings) in the user's language, from our table: the locale files
 * yargs ships are not inside the compiled binary, and the yargs default (LANG) must not win over CHATCLI_LANG.
 * Keys are yargs' English source strings; plural ones take `one`/`other`.
 */
function yargsStrings(): Record<string, string | { one: string; other: string }> {
  const both = (key: MessageKey, params: Record<string, string> = {}) => ({ one: t(key, params), other: t(key, params) });
  return {
    "Commands:": t("yargs.commands"),
    "Options:": t("yargs.options"),
    "Examples:": t("yargs.examples"),
    "Positionals:": t("yargs.positionals"),
    boolean: t("yargs.boolean"),
    count: t("yargs.count"),
    string: t("yargs.string"),
    number: t("yargs.number"),
    array: t("yargs.array"),
    required: t("yargs.required"),
    default: t("yargs.default"),
    "default:": t("yargs.defaultColon"),
    "choices:": t("yargs.choices"),
    "aliases:": t("yargs.aliases"),
    command: t("yargs.command"),
    deprecated: t("yargs.deprecated"),
    "deprecated: %s": t("yargs.deprecatedWhy", { why: "%s" }),
    "generated-value": t("yargs.generatedValue"),
    "Not enough non-option arguments: got %s, need at least %s": both("yargs.notEnoughArgs", { got: "%s", need: "%s" }),
    "Too many non-option arguments: got %s, maximum of %s": both("yargs.tooManyArgs", { got: "%s", max: "%s" }),
    "Missing argument value: %s": { one: t("yargs.missingValue", { names: "%s" }), other: t("yargs.missingValues", { names: "%s" }) },
    "Missing required argument: %s": { one: t("yargs.missingRequired", { names: "%s" }), other: t("yargs.missingRequiredMany", { names: "%s" }) },
    "Unknown argument: %s": { one: t("yargs.unknownArgument", { names: "%s" }), other: t("yargs.unknownArguments", { names: "%s" }) },
    "Unknown command: %s": { one: t("yargs.unknownCommand", { names: "%s" }), other: t("yargs.unknownCommands", { names: "%s" }) },
    "Invalid values:": t("yargs.invalidValues"),
    "Argument: %s, Given: %s, Choices: %s": t("yargs.invalidValue", { name: "%s", given: "%s", choices: "%s" }),
    "Argument check failed: %s": t("yargs.checkFailed", { what: "%s" }),
    "Implications failed:": t("yargs.implications"),
    "Not enough arguments following: %s": t("yargs.notEnoughFollowing", { name: "%s" }),
    "Did you mean %s?": t("yargs.didYouMean", { what: "%s" }),
    "Arguments %s and %s are mutually exclusive": t("yargs.exclusive", { a: "%s", b: "%s" }),
    "Show help": t("args.help"),
    "Show version number": t("args.version"),
  };
}

/** `text` read back through one of our templates whose only placeholder is `{names}`: the names, or undefined. */
function namesIn(text: string, key: MessageKey): string | undefined {
  const [before = "", after = ""] = t(key, { names: "\u0000" }).split("\u0000");
  if (!text.startsWith(before) || !text.endsWith(after) || text.length <= before.length + after.length) return undefined;
  return text.slice(before.length, text.length - after.length);
}

/** yargs reports `--no-foo` as "foo" plus a camelCase twin ("such-flag, suchFlag"); name what the user typed. */
function unknownArgsMessage(msg: string, argv: string[]): string {
  const found = namesIn(msg, "yargs.unknownArgument") ?? namesIn(msg, "yargs.unknownArguments");
  if (!found) return msg;
  const listed = found.split(", ");
  const kebab = (x: string) => x.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const names = listed
    .filter((x) => kebab(x) === x || !listed.includes(kebab(x)))
    .map((n) => (argv.some((a) => a === `--no-${n}` || a.startsWith(`--no-${n}=`)) ? `no-${n}` : n));
  return t(names.length > 1 ? "yargs.unknownArguments" : "yargs.unknownArgument", { names: names.join(", ") });
}

export function parseArgs(argv: string[], version: string): CliCommand {
  if (argv[0] === "mcp") return { kind: "mcp", argv: argv.slice(1) };
  if (argv[0] === "serve") return { kind: "serve", argv: argv.slice(1) };
  if (argv[0] === "acp") return { kind: "acp", argv: argv.slice(1) };
  if (argv[0] === "connect") return { kind: "connect", argv: argv.slice(1) };
  if (argv[0] === "watch") return { kind: "watch", argv: argv.slice(1) };
  let result: CliCommand | undefined;
  const common = (a: Record<string, unknown>): CommonFlags => {
    const f: CommonFlags = {};
    if (typeof a.provider === "string" && a.provider) f.provider = a.provider;
    if (typeof a.model === "string" && a.model) f.model = a.model;
    if (typeof a["permission-mode"] === "string") f.permissionMode = a["permission-mode"] as PermissionMode;
    if (typeof a.sandbox === "string") f.sandbox = a.sandbox as SandboxMode;
    if (a["max-budget-usd"] !== undefined) {
      const usd = Number(a["max-budget-usd"]);
      if (!Number.isFinite(usd) || usd <= 0) throw new UsageError(t("budget.invalid", { value: String(a["max-budget-usd"]) }));
      f.maxBudgetUsd = usd;
    }
    if (typeof a.agent === "string" && a.agent) f.agent = a.agent;
    if (a.offline === true) f.offline = true;
    const mcpConfig = (Array.isArray(a["mcp-config"]) ? a["mcp-config"] : [a["mcp-config"]]).filter((v): v is string => typeof v === "string" && v !== "");
    if (mcpConfig.length) f.mcpConfig = mcpConfig;
    if (a["strict-mcp-config"] === true) f.strictMcpConfig = true;
    return f;
  };
  const parser = yargs(argv)
    // A locale no yargs file is named after: every string comes from yargsStrings() (y18n treats the missing file as empty).
    .locale(`chatcli-${currentLang()}`)
    .updateLocale(yargsStrings() as Record<string, string>)
    .scriptName("chatcli")
    .usage(t("args.usage"))
    .option("prompt", { alias: "p", type: "string", describe: t("args.prompt") })
    .option("provider", { type: "string", describe: t("args.provider") })
    .option("model", { alias: "m", type: "string", describe: t("args.model") })
    .option("output-format", { choices: OUTPUT_FORMATS, default: "text" as const, describe: t("args.outputFormat") })
    .option("max-turns", { type: "number", describe: t("args.maxTurns") })
    .option("permission-mode", { choices: PERMISSION_MODES, describe: t("args.permissionMode") })
    .option("sandbox", { choices: SANDBOX_MODES, describe: t("args.sandbox") })
    .option("offline", { type: "boolean", describe: t("args.offline") })
    .option("inline", { type: "boolean", default: false, describe: t("args.inline") })
    .option("tui", { type: "boolean", default: true, describe: t("args.tui") })
    .option("resume", { alias: "r", type: "string", describe: t("args.resume") })
    .option("continue", { alias: "c", type: "boolean", default: false, describe: t("args.continue") })
    .option("rewind", { type: "number", describe: t("args.rewind") })
    .option("max-budget-usd", { type: "number", describe: t("args.maxBudgetUsd") })
    .option("agent", { type: "string", describe: t("args.agent") })
    .option("mcp-config", { type: "string", array: true, describe: t("args.mcpConfig") })
    .option("strict-mcp-config", { type: "boolean", describe: t("args.strictMcpConfig") })
    .command("models", t("args.models"), (y) => y.option("json", { type: "boolean", default: false, describe: t("args.json") }), (a) => {
      result = { kind: "models", flags: common(a), json: Boolean(a.json) };
    })
    .command("providers", t("args.providers"), (y) => y.option("json", { type: "boolean", default: false, describe: t("args.json") }), (a) => {
      result = { kind: "providers", flags: common(a), json: Boolean(a.json) };
    })
    .command("sessions [action] [file]", t("args.sessions"), (y) =>
      y.positional("action", { choices: ["list", "import"] as const, default: "list" as const }).positional("file", { type: "string" }),
      (a) => {
        const action = a.action === "import" ? "import" : "list";
        if (action === "import" && !a.file) throw new UsageError(t("args.importNeedsFile"));
        result = { kind: "sessions", flags: common(a), action, ...(typeof a.file === "string" ? { file: a.file } : {}) };
      },
    )
    .command("memory [action] [args..]", t("args.memory"), (y) =>
      y
        .positional("action", { choices: MEMORY_ACTIONS, default: "list" as const, describe: t("args.memoryAction") })
        .positional("args", { type: "string", array: true })
        .option("scope", { choices: SCOPES, describe: t("args.memoryScope") })
        .option("category", { choices: CATEGORIES, describe: t("args.memoryCategory") })
        .option("json", { type: "boolean", default: false, describe: t("args.json") })
        .option("yes", { alias: "y", type: "boolean", default: false, describe: t("args.memoryYes") })
        .option("all", { type: "boolean", default: false, describe: t("args.memoryAll") })
        .option("dry-run", { type: "boolean", default: false, describe: t("args.memoryDryRun") }),
      (a) => {
        const memory: MemoryArgs = {
          action: a.action as MemoryAction,
          args: ((a.args as unknown[] | undefined) ?? []).map(String),
          json: Boolean(a.json),
          yes: Boolean(a.yes),
          all: Boolean(a.all),
          dryRun: Boolean(a["dry-run"]),
          ...(typeof a.scope === "string" ? { scope: a.scope as Scope } : {}),
          ...(typeof a.category === "string" ? { category: a.category as Category } : {}),
        };
        result = { kind: "memory", flags: common(a), memory };
      },
    )
    .command("auth <action> [provider]", t("args.auth"), (y) =>
      y.positional("action", { choices: ["login", "logout", "status"] as const, demandOption: true }).positional("provider", { type: "string", default: "copilot" }),
      (a) => {
        result = { kind: "auth", flags: common(a), action: a.action as "login" | "logout" | "status", provider: String(a.provider ?? "copilot") };
      },
    )
    .command("serve", t("args.serve"))
    .command("acp", t("args.acp"))
    .command("connect", t("args.connect"))
    .command("mcp", t("args.mcp"))
    .command("watch", t("args.watch"))
    .command("update", t("args.update"), (y) =>
      y.version(false).option("check", { type: "boolean", default: false, describe: t("args.updateCheck") }).option("version", { type: "string", describe: t("args.updateVersion") }),
      (a) => {
        result = { kind: "update", flags: common(a), check: Boolean(a.check), ...(typeof a.version === "string" ? { version: a.version } : {}) };
      },
    )
    .command("hooks <action> [event]", t("args.hooks"), (y) =>
      y
        .positional("action", { choices: ["list", "test", "trust"] as const, demandOption: true, describe: t("args.hooksAction") })
        .positional("event", { type: "string", describe: t("args.hooksEvent") })
        .option("tool", { type: "string", describe: t("args.hooksTool") })
        .option("input", { type: "string", describe: t("args.hooksInput") }),
      (a) => {
        const action = a.action as "list" | "test" | "trust";
        if (action === "test" && !a.event) throw new UsageError(t("args.hooksTestNeedsEvent"));
        result = { kind: "hooks", flags: common(a), action, ...(typeof a.event === "string" ? { event: a.event } : {}), ...(typeof a.tool === "string" ? { tool: a.tool } : {}), ...(typeof a.input === "string" ? { input: a.input } : {}) };
      },
    )
    .command("agents [action]", t("args.agents"), (y) =>
      y.positional("action", { choices: ["list", "init"] as const, default: "list" as const }).option("force", { type: "boolean", default: false, describe: t("args.agentsForce") }),
      (a) => {
        result = { kind: "agents", flags: common(a), action: a.action === "init" ? "init" : "list", force: Boolean(a.force) };
      },
    )
    .version("version", t("args.version"), version)
    .alias("version", "v")
    .help("help", t("args.help"))
    .alias("help", "h")
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      throw err instanceof UsageError ? err : new UsageError(unknownArgsMessage(msg || err?.message || t("args.invalid"), argv));
    });

  const a = parser.parseSync() as Record<string, unknown>;
  if (result) return result;
  if (a.help || a.version) return { kind: "printed" };
  const positional = (a._ as unknown[] | undefined) ?? [];
  if (positional.length) throw new UsageError(t("args.unknownCommand", { name: String(positional[0]) }));
  if (a.agent !== undefined && (typeof a.agent !== "string" || !a.agent.trim())) throw new UsageError(t("args.agentNeedsValue"));
  const maxTurns = typeof a["max-turns"] === "number" ? a["max-turns"] : undefined;
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) throw new UsageError(t("args.maxTurnsInvalid"));
  const rewind = typeof a.rewind === "number" ? a.rewind : undefined;
  if (rewind !== undefined && (!Number.isInteger(rewind) || rewind < 1)) throw new UsageError(t("args.rewindInvalid"));
  const resume = typeof a.resume === "string" ? a.resume : undefined;
  if (rewind !== undefined && resume === undefined && !a.continue) throw new UsageError(t("cli.rewindNeedsSession"));
  const base = { flags: common(a), continue: Boolean(a.continue), ...(resume !== undefined ? { resume } : {}), ...(rewind !== undefined ? { rewind } : {}) };
  if (typeof a.prompt === "string") {
    return { kind: "oneshot", prompt: a.prompt, outputFormat: a["output-format"] as OutputFormat, ...(maxTurns !== undefined ? { maxTurns } : {}), ...base };
  }
  if (a.prompt !== undefined) throw new UsageError(t("args.promptNeedsValue"));
  return { kind: "interactive", inline: Boolean(a.inline), noTui: a.tui === false, ...base };
}
