/**
 * The one object `chatcli -p … --output-format json` prints at the end (docs/stream-json.md). Field names are
 * camelCase like the events. The snake_case names printed up to 0.1 (`is_error`, `stop_reason`, `num_turns`,
 * `duration_ms`, `session_id`) are still printed beside them with the same values, as deprecated aliases for
 * one more minor version; then they go.
 */
import { z } from "zod";

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  reasoningTokens: z.number(),
});

export const headlessResultSchema = z.object({
  type: z.literal("result"),
  subtype: z.enum(["success", "error", "interrupted"]),
  isError: z.boolean(),
  /** The final answer as a person sees it. */
  result: z.string(),
  stopReason: z.string(),
  numTurns: z.number(),
  durationMs: z.number(),
  sessionId: z.string(),
  /** The session's totalUsage; null when no model call completed. */
  usage: usageSchema.nullable(),
  /** Only when the run failed. */
  error: z.string().optional(),
});
export type HeadlessResultObject = z.infer<typeof headlessResultSchema>;

/** Deprecated snake_case name → its camelCase field. */
export const HEADLESS_RESULT_ALIASES = {
  is_error: "isError",
  stop_reason: "stopReason",
  num_turns: "numTurns",
  duration_ms: "durationMs",
  session_id: "sessionId",
} as const satisfies Record<string, keyof HeadlessResultObject>;

type Aliases = { [K in keyof typeof HEADLESS_RESULT_ALIASES]: HeadlessResultObject[(typeof HEADLESS_RESULT_ALIASES)[K]] };

/** The printed form: the camelCase object followed by its deprecated aliases. */
export function withDeprecatedAliases(r: HeadlessResultObject): HeadlessResultObject & Aliases {
  const aliases = Object.fromEntries(Object.entries(HEADLESS_RESULT_ALIASES).map(([old, now]) => [old, r[now]])) as Aliases;
  return { ...r, ...aliases };
}
