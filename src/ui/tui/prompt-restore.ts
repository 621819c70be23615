/**
 * A turn the user typed here that fails before any answer text (provider down, auth, missing model) gives
 * the text back to an empty prompt, so it can be sent again without retyping.
 */
import type { ViewInput } from "./view-model.ts";

export class PromptRestore {
  /** Texts sent with Enter whose turn has not started yet, oldest first. */
  private submittedTexts: string[] = [];
  /** The running turn's typed text while it has produced no answer text (kept for "put the prompt back on failure"). */
  private unanswered: { turnId: string; text: string } | null = null;

  /** `restore` is called with the text when the prompt is empty (`promptEmpty`) and the turn failed. */
  constructor(
    private readonly promptEmpty: () => boolean,
    private readonly restore: (text: string) => void,
  ) {}

  /** Enter sent `text` as user input. */
  submitted(text: string): void {
    this.submittedTexts = [...this.submittedTexts.slice(-19), text];
  }

  /** Every event or UI action, after the reducer applied it. */
  observe(input: ViewInput): void {
    switch (input.type) {
      case "turn.started": {
        const i = this.submittedTexts.indexOf(input.input);
        this.unanswered = i >= 0 ? { turnId: input.turnId, text: input.input } : null;
        if (i >= 0) this.submittedTexts.splice(0, i + 1);
        return;
      }
      case "message.delta":
        if (input.text) this.unanswered = null;
        return;
      case "message.completed":
        if (input.message.role === "assistant" && input.message.content.trim()) this.unanswered = null;
        return;
      case "tool.started":
        this.unanswered = null;
        return;
      case "turn.completed": {
        const u = this.unanswered;
        this.unanswered = null;
        if (!u || u.turnId !== input.turnId || input.stopReason !== "error" || !this.promptEmpty()) return;
        this.restore(u.text);
        return;
      }
      default:
        return;
    }
  }
}
