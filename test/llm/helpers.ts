/** Shared bits of the provider tests. */
import type { LlmEvent, LlmRequest } from "../../src/protocol/llm.ts";

export async function collect(stream: AsyncIterable<LlmEvent>, onEvent?: (ev: LlmEvent) => void): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const ev of stream) {
    out.push(ev);
    onEvent?.(ev);
  }
  return out;
}

export const text = (evs: LlmEvent[]): string => evs.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
export const thinking = (evs: LlmEvent[]): string => evs.map((e) => (e.type === "thinking_delta" ? e.text : "")).join("");
export const last = (evs: LlmEvent[]): LlmEvent | undefined => evs[evs.length - 1];
export const ofType = <T extends LlmEvent["type"]>(evs: LlmEvent[], t: T) => evs.filter((e): e is Extract<LlmEvent, { type: T }> => e.type === t);

/** Fast retry and idle settings for tests. */
export const FAST = { INITIAL_BACKOFF: "0.01", MAX_RETRIES: "3", CHATCLI_STREAM_IDLE_TIMEOUT_SECONDS: "0.4" };

export function request(extra: Partial<LlmRequest> = {}): LlmRequest {
  return { model: "gpt-4o", system: [{ text: "You are terse." }], messages: [{ role: "user", content: "hi" }], purpose: "main", ...extra };
}

export const readFileTool = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" },
};
