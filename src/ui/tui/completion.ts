/** Completion for the prompt: slash commands and `@path` file references. Pure apart from the file listing. */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { t, type MessageKey } from "../../i18n/i18n.ts";

export interface SlashCommand {
  name: string;
  description: string;
}

/** A command whose description is read in the current language each time it is shown. */
export function translatedCommand(name: string, key: MessageKey): SlashCommand {
  return {
    name,
    get description() {
      return t(key);
    },
  };
}

export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  translatedCommand("help", "cmd.help"),
  translatedCommand("model", "cmd.model"),
  translatedCommand("provider", "cmd.provider"),
  translatedCommand("clear", "cmd.clear"),
  translatedCommand("compact", "cmd.compact"),
  translatedCommand("rewind", "cmd.rewind"),
  translatedCommand("session", "cmd.session"),
  translatedCommand("stats", "cmd.stats"),
  translatedCommand("status", "cmd.status"),
  translatedCommand("ui", "cmd.ui"),
  translatedCommand("theme", "cmd.theme"),
  translatedCommand("vim", "cmd.vim"),
  translatedCommand("exit", "cmd.exit"),
];

export interface CompletionItem {
  /** Text that replaces the token being completed. */
  insert: string;
  label: string;
  description: string;
}

export interface CompletionResult {
  /** Start offset of the token being completed in the prompt text. */
  start: number;
  items: CompletionItem[];
}

/** What to complete for `text` with the cursor at the end; null when nothing applies. */
export function complete(text: string, commands: readonly SlashCommand[], files: () => readonly string[]): CompletionResult | null {
  if (text.startsWith("/") && !/\s/.test(text)) {
    const q = text.slice(1).toLowerCase();
    const items = commands
      .filter((c) => c.name.startsWith(q))
      .map((c) => ({ insert: "/" + c.name, label: "/" + c.name, description: c.description }));
    return items.length ? { start: 0, items } : null;
  }
  // A space in a path is written `\ ` (what the @-mention expander reads), both in what is typed and inserted.
  const m = /(^|\s)@((?:\\ |[^\s@])*)$/.exec(text);
  if (m) {
    const q = m[2]!.replaceAll("\\ ", " ").toLowerCase();
    const start = text.length - m[2]!.length - 1;
    const all = files();
    const prefix = all.filter((f) => f.toLowerCase().startsWith(q));
    const rest = q ? all.filter((f) => !f.toLowerCase().startsWith(q) && f.toLowerCase().includes(q)) : [];
    const items = [...prefix, ...rest].slice(0, 50).map((f) => ({ insert: "@" + f.replaceAll(" ", "\\ "), label: "@" + f, description: "" }));
    return items.length ? { start, items } : null;
  }
  return null;
}

const SKIP = new Set([".git", "node_modules", "dist", ".cache", "target", ".venv", "__pycache__"]);

/** Files under `root`, relative, breadth-first, skipping heavy dirs; capped so huge trees stay cheap. */
export function listProjectFiles(root: string, limit = 5000): string[] {
  const out: string[] = [];
  const queue = [root];
  while (queue.length && out.length < limit) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (SKIP.has(e.name)) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) queue.push(p);
      else if (e.isFile()) out.push(relative(root, p));
      if (out.length >= limit) break;
    }
  }
  return out;
}
