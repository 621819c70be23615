/** The todo list the `todo` tool writes (the whole list each call) and the `todo.updated` event carries. */
import { z } from "zod";

export const todoStatusSchema = z.enum(["pending", "in_progress", "done"]);
export type TodoStatus = z.infer<typeof todoStatusSchema>;

export const todoItemSchema = z.object({ content: z.string().min(1), status: todoStatusSchema });
export type TodoItem = z.infer<typeof todoItemSchema>;

/** `3/7 done`-style progress: how many items are done, of how many. */
export function todoProgress(items: readonly TodoItem[]): { done: number; total: number } {
  return { done: items.filter((i) => i.status === "done").length, total: items.length };
}
