/**
 * Builds a session's hooks runtime and plugin host from the configuration, or nothing when there is nothing to run
 * (no `hooks` in either settings file, no plugins directory): then a session pays two stats for this feature.
 * User hooks come from ~/.chatcli/settings.json, project hooks from <project>/.chatcli/settings.json (each file's
 * own block: the merged settings cannot say which file a hook came from). `"disableAllHooks": true` in the user's
 * file turns every hook off; in the project's, only the project's hooks (plugins stay).
 */
import { existsSync, readFileSync } from "node:fs";
import type { Config } from "../../config/load-config.ts";
import { builtinTools } from "../../tool/registry.ts";
import { parseHooksBlock, type ConfiguredHook } from "./hook-config.ts";
import { HooksRuntime, type HooksRuntimeOptions } from "./hooks-runtime.ts";
import type { ProjectExtensions } from "./project-trust.ts";
import { PluginHost, pluginDirs } from "../plugins/plugin-host.ts";
import { pluginFilesForTrust } from "../plugins/discover-plugins.ts";

export interface Extensions {
  runtime: HooksRuntime;
  plugins: PluginHost;
}

/** The session's side of the hooks runtime, passed through as is. */
export interface ExtensionOptions extends Pick<HooksRuntimeOptions, "sessionId" | "interactive" | "publish" | "mode" | "model" | "transcriptPath" | "ask" | "log"> {
  cfg: Config;
}

export interface SettingsHooks {
  user: ConfiguredHook[];
  project: ConfiguredHook[];
  projectRaw: unknown;
  disabled: boolean;
  warnings: string[];
}

/** Each settings file's own `hooks` block (read again: cfg.settings is the merge of both). */
export function readSettingsHooks(cfg: Pick<Config, "files" | "settings">): SettingsHooks {
  const none: SettingsHooks = { user: [], project: [], projectRaw: undefined, disabled: false, warnings: [] };
  const s = cfg.settings as { hooks?: unknown; disableAllHooks?: unknown };
  if (s.hooks === undefined && s.disableAllHooks === undefined) return none;
  const user = rawOf(cfg.files.user);
  const project = cfg.files.project === cfg.files.user ? {} : rawOf(cfg.files.project);
  const u = parseHooksBlock(user.hooks, "user");
  const p = parseHooksBlock(project.hooks, "project");
  // A repository may switch its own hooks off, never the user's (project settings tighten, never widen).
  const userOff = user.disableAllHooks === true;
  const projectOff = userOff || project.disableAllHooks === true;
  return {
    user: userOff ? [] : u.hooks,
    project: projectOff ? [] : p.hooks,
    projectRaw: projectOff ? undefined : project.hooks,
    disabled: userOff,
    warnings: [...u.warnings.map((w) => `${cfg.files.user}: ${w}`), ...p.warnings.map((w) => `${cfg.files.project}: ${w}`)],
  };
}

export function projectExtensions(cfg: Pick<Config, "projectRoot" | "home">, projectRaw: unknown): ProjectExtensions {
  const { projectDir } = pluginDirs(cfg.home, cfg.projectRoot);
  return { hooks: projectRaw, plugins: existsSync(projectDir) ? pluginFilesForTrust(projectDir) : [] };
}

export function createExtensions(o: ExtensionOptions): Extensions | undefined {
  const { cfg } = o;
  const hooks = readSettingsHooks(cfg);
  const dirs = pluginDirs(cfg.home, cfg.projectRoot);
  const anyPlugins = existsSync(dirs.userDir) || existsSync(dirs.projectDir);
  if (!anyPlugins && hooks.user.length === 0 && hooks.project.length === 0 && hooks.warnings.length === 0) return undefined;
  const plugins = new PluginHost({ ...dirs, env: cfg.env, reservedToolNames: () => builtinTools().map((x) => x.name), publish: o.publish, log: o.log });
  const runtime = new HooksRuntime({
    home: cfg.home,
    projectRoot: cfg.projectRoot,
    cwd: cfg.cwd,
    sessionId: o.sessionId,
    env: cfg.env,
    userHooks: hooks.user,
    projectHooks: hooks.project,
    projectExtensions: () => projectExtensions(cfg, hooks.projectRaw),
    interactive: o.interactive,
    publish: o.publish,
    mode: o.mode,
    model: o.model,
    transcriptPath: o.transcriptPath,
    ...(o.ask ? { ask: o.ask } : {}),
    log: o.log,
    plugins,
    warnings: hooks.warnings,
  });
  return { runtime, plugins };
}

function rawOf(file: string): { hooks?: unknown; disableAllHooks?: unknown } {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return v && typeof v === "object" ? (v as { hooks?: unknown; disableAllHooks?: unknown }) : {};
  } catch {
    return {};
  }
}
