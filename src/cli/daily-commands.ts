/**
 * The issue-25 slash commands, for the TUI and plain mode (main.ts chains this handler): `/diff` (every file
 * changed in this session as a unified diff with stats), `/undo` (rewind code only to before the last turn; again
 * goes one turn further back), `/init` (a read-only run that writes or updates AGENTS.md, approved as a diff) and
 * `/todo` (the current list).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Op } from "../protocol/events.ts";
import type { CheckpointStore } from "../agent/checkpoints.ts";
import { formatSessionDiff, sessionDiff } from "../agent/checkpoints/session-diff.ts";
import { INIT_FILE, initPrompt, type InitGuard } from "../agent/init/init-guard.ts";
import type { TodoState } from "../agent/todo/todo-state.ts";
import { todoProgress, type TodoItem } from "../protocol/todo.ts";
import { t, type MessageKey } from "../i18n/i18n.ts";
import type { SlashHandler } from "./slash-commands.ts";

export interface DailyDeps {
  session: { readonly status: string; submit(op: Op): void };
  checkpoints: Pick<CheckpointStore, "sessionChanges" | "turnStarts" | "list">;
  todos: TodoState;
  initGuard: InitGuard;
  projectRoot: string;
}

const translated = (name: string, key: MessageKey) => ({
  name,
  get description() {
    return t(key);
  },
});

export const DAILY_COMMANDS = [translated("diff", "cmd.diff"), translated("undo", "cmd.undo"), translated("init", "cmd.init"), translated("todo", "cmd.todo")];

export function createDailyCommands(d: DailyDeps): SlashHandler {
  // The turn-start checkpoint the last /undo went back to: a second /undo (no turn since) goes one further.
  let lastUndone: string | undefined;
  const undo = (): string => {
    if (d.session.status !== "idle") return t("undo.busy");
    const starts = d.checkpoints.turnStarts();
    const target = lastUndone !== undefined && starts[0] === lastUndone ? starts[1] : starts[0];
    if (!target) return t("undo.nothing");
    lastUndone = target;
    d.session.submit({ type: "rewind", checkpointId: target, mode: "code", deleteCreated: true });
    const label = d.checkpoints.list().find((c) => c.id === target)?.label ?? target;
    return t("undo.started", { label });
  };
  const init = (): string => {
    if (d.session.status !== "idle") return t("init.busy");
    d.initGuard.start();
    d.session.submit({ type: "user_input", text: initPrompt(existsSync(join(d.projectRoot, INIT_FILE))), display: "/init" });
    return t("init.started");
  };
  return {
    commands: DAILY_COMMANDS,
    handle(cmd) {
      switch (cmd) {
        case "diff":
          return Promise.resolve(formatSessionDiff(sessionDiff(d.checkpoints.sessionChanges(), d.projectRoot)));
        case "undo":
          return Promise.resolve(undo());
        case "init":
          return Promise.resolve(init());
        case "todo":
          return Promise.resolve(d.todos.items.length ? todoText(d.todos.items) : t("todo.none"));
        default:
          return undefined;
      }
    },
  };
}

const MARK: Record<TodoItem["status"], string> = { done: "✓", in_progress: "▸", pending: "○" };

function todoText(items: readonly TodoItem[]): string {
  return [t("todo.header", todoProgress(items)), ...items.map((i) => `  ${MARK[i.status]} ${i.content}`)].join("\n");
}

/** `/help` in plain mode: the commands it takes and the `!` keys (the TUI has its own, with its keymap). */
export function plainHelpText(extra: ReadonlyArray<{ name: string; description: string }>): string {
  const own = [
    { name: "clear", description: t("cmd.clear") },
    { name: "compact", description: t("cmd.compact") },
    { name: "stats", description: t("cmd.stats") },
    { name: "status", description: t("cmd.status") },
    { name: "exit", description: t("cmd.exit") },
  ];
  const lines = [...extra, ...own].map((c) => `/${c.name.padEnd(10)} ${c.description}`);
  return [...lines, t("tui.helpKeysShell")].join("\n");
}
