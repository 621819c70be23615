/**
 * The per-request task anchor ("Reminder: the user's current request is: …") that every wire folds into the
 * last user message or tool result (src/llm/anchor.ts). Tests that compare what the model was sent take it off.
 */
export function withoutAnchor(text: string): string {
  return text.replace(/\n\nReminder: the user's current request is: [\s\S]*$/, "");
}
