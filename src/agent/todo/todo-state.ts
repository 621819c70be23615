/**
 * The session's current todo list. The `todo` tool is stateless (tool/builtin/todo.ts): each successful call's
 * result carries the whole list in `details.todos`; `observe` turns that into the `todo.updated` event the UIs
 * draw and the recorder saves (a `view` record, so `--resume` finds the last list again: `fromEvents`).
 *
 * Compaction: the list is not left to the history (a summary could paraphrase it, the emergency level could drop
 * the call): `reminder()` is added to every request's task reminder (turn.ts anchor), verbatim.
 */
import { z } from "zod";
import type { AgentEvent } from "../../protocol/events.ts";
import { todoItemSchema, type TodoItem } from "../../protocol/todo.ts";
import { canonicalToolName } from "../../tool/registry.ts";
import { formatTodosForModel } from "../../tool/builtin/todo.ts";

const todosSchema = z.array(todoItemSchema);

export class TodoState {
  private list: TodoItem[];

  constructor(initial: readonly TodoItem[] = []) {
    this.list = [...initial];
  }

  get items(): readonly TodoItem[] {
    return this.list;
  }

  /** The last list a session's recorded events carry (`--resume`), else empty. */
  static fromEvents(events: readonly AgentEvent[]): TodoState {
    const last = events.findLast((e) => e.type === "todo.updated");
    return new TodoState(last?.type === "todo.updated" ? last.items : []);
  }

  /** The `todo.updated` event a session event implies (a successful todo call), after adopting its list. */
  observe(e: AgentEvent): Extract<AgentEvent, { type: "todo.updated" }> | undefined {
    if (e.type !== "tool.completed" || e.isError || e.agentId || canonicalToolName(e.name) !== "todo") return undefined;
    const parsed = todosSchema.safeParse(e.details?.todos);
    if (!parsed.success) return undefined;
    this.list = parsed.data;
    return { type: "todo.updated", items: parsed.data };
  }

  /** Empties the list (a cleared conversation); the event to announce it, or undefined when it was empty. */
  clear(): Extract<AgentEvent, { type: "todo.updated" }> | undefined {
    if (!this.list.length) return undefined;
    this.list = [];
    return { type: "todo.updated", items: [] };
  }

  /** For the per-request reminder: the list verbatim while any item is open; nothing otherwise. */
  reminder(): string | undefined {
    if (!this.list.length || this.list.every((i) => i.status === "done")) return undefined;
    return `Your current ${formatTodosForModel(this.list)}`;
  }
}
