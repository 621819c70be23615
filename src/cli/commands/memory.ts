/**
 * `chatcli memory list|inbox|accept|reject|add|forget|undo|search|export|import` (and why/edit/delete), and the
 * same actions as `/memory …` in the TUI and plain mode. Explicit commands work in every mode: `memory.mode`
 * governs what chatcli does on its own, not what the user asks for.
 */
import { resolve } from "node:path";
import type { Config } from "../../config/load-config.ts";
import { t } from "../../i18n/i18n.ts";
import { parseMemoryWords, runMemoryCommand, type CommandContext, type MemoryArgs } from "../../memory/commands.ts";
import { MemoryStore } from "../../memory/memory-store.ts";
import { migrateLegacy } from "../../memory/migrate.ts";
import { memoryPaths } from "../../memory/paths.ts";
import { memoryMode, type MemoryRuntime } from "../../memory/runtime.ts";
import { createRedactor } from "../../store/redact.ts";
import { SessionStore } from "../../store/session-store.ts";
import { splitCliArgs } from "../../agent/toolcall/cli-args.ts";

type Out = { write(s: string): unknown };

export const MEMORY_SLASH_COMMAND = {
  name: "memory",
  get description() {
    return t("cmd.memoryArgs");
  },
};

/**
 * `ask` (a terminal on stdin) makes `forget` show what would go and ask first; without one (a script) `forget`
 * deletes and lists what went — `undo` brings it back — and `--dry-run` only shows.
 */
export async function memoryCommand(cfg: Config, a: MemoryArgs, out: Out, err: Out, ask?: (question: string) => Promise<string>): Promise<number> {
  const warnings: string[] = [];
  const store = new MemoryStore(memoryPaths(cfg.home, cfg.projectRoot), { warn: (m) => warnings.push(m) });
  const mode = memoryMode(cfg.env, cfg.settings);
  if (mode !== "off") for (const r of migrateLegacy(store)) err.write(`chatcli: ${t("memory.migrated", { file: r.file, count: r.facts, backup: r.backup })}\n`);
  const args: MemoryArgs = a.action === "export" || a.action === "import" ? { ...a, args: a.args.map((x, i) => (i === 0 && x !== "-" ? resolve(cfg.cwd, x) : x)) } : { ...a };
  const ctx = context(cfg, store);
  if (args.action === "forget" && !args.yes && !args.dryRun) {
    if (ask) {
      const preview = runMemoryCommand({ ...args, dryRun: true }, ctx);
      if (preview.code !== 0) {
        err.write(`chatcli: ${preview.text}\n`);
        return preview.code;
      }
      const lines = preview.text.split("\n");
      out.write(`${lines.slice(0, -1).join("\n")}\n`);
      const answer = (await ask(t("memory.forgetAsk", { count: lines.length - 2 }))).trim().toLowerCase();
      if (!["y", "yes", "s", "sim"].includes(answer)) {
        out.write(`${t("memory.forgetKept")}\n`);
        return 0;
      }
    }
    args.yes = true;
  }
  const r = runMemoryCommand(args, ctx);
  for (const w of warnings) err.write(`chatcli: ${t("memory.corrupt", { message: w })}\n`);
  (r.code === 0 ? out : err).write(`${r.code === 0 ? "" : "chatcli: "}${r.text}\n`);
  return r.code;
}

/** `/memory …` in a session: the runtime's store when memory is on, else the files directly (explicit commands). */
export function memorySlash(cfg: Config, runtime: MemoryRuntime | undefined, argText: string): string {
  const parsed = parseMemoryWords(splitCliArgs(argText));
  if (typeof parsed === "string") return parsed;
  const store = runtime?.store ?? new MemoryStore(memoryPaths(cfg.home, cfg.projectRoot));
  const args = parsed.action === "export" || parsed.action === "import" ? { ...parsed, args: parsed.args.map((x, i) => (i === 0 && x !== "-" ? resolve(cfg.cwd, x) : x)) } : parsed;
  return runMemoryCommand(args, context(cfg, store)).text;
}

function context(cfg: Config, store: MemoryStore): CommandContext {
  return {
    store,
    mode: memoryMode(cfg.env, cfg.settings),
    redact: createRedactor(cfg.env),
    sessionMessages: (id) => {
      try {
        return new SessionStore({ home: cfg.home, env: cfg.env }).load(id)?.history;
      } catch {
        return undefined;
      }
    },
  };
}
