/**
 * `/watch [--context C] [--namespace N] [--deployment D | --selector L] [--interval 30s]`, `/watch status`,
 * `/watch stop` (issue 23). The flags are `chatcli watch`'s (one parser, loaded on first use with the runtime).
 */
import { t } from "../i18n/i18n.ts";
import { splitCliArgs } from "../agent/toolcall/cli-args.ts";
import type { K8sSlot } from "./wire-k8s.ts";
import type { SlashHandler } from "./slash-commands.ts";

export const WATCH_SLASH_COMMAND = {
  name: "watch",
  get description() {
    return t("cmd.watchArgs");
  },
};

export async function watchSlash(slot: K8sSlot, args: string): Promise<string> {
  const words = splitCliArgs(args.trim());
  const sub = words[0] ?? "";
  if (sub === "stop") return slot.current()?.stop() ?? t("k8s.notWatching");
  if (sub === "status") {
    const w = slot.current();
    return w?.isActive ? w.statusText() : t("k8s.notWatching");
  }
  if (sub === "help" || sub === "--help" || sub === "-h") return t("k8s.slashUsage");
  if (sub && !sub.startsWith("-")) return t("k8s.slashUsage");
  const { parseWatchArgs } = await import("./commands/watch.ts");
  let parsed;
  try {
    parsed = parseWatchArgs(words);
  } catch (err) {
    return `${(err as Error).message}\n${t("k8s.slashUsage")}`;
  }
  if (parsed.help || parsed.once) return t("k8s.slashUsage");
  const w = await slot.load();
  const r = await w.start({
    intervalMs: parsed.intervalMs,
    ...(parsed.context ? { context: parsed.context } : {}),
    ...(parsed.namespace ? { namespace: parsed.namespace } : {}),
    ...(parsed.deployment ? { deployment: parsed.deployment } : {}),
    ...(parsed.selector ? { selector: parsed.selector } : {}),
    ...(parsed.kubeconfig ? { kubeconfig: parsed.kubeconfig } : {}),
  });
  return r.text;
}

/** `inner` plus `/watch`: its help entry, completion and handling (the same wrapper shape as withSubagentCommands). */
export function withWatchCommand<H extends SlashHandler>(inner: H, slot: K8sSlot): H {
  return {
    ...inner,
    commands: [...inner.commands, WATCH_SLASH_COMMAND],
    handle: (cmd: string, args: string) => (cmd === "watch" ? watchSlash(slot, args) : inner.handle(cmd, args)),
  };
}
