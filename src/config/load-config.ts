/**
 * Resolves the effective configuration: flags > env > project settings > user settings > defaults.
 * `.env` in the working directory (or the file named by CHATCLI_DOTENV) fills env vars that are not set.
 * Invalid settings throw ConfigError naming the file, the key and what is expected.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import zodPtBR from "zod/v4/locales/pt-BR.js";
import { currentLang, t } from "../i18n/i18n.ts";
import type { PermissionMode } from "../protocol/events.ts";
import { parseSandboxMode, type SandboxMode } from "../sandbox/types.ts";
import { parseDotenv, rememberDotenvValues } from "./dotenv.ts";
import { chatcliHome, findProjectRoot } from "./paths.ts";
import { KNOWN_TOP_LEVEL_KEYS, settingsSchema, type Settings } from "./settings-schema.ts";
import { findJsonSyntaxError, type JsonExpectation } from "./json-syntax-error.ts";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface ConfigFlags {
  provider?: string;
  model?: string;
  permissionMode?: PermissionMode;
  inline?: boolean;
  sandbox?: SandboxMode;
  maxBudgetUsd?: number;
  /** `--offline`: no network but the provider (no fetch tool, no sandbox network). */
  offline?: boolean;
}

export interface Config {
  env: Record<string, string | undefined>;
  cwd: string;
  projectRoot: string;
  home: string;
  settings: Settings;
  /** Upper-cased provider id. */
  provider: string;
  /** Explicitly chosen model, if any (else the provider's default / first installed). */
  model?: string;
  /** Where the model choice came from, for messages. */
  modelSource: "flag" | "env" | "settings" | "none";
  permissionMode: PermissionMode;
  /** flag > CHATCLI_SANDBOX (the real environment only, never `.env`) > settings > workspace-write. */
  sandbox: { mode: SandboxMode; network: boolean; envAllow: string[] };
  /** `--offline` was given: nothing but the provider may use the network. */
  offline: boolean;
  /** The fetch tool: off with `"webFetch": false` or `--offline`. */
  webFetch: { enabled: boolean; allowPrivateNetworks: boolean };
  warnings: string[];
  files: { user: string; project: string; dotenv?: string };
  /** Spending limit in USD: `--max-budget-usd` > settings `maxBudgetUsd` (the lower of user and project). */
  maxBudgetUsd?: number;
}

export interface LoadOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  flags: ConfigFlags;
}

export function loadConfig(opts: LoadOptions): Config {
  const warnings: string[] = [];
  const env = { ...opts.env };
  const dotenvPath = env.CHATCLI_DOTENV ? resolve(opts.cwd, env.CHATCLI_DOTENV) : join(opts.cwd, ".env");
  let dotenvUsed: string | undefined;
  if (existsSync(dotenvPath)) {
    try {
      const vars = parseDotenv(readFileSync(dotenvPath, "utf8"));
      for (const [k, v] of Object.entries(vars)) {
        if (env[k] !== undefined) continue;
        const why = dotenvRefusal(k, v);
        if (why) warnings.push(t("config.dotenvRefused", { file: dotenvPath, key: k, why }));
        else env[k] = v;
      }
      rememberDotenvValues(Object.values(vars));
      dotenvUsed = dotenvPath;
    } catch (err) {
      throw new ConfigError(t("config.cannotRead", { file: dotenvPath, error: (err as Error).message }));
    }
  } else if (env.CHATCLI_DOTENV) {
    throw new ConfigError(t("config.dotenvMissing", { file: dotenvPath }));
  }

  const home = chatcliHome(env);
  const projectRoot = findProjectRoot(opts.cwd);
  const userFile = join(home, "settings.json");
  const projectFile = join(projectRoot, ".chatcli", "settings.json");
  // Both files are read before failing, so one run reports the problems of both.
  const problems: string[] = [];
  const attempt = (file: string): Settings => {
    try {
      return readSettings(file, warnings);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
      return {};
    }
  };
  const user = attempt(userFile);
  const project = projectFile === userFile ? {} : withoutWidening(attempt(projectFile), projectFile, warnings);
  if (problems.length) throw new ConfigError(problems.join("\n"));
  const settings = mergeSettings(user, project);

  const provider = (opts.flags.provider || env.LLM_PROVIDER || settings.provider || "OLLAMA").toUpperCase();
  let model: string | undefined;
  let modelSource: Config["modelSource"] = "none";
  if (opts.flags.model) [model, modelSource] = [opts.flags.model, "flag"];
  else if (env.LLM_MODEL) [model, modelSource] = [env.LLM_MODEL, "env"];
  else if (settings.model) [model, modelSource] = [settings.model, "settings"];

  const envMode = env.CHATCLI_PERMISSION_MODE;
  const permissionMode = opts.flags.permissionMode ?? parseMode(envMode, warnings) ?? settings.permissionMode ?? "default";

  const sandbox = {
    mode: opts.flags.sandbox ?? parseSandboxEnv(opts.env.CHATCLI_SANDBOX, warnings) ?? settings.sandbox?.mode ?? "workspace-write",
    network: opts.flags.offline ? false : (settings.sandbox?.network ?? false),
    envAllow: settings.sandbox?.env ?? [],
  };

  const cfg: Config = {
    env,
    cwd: opts.cwd,
    projectRoot,
    home,
    settings,
    provider,
    modelSource,
    permissionMode,
    sandbox,
    offline: opts.flags.offline === true,
    webFetch: webFetchOf(user, project, opts.flags.offline === true),
    warnings,
    files: { user: userFile, project: projectFile, ...(dotenvUsed ? { dotenv: dotenvUsed } : {}) },
  };
  if (model) cfg.model = model;
  // A project file may lower the user's limit, never raise it (it comes with the repository).
  const budgets = [user.maxBudgetUsd, project.maxBudgetUsd].filter((n): n is number => n !== undefined);
  const maxBudgetUsd = opts.flags.maxBudgetUsd ?? (budgets.length ? Math.min(...budgets) : undefined);
  if (maxBudgetUsd !== undefined) cfg.maxBudgetUsd = maxBudgetUsd;
  return cfg;
}

/**
 * A `.env` in the working directory and `<project>/.chatcli/settings.json` come with the repository: untrusted
 * input. They may configure providers and tighten the safety settings, never widen them; what widens them
 * (bypass, no sandbox, network, secrets passed to commands, another chatcli home, extra read roots) belongs to
 * the user: a flag, the real environment or ~/.chatcli/settings.json.
 */
const DOTENV_REFUSED = new Set(["CHATCLI_HOME", "CHATCLI_SANDBOX", "CHATCLI_AGENT_EXTRA_READ_PATHS", "CHATCLI_DOTENV"]);

function dotenvRefusal(key: string, value: string): string | undefined {
  if (DOTENV_REFUSED.has(key)) return t("config.dotenvKeyRefused", { hint: t("config.wideningHint") });
  if (key === "CHATCLI_PERMISSION_MODE" && value.trim() === "bypass") return t("config.dotenvBypassRefused", { hint: t("config.wideningHint") });
  return undefined;
}

function withoutWidening(project: Settings, file: string, warnings: string[]): Settings {
  const out: Settings = { ...project };
  const refuse = (key: string) => warnings.push(t("config.projectRefused", { file, key, hint: t("config.wideningHint") }));
  if (out.permissionMode === "bypass") {
    refuse('"permissionMode": "bypass"');
    delete out.permissionMode;
  }
  if (out.sandbox) {
    const sandbox = { ...out.sandbox };
    if (sandbox.mode === "off") {
      refuse('"sandbox.mode": "off"');
      delete sandbox.mode;
    }
    if (sandbox.network) {
      refuse('"sandbox.network"');
      delete sandbox.network;
    }
    if (sandbox.env?.length) {
      refuse('"sandbox.env"');
      delete sandbox.env;
    }
    out.sandbox = sandbox;
  }
  if (typeof out.webFetch === "object" && out.webFetch.allowPrivateNetworks) {
    refuse('"webFetch.allowPrivateNetworks"');
    out.webFetch = {};
  }
  if (out.webFetch === true) delete out.webFetch;
  // MCP servers a repository brings belong in its `.mcp.json`, which asks the user before any of them starts.
  if (out.mcpServers) {
    refuse('"mcpServers"');
    delete out.mcpServers;
  }
  return out;
}

/** Either file can turn the fetch tool off; only the user's own settings let it reach private networks. */
function webFetchOf(user: Settings, project: Settings, offline: boolean): Config["webFetch"] {
  const enabled = !offline && user.webFetch !== false && project.webFetch !== false;
  return { enabled, allowPrivateNetworks: enabled && typeof user.webFetch === "object" && user.webFetch.allowPrivateNetworks === true };
}

function parseMode(v: string | undefined, warnings: string[]): PermissionMode | undefined {
  if (!v) return undefined;
  if (v === "default" || v === "accept-edits" || v === "plan" || v === "bypass") return v;
  warnings.push(t("config.badPermissionMode", { value: v }));
  return undefined;
}

function parseSandboxEnv(v: string | undefined, warnings: string[]): SandboxMode | undefined {
  if (!v) return undefined;
  const mode = parseSandboxMode(v);
  if (!mode) warnings.push(t("config.badSandbox", { value: v }));
  return mode;
}

export function readSettings(file: string, warnings: string[]): Settings {
  if (!existsSync(file)) return {};
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(t("config.cannotReadSettings", { file, error: (err as Error).message }));
  }
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const at = findJsonSyntaxError(text);
    if (!at) throw new ConfigError(t("config.invalidJson", { file, error: (err as Error).message }));
    const found = at.found === null ? t("settings.jsonEnd") : JSON.stringify(at.found);
    throw new ConfigError(t("settings.jsonSyntax", { file, line: at.line, column: at.column, found, expected: describeExpectation(at.expected) }));
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(t("config.notObject", { file }));
  }
  for (const key of Object.keys(raw)) {
    if (!KNOWN_TOP_LEVEL_KEYS.has(key)) warnings.push(t("config.unknownKey", { file, key }));
  }
  // zod's own wording for the rare issue describeIssue does not phrase: in the user's language.
  const parsed = settingsSchema.safeParse(raw, currentLang() === "pt-BR" ? { error: zodPtBR().localeError } : {});
  if (!parsed.success) {
    // Every bad key at once, one per line: fixing them one run at a time is a chore.
    const byKey = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const key = issue.path.length ? issue.path.join(".") : "(root)";
      if (!byKey.has(key)) byKey.set(key, describeIssue(issue));
    }
    const lines = [...byKey].map(([key, what]) => t("settings.badKey", { key, what }));
    throw new ConfigError([t("settings.invalid", { file, count: lines.length }), ...lines].join("\n"));
  }
  return parsed.data;
}

function describeExpectation(e: JsonExpectation): string {
  if (e.startsWith("token:")) return e.slice("token:".length);
  const keys = { value: "settings.jsonExpectValue", key: "settings.jsonExpectKey", hexDigit: "settings.jsonExpectHex", escape: "settings.jsonExpectEscape", digit: "settings.jsonExpectDigit", end: "settings.jsonEnd" } as const;
  return t(keys[e as keyof typeof keys]);
}

function describeIssue(issue: { code: string; message: string; expected?: unknown; values?: unknown }): string {
  if (issue.code === "invalid_type" && issue.expected) return t("config.expected", { what: String(issue.expected) });
  if (issue.code === "invalid_value" && Array.isArray(issue.values)) return t("config.expectedOneOf", { values: issue.values.map((v) => JSON.stringify(v)).join(", ") });
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function mergeSettings(base: Settings, over: Settings): Settings {
  const out: Settings = { ...base, ...over };
  if (base.ui || over.ui) out.ui = { ...base.ui, ...over.ui };
  if (base.sandbox || over.sandbox) out.sandbox = { ...base.sandbox, ...over.sandbox };
  if (base.experimental || over.experimental) out.experimental = { ...base.experimental, ...over.experimental };
  if (base.agents || over.agents) out.agents = { ...base.agents, ...over.agents };
  if (base.providers || over.providers) {
    out.providers = { ...base.providers, ...over.providers, openaiCompatible: [...(over.providers?.openaiCompatible ?? []), ...(base.providers?.openaiCompatible ?? [])] };
  }
  return out;
}
