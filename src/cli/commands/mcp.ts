/**
 * `chatcli mcp add|add-json|remove|list|get|login|logout|approve|import`: manage MCP servers from the shell.
 * Loaded with `await import()` by main.ts only for this subcommand. Runs even when the settings do not load (a
 * broken entry must stay removable): the configuration error is then a warning. Exit codes: 0 done, 1 failed
 * (not found, cannot write, login failed), 2 usage (UsageError, printed by main.ts).
 */
import { ConfigError, loadConfig } from "../../config/load-config.ts";
import { chatcliHome, findProjectRoot } from "../../config/paths.ts";
import { detectLang, setLang, t, type MessageKey } from "../../i18n/i18n.ts";
import { UsageError } from "../args.ts";
import type { McpCliContext, Out } from "./mcp-context.ts";

type Sub = (ctx: McpCliContext, words: string[]) => number | Promise<number>;

const SUBCOMMANDS: Record<string, { help: MessageKey; run: () => Promise<Sub> }> = {
  add: { help: "mcp.help.add", run: async () => (await import("./mcp-edit.ts")).mcpAdd },
  "add-json": { help: "mcp.help.addJson", run: async () => (await import("./mcp-edit.ts")).mcpAddJson },
  remove: { help: "mcp.help.remove", run: async () => (await import("./mcp-edit.ts")).mcpRemove },
  list: { help: "mcp.help.list", run: async () => (await import("./mcp-show.ts")).mcpList },
  get: { help: "mcp.help.get", run: async () => (await import("./mcp-show.ts")).mcpGet },
  approve: { help: "mcp.help.approve", run: async () => (await import("./mcp-approve.ts")).mcpApprove },
  import: { help: "mcp.help.import", run: async () => (await import("./mcp-import.ts")).mcpImport },
  login: { help: "mcp.help.login", run: async () => (await import("./mcp-login.ts")).mcpLogin },
  logout: { help: "mcp.help.logout", run: async () => (await import("./mcp-login.ts")).mcpLogout },
};
const ALIASES: Record<string, string> = { rm: "remove", ls: "list" };

export async function mcpCommand(argv: string[], out: Out, err: Out, cwd = process.cwd(), env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    return await dispatch(argv, out, err, cwd, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`chatcli: ${e.message}\n${t("mcp.runHelp")}\n`);
    return 2;
  }
}

async function dispatch(argv: string[], out: Out, err: Out, cwd: string, env: Record<string, string | undefined>): Promise<number> {
  const [first, ...words] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    (first === undefined ? err : out).write(`${overview()}\n`);
    return first === undefined ? 2 : 0;
  }
  const name = ALIASES[first] ?? first;
  const sub = SUBCOMMANDS[name];
  if (!sub) throw new UsageError(t("mcp.unknownSubcommand", { name: first, list: Object.keys(SUBCOMMANDS).join(", ") }));
  if (words.includes("--help") || words.includes("-h")) {
    // Only before `--`: after it the words belong to the server's command.
    const dd = words.indexOf("--");
    const at = Math.max(words.indexOf("--help"), words.indexOf("-h"));
    if (dd < 0 || at < dd) {
      out.write(`${t(sub.help)}\n`);
      return 0;
    }
  }
  const ctx = context(cwd, env, out, err);
  return (await sub.run())(ctx, words);
}

function context(cwd: string, env: Record<string, string | undefined>, out: Out, err: Out): McpCliContext {
  try {
    const cfg = loadConfig({ cwd, env, flags: {} });
    setLang(cfg.settings.language && !cfg.env.CHATCLI_LANG ? cfg.settings.language : detectLang(cfg.env));
    return { env: cfg.env, cwd, home: cfg.home, projectRoot: cfg.projectRoot, out, err };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    err.write(`chatcli: ${t("cli.warning", { message: e.message })}\n`);
    return { env, cwd, home: chatcliHome(env), projectRoot: findProjectRoot(cwd), out, err };
  }
}

function overview(): string {
  return t("mcp.help.overview");
}
