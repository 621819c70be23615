/**
 * `/plugins` (each plugin: where from, its tools, commands and hooks, or why it is off), `/hooks` (the hooks that
 * run in this session) and the plugins' own slash commands, for both interactive UIs (main.ts chains it).
 */
import { t } from "../../i18n/i18n.ts";
import { describeHook } from "../hooks/hook-config.ts";
import type { Extensions } from "../hooks/wire-extensions.ts";

export function extSlashList(ext: Extensions | undefined): Array<{ name: string; description: string }> {
  void ext;
  return [
    {
      name: "plugins",
      get description() {
        return t("plugins.slashDescription");
      },
    },
    {
      name: "hooks",
      get description() {
        return t("hooks.slashDescription");
      },
    },
  ];
}

/** The text for one of our commands, or undefined when `name` is not ours. */
export function extSlashCommand(ext: Extensions | undefined, name: string, args: string): Promise<string> | undefined {
  if (name === "plugins") return ext ? ext.runtime.ready().then(() => pluginsText(ext)) : Promise.resolve(t("plugins.none"));
  if (name === "hooks") return Promise.resolve(ext ? hooksText(ext) : t("hooks.cli.none"));
  return ext?.plugins.runCommand(name, args);
}

function pluginsText(ext: Extensions): string {
  const ps = ext.plugins.plugins;
  if (ps.length === 0) return t("plugins.none");
  const lines: string[] = [t("plugins.heading", { count: ps.length })];
  for (const p of ps) {
    const where = t(p.entry.source === "project" ? "plugins.fromProject" : "plugins.fromUser", { path: p.entry.path });
    lines.push(`${p.name}${p.version ? ` ${p.version}` : ""} (${p.entry.kind}, ${where})${p.error ? ` — ${t("plugins.off", { error: p.error })}` : ""}`);
    if (p.tools.length) lines.push(`  ${t("plugins.tools")}: ${p.tools.map((x) => x.name).join(", ")}`);
    if (p.commands.length) lines.push(`  ${t("plugins.commands")}: ${p.commands.map((c) => `/${c.name}`).join(", ")}`);
    if (p.hooks.length) lines.push(`  ${t("plugins.hooks")}: ${p.hooks.join(", ")}`);
    if (p.providers.length) lines.push(`  ${t("plugins.providers")}: ${p.providers.join(", ")}`);
  }
  return lines.join("\n");
}

function hooksText(ext: Extensions): string {
  const hs = ext.runtime.activeHooks();
  if (hs.length === 0) return t("hooks.cli.none");
  return hs.map((h) => `${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${describeHook(h)} (${h.source})`).join("\n");
}
