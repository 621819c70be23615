/**
 * Token accounting per call, summed per purpose and per session. `inputTokens` includes cached input and
 * `outputTokens` includes reasoning (the providers normalise to that). Cost is summed over priced calls
 * only; `unpricedCalls` says how many calls had no price, so a total is never silently understated.
 */
import type { Purpose, Usage } from "../protocol/llm.ts";
import { costOf } from "./prices.ts";
import { t } from "../i18n/i18n.ts";

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  /** USD over the priced calls; undefined when no call had a price. */
  costUsd?: number;
  unpricedCalls: number;
}

export interface UsageRecord {
  purpose: Purpose;
  provider: string;
  model: string;
  usage: Usage;
  costUsd?: number;
  /** The subagent that spent it (`explore (agent_2)`); undefined for the main session (issue 20). */
  agent?: string;
}

const emptyTotals = (): UsageTotals => ({ calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, unpricedCalls: 0 });

function add(t: UsageTotals, r: UsageRecord): void {
  t.calls++;
  t.inputTokens += r.usage.inputTokens;
  t.outputTokens += r.usage.outputTokens;
  t.cachedInputTokens += r.usage.cachedInputTokens;
  t.reasoningTokens += r.usage.reasoningTokens;
  if (r.costUsd === undefined) t.unpricedCalls++;
  else t.costUsd = (t.costUsd ?? 0) + r.costUsd;
}

export class UsageTracker {
  private readonly records: UsageRecord[] = [];
  private last: UsageRecord | undefined;

  record(purpose: Purpose, provider: string, model: string, usage: Usage, agent?: string): UsageRecord {
    const cost = costOf(model, usage);
    const r: UsageRecord = { purpose, provider, model, usage: { ...usage }, ...(cost !== undefined ? { costUsd: cost } : {}), ...(agent ? { agent } : {}) };
    this.records.push(r);
    this.last = r;
    return r;
  }

  lastCall(): UsageRecord | undefined {
    return this.last;
  }

  session(): UsageTotals {
    const t = emptyTotals();
    for (const r of this.records) add(t, r);
    return t;
  }

  byPurpose(): Partial<Record<Purpose, UsageTotals>> {
    const out: Partial<Record<Purpose, UsageTotals>> = {};
    for (const r of this.records) add((out[r.purpose] ??= emptyTotals()), r);
    return out;
  }

  /** Per agent: `main` and each subagent that spent tokens. */
  byAgent(): Record<string, UsageTotals> {
    const out: Record<string, UsageTotals> = {};
    for (const r of this.records) add((out[r.agent ?? "main"] ??= emptyTotals()), r);
    return out;
  }

  byModel(): Record<string, UsageTotals> {
    const out: Record<string, UsageTotals> = {};
    for (const r of this.records) add((out[`${r.provider}:${r.model}`] ??= emptyTotals()), r);
    return out;
  }

  /** The `/stats` text. */
  formatStats(): string {
    const s = this.session();
    const lines = [t(s.calls === 1 ? "usage.sessionOne" : "usage.sessionMany", { count: s.calls }), `  ${formatTotals(s)}`];
    const purposes = Object.entries(this.byPurpose());
    if (purposes.length) {
      lines.push(t("usage.byPurpose"));
      for (const [p, u] of purposes) lines.push(`  ${p.padEnd(17)} ${formatTotals(u)}`);
    }
    const agents = Object.entries(this.byAgent());
    if (agents.length > 1) {
      lines.push(t("usage.byAgent"));
      for (const [a, u] of agents) lines.push(`  ${a.padEnd(17)} ${formatTotals(u)}`);
    }
    const models = Object.entries(this.byModel());
    if (models.length) {
      lines.push(t("usage.byModel"));
      for (const [m, u] of models) lines.push(`  ${m}  ${formatTotals(u)}`);
    }
    return lines.join("\n");
  }
}

/**
 * Token counts for people, the one format of the status line and `/stats`: one decimal under 100k, a trailing
 * ".0" dropped (1234 → "1.2k", 32768 → "32.8k", 32000 → "32k", 131072 → "131k", 1500000 → "1.5M").
 */
export function formatTokens(n: number): string {
  const strip = (s: string) => s.replace(/\.0$/, "");
  if (n >= 999_500) return `${strip((n / 1_000_000).toFixed(1))}M`;
  if (n >= 100_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${strip((n / 1000).toFixed(1))}k`;
  return String(Math.round(n));
}

export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return t("usage.costNA");
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

function formatTotals(u: UsageTotals): string {
  const unpriced = u.costUsd !== undefined && u.unpricedCalls ? t("usage.unpriced", { count: u.unpricedCalls }) : "";
  return t("usage.totals", {
    input: formatTokens(u.inputTokens),
    cached: formatTokens(u.cachedInputTokens),
    output: formatTokens(u.outputTokens),
    reasoning: formatTokens(u.reasoningTokens),
    cost: formatCost(u.costUsd) + unpriced,
  });
}
