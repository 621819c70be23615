/**
 * Context windows of cloud models, matched by longest prefix of the model id (vendor prefixes such as
 * "openai/" or "models/" are ignored). Unknown models get a deliberately conservative default so compaction
 * fires early rather than the provider rejecting the request. `CHATCLI_CONTEXT_WINDOW` overrides everything.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

const TABLE: Array<[prefix: string, tokens: number]> = [
  ["gpt-5", 400_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["claude-", 200_000],
  ["gemini-2.5", 1_048_576],
  ["gemini-2.0", 1_048_576],
  ["gemini-1.5-pro", 2_097_152],
  ["gemini-1.5", 1_048_576],
  ["grok-4", 256_000],
  ["grok-3", 131_072],
  ["glm-4.5", 128_000],
  ["glm-4.6", 200_000],
  ["glm-5", 200_000],
  ["minimax-m2", 204_800],
  ["kimi-k2", 256_000],
  ["moonshot-v1-128k", 128_000],
  ["moonshot-v1-32k", 32_768],
  ["moonshot-v1-8k", 8_192],
];

export function contextWindowFor(model: string, env: Record<string, string | undefined> = {}): number {
  const override = Number(env.CHATCLI_CONTEXT_WINDOW);
  if (Number.isFinite(override) && override > 0) return Math.floor(override);
  return knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW;
}

/** The table's value, or undefined for models it does not know. */
export function knownContextWindow(model: string): number | undefined {
  const id = model.toLowerCase().replace(/^models\//, "").replace(/^[a-z0-9_-]+\//, "");
  let best: [string, number] | undefined;
  for (const row of TABLE) {
    if (id.startsWith(row[0]) && (!best || row[0].length > best[0].length)) best = row;
  }
  return best?.[1];
}
