/**
 * todo: the model's plan for a multi-step task. Each call writes the WHOLE list (items `pending | in_progress |
 * done`); the result echoes it. The tool itself keeps no state: the session reads the list from the result's
 * `details.todos` (agent/todo/todo-state.ts), shows it, saves it with the session and keeps it across compaction.
 */
import { z } from "zod";
import { todoItemSchema, todoProgress, type TodoItem } from "../../protocol/todo.ts";
import { defineTool } from "../tool.ts";

const MAX_ITEMS = 50;

const input = z.object({
  todos: z
    .array(todoItemSchema.extend({ content: z.string().min(1).describe("What to do, one short line.") }))
    .max(MAX_ITEMS)
    .describe("The complete list, in order. Statuses: pending, in_progress (one at a time), done."),
});

const STATUS_ALIASES: Record<string, TodoItem["status"]> = {
  completed: "done",
  complete: "done",
  finished: "done",
  todo: "pending",
  not_started: "pending",
  open: "pending",
  "in-progress": "in_progress",
  inprogress: "in_progress",
  active: "in_progress",
  doing: "in_progress",
  started: "in_progress",
};

/** Models write other agents' shapes: `items`/`tasks`, `text`/`title`/`task` for the content, `completed` for done. */
function normalizeTodos(args: Record<string, unknown>): Record<string, unknown> {
  const list = args.todos ?? args.items ?? args.tasks ?? args.list;
  if (!Array.isArray(list)) return args;
  const todos = list.map((raw: unknown) => {
    if (typeof raw === "string") return { content: raw, status: "pending" };
    if (typeof raw !== "object" || raw === null) return raw;
    const o = raw as Record<string, unknown>;
    const content = o.content ?? o.text ?? o.title ?? o.task ?? o.description;
    const status = typeof o.status === "string" ? (STATUS_ALIASES[o.status.trim().toLowerCase()] ?? o.status.trim().toLowerCase()) : o.done === true || o.completed === true ? "done" : "pending";
    return { content: typeof content === "string" ? content.trim() : content, status };
  });
  return { todos };
}

const MARK: Record<TodoItem["status"], string> = { done: "[x]", in_progress: "[~]", pending: "[ ]" };

/** The list as the model reads it (English; also the form kept across compaction). */
export function formatTodosForModel(items: readonly TodoItem[]): string {
  if (!items.length) return "(the todo list is empty)";
  const { done, total } = todoProgress(items);
  return [`Todo list (${done}/${total} done):`, ...items.map((i) => `${MARK[i.status]} ${i.content}`)].join("\n");
}

export const todoTool = defineTool({
  name: "todo",
  description:
    "Write your plan for a multi-step task as a checklist the user sees. Send the WHOLE list every time (it replaces " +
    "the previous one): items with `content` and `status` (pending, in_progress, done). Mark one item in_progress " +
    "while you work on it and done as soon as it is finished. Skip it for a single quick step.",
  input,
  readOnly: true,
  normalizeArgs: normalizeTodos,
  title: (args) => {
    const { done, total } = todoProgress(args.todos);
    return `todo ${done}/${total}`;
  },
  async execute(args) {
    const todos: TodoItem[] = args.todos.map((i) => ({ content: i.content, status: i.status }));
    return { text: `${formatTodosForModel(todos)}\n(list saved; keep it up to date as you work)`, details: { todos } };
  },
});
