/**
 * The loaded plugins of a session. `load()` runs once, off the first-frame path (after session.started; the first
 * prompt waits for it): user plugins always, project plugins only when the project is trusted. A plugin that throws
 * while loading, or later in one of its hooks, is disabled with a warning naming it; its tools and commands go away
 * and the session goes on. Module plugins are imported with Bun's runtime transpiler (plugin-module.ts).
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import type { AgentEvent } from "../../protocol/events.ts";
import type { ToolDefinition } from "../../tool/tool.ts";
import { getProviderDefinition, registerProvider } from "../../llm/registry.ts";
import { t } from "../../i18n/i18n.ts";
import type { ConfiguredHook, FunctionHookSpec } from "../hooks/hook-config.ts";
import type { HookEvent } from "../hooks/hook-events.ts";
import type { PluginDefinition, PluginHooks } from "./plugin-api.ts";
import { discoverPlugins, type PluginEntry } from "./discover-plugins.ts";
import { externalPluginTool, readExternalMetadata, type ExternalMetadata } from "./external-plugin.ts";
import { registerPluginModule } from "./plugin-module.ts";

export interface LoadedPlugin {
  entry: PluginEntry;
  name: string;
  version?: string;
  description?: string;
  tools: ToolDefinition[];
  commands: NonNullable<PluginDefinition["commands"]>;
  hooks: Array<keyof PluginHooks>;
  providers: string[];
  /** Set when loading failed or a hook threw: the plugin is off. */
  error?: string;
  def?: PluginDefinition;
}

export interface PluginHostOptions {
  userDir: string;
  projectDir: string;
  env: Record<string, string | undefined>;
  /** Names the plugins' tools may not take (the built-ins). */
  reservedToolNames: () => string[];
  publish(e: AgentEvent): void;
  log(line: string): void;
}

/** The hook events each plugin hook runs on (tool.after sees failed calls too, with `isError`). */
const HOOK_EVENT: Record<keyof PluginHooks, HookEvent[]> = {
  "tool.before": ["PreToolUse"],
  "tool.after": ["PostToolUse", "PostToolUseFailure"],
  "prompt.submit": ["UserPromptSubmit"],
  "session.start": ["SessionStart"],
};

export class PluginHost {
  readonly plugins: LoadedPlugin[] = [];
  private loading: Promise<void> | undefined;

  constructor(private readonly o: PluginHostOptions) {}

  /** Loads once; later calls return the same promise. */
  load(opts: { project: boolean }): Promise<void> {
    this.loading ??= this.loadAll(opts.project);
    return this.loading;
  }

  tools(): ToolDefinition[] {
    return this.plugins.flatMap((p) => (p.error ? [] : p.tools));
  }

  commands(): Array<{ name: string; description: string }> {
    return this.plugins.flatMap((p) => (p.error ? [] : p.commands.map((c) => ({ name: c.name, description: c.description ?? t("plugins.commandOf", { plugin: p.name }) }))));
  }

  /** A plugin command's text, or undefined when no enabled plugin has that command. */
  runCommand(name: string, args: string): Promise<string> | undefined {
    for (const p of this.plugins) {
      if (p.error) continue;
      const c = p.commands.find((x) => x.name === name);
      if (!c) continue;
      return Promise.resolve()
        .then(() => c.run(args))
        .then(String)
        .catch((err: unknown) => {
          this.disable(p.name, (err as Error)?.message ?? String(err));
          return t("plugins.commandFailed", { plugin: p.name, error: (err as Error)?.message ?? String(err) });
        });
    }
    return undefined;
  }

  /** The plugins' hooks, as dispatcher hooks (hook-dispatcher.ts runs them beside the settings' hooks). */
  hookSpecs(): ConfiguredHook[] {
    const out: ConfiguredHook[] = [];
    for (const p of this.plugins) {
      if (p.error || !p.def?.hooks) continue;
      for (const key of p.hooks) {
        const fn = p.def.hooks[key];
        if (typeof fn !== "function") continue;
        const spec: FunctionHookSpec = { type: "function", plugin: p.name, run: (input) => runPluginHook(key, fn as (x: unknown) => unknown, input) };
        for (const event of HOOK_EVENT[key]) out.push({ event, spec, source: "plugin" });
      }
    }
    return out;
  }

  disable(name: string, why: string): void {
    const p = this.plugins.find((x) => x.name === name);
    if (!p || p.error) return;
    p.error = why;
    this.o.log(`plugin ${name} disabled: ${why}`);
    this.o.publish({ type: "notice", level: "warn", text: t("plugins.disabled", { plugin: name, error: why }) });
  }

  private async loadAll(project: boolean): Promise<void> {
    const entries = [...discoverPlugins(this.o.userDir, "user"), ...(project ? discoverPlugins(this.o.projectDir, "project") : [])];
    if (entries.length === 0) return;
    if (entries.some((e) => e.kind === "module")) registerPluginModule();
    // Imported (and external ones asked for --metadata) all at once; registered in listing order, so tool names
    // are first come, first served.
    const readied = entries.map((e) => (e.kind === "module" ? importPlugin(e.entry) : readExternalMetadata(e.entry, this.o.env)));
    for (const p of readied) p.catch(() => undefined);
    for (const [i, entry] of entries.entries()) this.plugins.push(await this.loadOne(entry, readied[i]!));
  }

  private async loadOne(entry: PluginEntry, readied: Promise<unknown>): Promise<LoadedPlugin> {
    const base: LoadedPlugin = { entry, name: entry.name, tools: [], commands: [], hooks: [], providers: [] };
    try {
      const p = entry.kind === "external" ? this.loadExternal(entry, base, (await readied) as ExternalMetadata) : this.loadModule(base, (await readied) as PluginModule);
      this.o.log(`plugin ${p.name} loaded from ${entry.path}: ${p.tools.length} tools, ${p.commands.length} commands, ${p.hooks.length} hooks`);
      return p;
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      this.o.log(`plugin ${entry.name} failed to load from ${entry.path}: ${error}`);
      this.o.publish({ type: "notice", level: "warn", text: t("plugins.loadFailed", { plugin: entry.name, path: entry.path, error }) });
      return { ...base, error };
    }
  }

  private loadExternal(entry: PluginEntry, base: LoadedPlugin, meta: ExternalMetadata): LoadedPlugin {
    const tool = externalPluginTool(entry.entry, meta, this.o.env.PATH);
    this.claimToolNames([tool]);
    return { ...base, name: meta.name, ...(meta.version ? { version: meta.version } : {}), description: meta.description, tools: [tool] };
  }

  private loadModule(base: LoadedPlugin, mod: PluginModule): LoadedPlugin {
    const def = checkDefinition(mod.default ?? mod.plugin);
    const tools = def.tools ?? [];
    this.claimToolNames(tools);
    for (const c of def.commands ?? []) if (!c || typeof c.name !== "string" || typeof c.run !== "function") throw new Error("every command needs a name and a run(args) function");
    const providers = def.providers ?? [];
    for (const prov of providers) {
      if (!prov || typeof prov.id !== "string" || typeof prov.create !== "function") throw new Error("every provider needs an id and create()");
      registerProvider(prov);
    }
    const hooks = (Object.keys(def.hooks ?? {}) as Array<keyof PluginHooks>).filter((k) => k in HOOK_EVENT);
    return {
      ...base,
      name: def.name,
      ...(def.version ? { version: def.version } : {}),
      ...(def.description ? { description: def.description } : {}),
      tools,
      commands: def.commands ?? [],
      hooks,
      providers: providers.map((p) => p.id),
      def,
    };
  }

  private claimToolNames(tools: ToolDefinition[]): void {
    const taken = new Set([...this.o.reservedToolNames(), ...this.tools().map((x) => x.name)].map((n) => n.toLowerCase()));
    for (const tool of tools) {
      if (!tool || typeof tool.spec !== "function" || typeof tool.run !== "function") throw new Error("every tool must be made with defineTool() from chatcli/plugin");
      if (taken.has(tool.name.toLowerCase())) throw new Error(`tool name "${tool.name}" is already taken`);
      taken.add(tool.name.toLowerCase());
    }
  }
}

type PluginModule = { default?: unknown; plugin?: unknown };

/** One import per file per process: a prefetch (prefetchUserPlugins) and the load share it. */
const imports = new Map<string, Promise<PluginModule>>();

function importPlugin(file: string): Promise<PluginModule> {
  let p = imports.get(file);
  if (!p) {
    registerPluginModule();
    p = import(pathToFileURL(file).href) as Promise<PluginModule>;
    imports.set(file, p);
  }
  return p;
}

/**
 * `-p`: starts importing the user's module plugins while the model is looked up (the first prompt waits for them;
 * project plugins wait for trust). Never throws; a failing import is reported by the load.
 */
export function prefetchUserPlugins(home: string): void {
  for (const e of discoverPlugins(join(home, "plugins"), "user")) if (e.kind === "module") importPlugin(e.entry).catch(() => undefined);
}

/**
 * A provider no built-in defines (`--provider MYPROV`) may come from a user plugin: before the model is resolved,
 * the user's module plugins are imported and their providers registered. Costs nothing when the provider is known.
 */
export async function registerPluginProviders(home: string, providerId: string): Promise<void> {
  if (getProviderDefinition(providerId)) return;
  for (const e of discoverPlugins(join(home, "plugins"), "user")) {
    if (e.kind !== "module") continue;
    try {
      const def = (await importPlugin(e.entry)).default as PluginDefinition | undefined;
      for (const p of Array.isArray(def?.providers) ? def.providers : []) if (p && typeof p.id === "string" && typeof p.create === "function") registerProvider(p);
    } catch {
      // reported when the plugins load with the session
    }
  }
}

export function pluginDirs(home: string, projectRoot: string): { userDir: string; projectDir: string } {
  return { userDir: join(home, "plugins"), projectDir: join(projectRoot, ".chatcli", "plugins") };
}

function checkDefinition(v: unknown): PluginDefinition {
  if (!v || typeof v !== "object") throw new Error("the module has no default export made with definePlugin({ name, … })");
  const d = v as PluginDefinition;
  if (typeof d.name !== "string" || !d.name.trim()) throw new Error("definePlugin needs a name");
  if (d.tools !== undefined && !Array.isArray(d.tools)) throw new Error("tools must be a list");
  if (d.commands !== undefined && !Array.isArray(d.commands)) throw new Error("commands must be a list");
  if (d.providers !== undefined && !Array.isArray(d.providers)) throw new Error("providers must be a list");
  if (d.hooks !== undefined && (typeof d.hooks !== "object" || d.hooks === null)) throw new Error("hooks must be an object");
  return d;
}

/** Calls a plugin hook with its own context shape; maps its answer onto the hooks' JSON keys. */
async function runPluginHook(key: keyof PluginHooks, fn: (x: unknown) => unknown, input: Record<string, unknown>): Promise<unknown> {
  const callId = String(input.tool_use_id ?? "");
  const tool = String(input.tool_name ?? "");
  const toolInput = (input.tool_input as Record<string, unknown> | undefined) ?? {};
  switch (key) {
    case "tool.before": {
      const r = (await fn({ tool, input: toolInput, callId })) as { block?: string; input?: Record<string, unknown>; context?: string } | undefined;
      if (!r) return undefined;
      return { ...(r.block ? { decision: "block", reason: r.block } : {}), ...(r.input ? { hookSpecificOutput: { updatedInput: r.input } } : {}), ...(r.context ? { additionalContext: r.context } : {}) };
    }
    case "tool.after": {
      const resp = input.tool_response as { output?: string } | undefined;
      const r = (await fn({ tool, input: toolInput, callId, output: resp?.output ?? String(input.error ?? ""), isError: input.hook_event_name === "PostToolUseFailure" })) as { context?: string } | undefined;
      return r?.context ? { additionalContext: r.context } : undefined;
    }
    case "prompt.submit": {
      const r = (await fn({ prompt: String(input.prompt ?? "") })) as { block?: string; context?: string } | undefined;
      if (!r) return undefined;
      return { ...(r.block ? { decision: "block", reason: r.block } : {}), ...(r.context ? { additionalContext: r.context } : {}) };
    }
    case "session.start": {
      const r = (await fn({ sessionId: String(input.session_id ?? ""), cwd: String(input.cwd ?? ""), source: String(input.source ?? "") })) as { context?: string } | undefined;
      return r?.context ? { additionalContext: r.context } : undefined;
    }
  }
}
