/**
 * The one price table: USD per million tokens, matched by longest model-id prefix (vendor prefixes such
 * as "openai/" ignored). Cached input is billed at `cachedInput`; reasoning tokens are part of output.
 * Public list prices as of 2025; unknown models have no price (usage shows tokens only).
 */
export interface ModelPrice {
  input: number;
  cachedInput: number;
  output: number;
}

const PRICES: Array<[prefix: string, price: ModelPrice]> = [
  ["gpt-4o-mini", { input: 0.15, cachedInput: 0.075, output: 0.6 }],
  ["gpt-4o", { input: 2.5, cachedInput: 1.25, output: 10 }],
  ["gpt-4.1-nano", { input: 0.1, cachedInput: 0.025, output: 0.4 }],
  ["gpt-4.1-mini", { input: 0.4, cachedInput: 0.1, output: 1.6 }],
  ["gpt-4.1", { input: 2, cachedInput: 0.5, output: 8 }],
  ["gpt-5-nano", { input: 0.05, cachedInput: 0.005, output: 0.4 }],
  ["gpt-5-mini", { input: 0.25, cachedInput: 0.025, output: 2 }],
  ["gpt-5", { input: 1.25, cachedInput: 0.125, output: 10 }],
  ["o3", { input: 2, cachedInput: 0.5, output: 8 }],
  ["o4-mini", { input: 1.1, cachedInput: 0.275, output: 4.4 }],
  ["claude-opus-4", { input: 15, cachedInput: 1.5, output: 75 }],
  ["claude-sonnet-4", { input: 3, cachedInput: 0.3, output: 15 }],
  ["claude-3-7-sonnet", { input: 3, cachedInput: 0.3, output: 15 }],
  ["claude-haiku-4", { input: 1, cachedInput: 0.1, output: 5 }],
  ["claude-3-5-haiku", { input: 0.8, cachedInput: 0.08, output: 4 }],
  ["gemini-2.5-pro", { input: 1.25, cachedInput: 0.31, output: 10 }],
  ["gemini-2.5-flash-lite", { input: 0.1, cachedInput: 0.025, output: 0.4 }],
  ["gemini-2.5-flash", { input: 0.3, cachedInput: 0.075, output: 2.5 }],
  ["gemini-2.0-flash", { input: 0.1, cachedInput: 0.025, output: 0.4 }],
  ["grok-4", { input: 3, cachedInput: 0.75, output: 15 }],
];

export function priceFor(model: string): ModelPrice | undefined {
  const id = model.toLowerCase().replace(/^models\//, "").replace(/^[a-z0-9_-]+\//, "");
  let best: [string, ModelPrice] | undefined;
  for (const row of PRICES) if (id.startsWith(row[0]) && (!best || row[0].length > best[0].length)) best = row;
  return best?.[1];
}

/** Cost in USD of one call, or undefined when the model has no price. */
export function costOf(model: string, u: { inputTokens: number; outputTokens: number; cachedInputTokens: number }): number | undefined {
  const p = priceFor(model);
  if (!p) return undefined;
  const uncached = Math.max(0, u.inputTokens - u.cachedInputTokens);
  return (uncached * p.input + u.cachedInputTokens * p.cachedInput + u.outputTokens * p.output) / 1_000_000;
}
