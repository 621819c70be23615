/**
 * What main.ts does for skills, personas and custom commands (issue 18), kept out of main.ts: the discovery
 * started early, `--agent NAME` (its model chosen before the model look-up, so a persona on another provider
 * does not need the default one to answer), the persona applied once the session exists, and `-p "/name args"`.
 */
import type { Config } from "../config/load-config.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { t } from "../i18n/i18n.ts";
import { discoverExtensions } from "../ext/ext-discovery.ts";
import type { ExtRoots } from "../ext/ext-files.ts";
import type { ExtRuntime } from "../ext/ext-runtime.ts";
import { expandHeadlessPrompt } from "../ext/ext-slash.ts";
import { UsageError, type CommonFlags } from "./args.ts";

export function extRoots(cfg: Config): ExtRoots {
  return { projectRoot: cfg.projectRoot, chatcliHome: cfg.home, ...(cfg.env.HOME ? { userHome: cfg.env.HOME } : {}) };
}

/** Starts discovery (asynchronous; the session awaits the same promise before its first request). */
export function startExtDiscovery(cfg: Config): void {
  void discoverExtensions(extRoots(cfg));
}

/**
 * `--agent NAME`: a usage error when no definition has that name; the config with the persona's `PROVIDER:model`
 * when it has one and neither --provider nor --model was given (a flag the user typed wins).
 */
export async function configForAgentFlag(cfg: Config, flags: CommonFlags): Promise<Config> {
  if (!flags.agent) return cfg;
  const cat = await discoverExtensions(extRoots(cfg));
  const def = cat.agents.find((a) => a.name === flags.agent);
  if (!def) throw new UsageError(t("ext.cliAgentUnknown", { name: flags.agent, names: cat.agents.map((a) => a.name).join(", ") }));
  if (!def.model || flags.model || flags.provider) return cfg;
  const [provider, ...rest] = def.model.split(":");
  return { ...cfg, provider: provider!, model: rest.join(":"), modelSource: "flag" };
}

/**
 * Once the session exists: discovery awaited, the persona applied (its model already chosen). Returns the events a
 * UI should show first (skipped files, the persona) — headless writes the warnings to stderr instead.
 */
export async function applyExtStart(ext: ExtRuntime, flags: CommonFlags): Promise<{ warnings: string[]; events: AgentEvent[] }> {
  await ext.ready();
  const events: AgentEvent[] = ext.warnings.map((text) => ({ type: "notice", level: "warn", text }));
  if (flags.agent) {
    ext.setPersona(flags.agent, { applyModel: false });
    events.push({ type: "persona.changed", name: flags.agent });
  }
  return { warnings: [...ext.warnings], events };
}

/** `-p "/name args"`: a custom command expanded (its tool and model limits prepared), or a skill loaded. */
export function headlessPrompt(ext: ExtRuntime, prompt: string): string {
  const r = expandHeadlessPrompt(ext, prompt);
  if (!r) return prompt;
  if (r.command) ext.prepareRun(r.command, r.text);
  return r.text;
}
