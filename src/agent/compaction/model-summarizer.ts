/** A Summarizer backed by a provider: one streamed request with purpose "compaction", the answer text back. */
import type { LlmProvider } from "../../llm/provider.ts";
import type { Usage } from "../../protocol/llm.ts";
import type { Summarizer } from "./summarize.ts";

export interface ModelSummarizerOptions {
  provider: () => LlmProvider;
  model: () => string;
  contextWindow: () => number;
  onUsage?: (usage: Usage, model: string) => void;
}

export function createModelSummarizer(o: ModelSummarizerOptions): Summarizer {
  return async ({ prompt, maxOutputTokens, signal }) => {
    const model = o.model();
    let text = "";
    for await (const ev of o.provider().stream(
      { model, system: [], messages: [{ role: "user", content: prompt }], purpose: "compaction", maxOutputTokens, contextWindow: o.contextWindow(), temperature: 0 },
      signal,
    )) {
      if (ev.type === "text_delta") text += ev.text;
      else if (ev.type === "usage") o.onUsage?.(ev.usage, model);
      else if (ev.type === "error") throw new Error(ev.error.message);
    }
    if (signal.aborted) throw new Error("aborted");
    return text;
  };
}
