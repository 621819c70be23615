/**
 * `/memory` alone in the TUI: a picker over the inbox (first) and the facts by scope and category, each with its
 * source; picking one offers accept / reject (inbox), "why do you know this?" (the session moment), edit (the
 * prompt gets `/memory edit <id> <text>` to change), delete; the last item undoes the last change.
 */
import type { Config } from "../../config/load-config.ts";
import { t } from "../../i18n/i18n.ts";
import type { MemoryRuntime } from "../../memory/runtime.ts";
import type { PickerFlow } from "../../ui/tui/tui-app-options.ts";
import { memorySlash } from "./memory.ts";
import { MemoryStore } from "../../memory/memory-store.ts";
import { memoryPaths } from "../../memory/paths.ts";
import { factLine, parseMemoryWords, search, sourceText } from "../../memory/commands.ts";
import { splitCliArgs } from "../../agent/toolcall/cli-args.ts";
import type { Fact } from "../../memory/types.ts";

const UNDO = "\u0000undo";
const ORDER = ["profile", "longterm", "project", "topic", "daily"];

export function memoryPickerFlow(cfg: Config, runtime: MemoryRuntime | undefined): PickerFlow {
  const store = runtime?.store ?? new MemoryStore(memoryPaths(cfg.home, cfg.projectRoot));
  const facts = store.facts().filter((f) => f.status === "proposed" || f.status === "active");
  const sorted = [...facts].sort((a, b) => rank(a) - rank(b) || (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0) || ORDER.indexOf(a.category) - ORDER.indexOf(b.category) || b.created - a.created);
  const items = sorted.map((f) => ({ name: `${f.status === "proposed" ? `${t("memory.picker.inboxTag")} ` : ""}[${f.scope}/${f.category}] ${f.text} — ${sourceText(f)}`, value: f.id }));
  items.push({ name: t("memory.picker.undo"), value: UNDO });
  return {
    title: t("memory.picker.title", { inbox: facts.filter((f) => f.status === "proposed").length, facts: facts.filter((f) => f.status === "active").length }),
    items,
    pick: async (id) => {
      if (id === UNDO) return { notice: memorySlash(cfg, runtime, "undo") };
      const f = facts.find((x) => x.id === id);
      return f ? actions(cfg, runtime, f) : undefined;
    },
  };
}

/**
 * `/memory forget QUERY` in the TUI: a picker that shows what would go and asks (undefined when nothing matches,
 * or with --yes / --dry-run: the text command answers then).
 */
export function memoryForgetFlow(cfg: Config, runtime: MemoryRuntime | undefined, argText: string): PickerFlow | undefined {
  const a = parseMemoryWords(splitCliArgs(argText));
  if (typeof a === "string" || a.action !== "forget" || a.yes || a.dryRun) return undefined;
  const store = runtime?.store ?? new MemoryStore(memoryPaths(cfg.home, cfg.projectRoot));
  const matches = search(store.facts().filter((f) => f.status !== "superseded"), a.args.join(" "), a.scope);
  if (!matches.length) return undefined;
  const YES = "\u0000yes";
  return {
    title: t("memory.picker.forgetTitle", { count: matches.length }),
    items: [{ name: t("memory.picker.forgetNo"), value: "" }, { name: t("memory.picker.forgetYes"), value: YES }, ...matches.map((f) => ({ name: `  ${factLine(f)}`, value: "" }))],
    pick: async (v) => (v === YES ? { notice: memorySlash(cfg, runtime, `${argText} --yes`) } : { notice: t("memory.forgetKept") }),
  };
}

function actions(cfg: Config, runtime: MemoryRuntime | undefined, f: Fact): PickerFlow {
  const run = (words: string) => ({ notice: memorySlash(cfg, runtime, words) });
  const items = [
    ...(f.status === "proposed" ? [{ name: t("memory.picker.accept"), value: "accept" }, { name: t("memory.picker.reject"), value: "reject" }] : []),
    { name: t("memory.picker.why"), value: "why" },
    { name: t("memory.picker.edit"), value: "edit" },
    { name: t("memory.picker.delete"), value: "delete" },
  ];
  return {
    title: f.text.length > 60 ? `${f.text.slice(0, 59)}…` : f.text,
    items,
    pick: async (action) => {
      if (action === "edit") return { prompt: `/memory edit ${f.id} ${f.text}` };
      return run(`${action} ${f.id}`);
    },
  };
}

function rank(f: Fact): number {
  return f.status === "proposed" ? 0 : 1;
}
