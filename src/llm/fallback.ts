/**
 * A fallback chain that is itself an LlmProvider, so the agent uses it transparently. Entries are tried in
 * order; an entry in cooldown is skipped. Each entry gets at most `maxRetries` retries (its own retry events
 * pass through; the next one after that abandons the entry). The chain moves on only for fallbackable
 * errors and only before the entry produced any output; each move is a `provider_switch` event.
 * Cooldown after the n-th consecutive failure: base × 2^(n-1), capped at max; auth failures get the max;
 * a success resets. When every entry is cooling down, the one that recovers first is tried anyway.
 * The model of each entry replaces `request.model`.
 * Main requests also announce who serves when it is not who was last announced: the primary answering again
 * after a fallback, or a later entry answering because earlier ones are cooling down (a `provider_switch` before
 * the first output), so a status line naming the serving provider is never stale.
 */
import type { LlmError, LlmEvent, LlmRequest, ModelInfo } from "../protocol/llm.ts";
import { makeError } from "./errors.ts";
import type { LlmProvider } from "./provider.ts";
import { getProviderDefinition } from "./registry.ts";

export interface FallbackEntry {
  provider: string;
  model: string;
  /** The entry named no model (neither `:model` nor CHATCLI_FALLBACK_MODEL_<ID>): the provider's default filled in. */
  defaultedModel?: boolean;
}

export interface FallbackClock {
  now(): number;
}

export interface FallbackChainOptions {
  entries: FallbackEntry[];
  env: Record<string, string | undefined>;
  createProvider: (id: string) => LlmProvider;
  clock?: FallbackClock;
}

export interface EntryHealth {
  entry: FallbackEntry;
  consecutiveFailures: number;
  cooldownUntil: number;
  lastError?: LlmError;
}

export interface FallbackChain extends LlmProvider {
  health(): EntryHealth[];
  resetCooldowns(): void;
}

/** Settings entries win over `CHATCLI_FALLBACK_PROVIDERS`. `PROVIDER[:model]`; the model may itself hold colons. */
export function parseFallbackEntries(settingsFallback: string[] | undefined, env: Record<string, string | undefined>): FallbackEntry[] {
  const raw = settingsFallback?.length ? settingsFallback : (env.CHATCLI_FALLBACK_PROVIDERS ?? "").split(",");
  const out: FallbackEntry[] = [];
  for (const item of raw) {
    const s = item.trim();
    if (!s) continue;
    const colon = s.indexOf(":");
    const provider = (colon < 0 ? s : s.slice(0, colon)).trim().toUpperCase();
    let model = colon < 0 ? "" : s.slice(colon + 1).trim();
    if (!model) model = env[`CHATCLI_FALLBACK_MODEL_${provider}`]?.trim() || "";
    if (!model) {
      out.push({ provider, model: getProviderDefinition(provider)?.defaultModel || "", defaultedModel: true });
      continue;
    }
    out.push({ provider, model });
  }
  return out;
}

/** A duration in seconds ("30", "1.5") or with a unit ("500ms", "30s", "5m"). */
export function parseDurationMs(value: string | undefined, fallbackMs: number): number {
  if (!value?.trim()) return fallbackMs;
  const m = value.trim().match(/^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i);
  if (!m?.[1]) return fallbackMs;
  const n = Number(m[1]);
  const unit = (m[2] ?? "s").toLowerCase();
  const mult = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  return n * mult;
}

export function fallbackSettingsFromEnv(env: Record<string, string | undefined>) {
  const retries = Number(env.CHATCLI_FALLBACK_MAX_RETRIES);
  return {
    maxRetries: Number.isFinite(retries) && retries >= 0 ? Math.floor(retries) : 2,
    cooldownBaseMs: parseDurationMs(env.CHATCLI_FALLBACK_COOLDOWN_BASE, 30_000),
    cooldownMaxMs: parseDurationMs(env.CHATCLI_FALLBACK_COOLDOWN_MAX, 5 * 60_000),
  };
}

export const entryLabel = (e: FallbackEntry): string => (e.model ? `${e.provider}:${e.model}` : e.provider);

/** Requests whose events reach the user as the conversation (their switch events are shown). */
const announcesServing = (r: LlmRequest): boolean => r.purpose === "main" || r.purpose === "continuation";

export function createFallbackChain(opts: FallbackChainOptions): FallbackChain {
  const clock = opts.clock ?? { now: () => Date.now() };
  const cfg = fallbackSettingsFromEnv(opts.env);
  const health: EntryHealth[] = opts.entries.map((entry) => ({ entry, consecutiveFailures: 0, cooldownUntil: 0 }));
  const providers = new Map<string, LlmProvider>();
  const providerFor = (id: string): LlmProvider => {
    let p = providers.get(id);
    if (!p) {
      p = opts.createProvider(id);
      providers.set(id, p);
    }
    return p;
  };

  const markFailure = (h: EntryHealth, error: LlmError) => {
    h.consecutiveFailures++;
    h.lastError = error;
    const ms = error.kind === "auth" ? cfg.cooldownMaxMs : Math.min(cfg.cooldownMaxMs, cfg.cooldownBaseMs * 2 ** (h.consecutiveFailures - 1));
    h.cooldownUntil = clock.now() + ms;
  };
  const markSuccess = (h: EntryHealth) => {
    h.consecutiveFailures = 0;
    h.cooldownUntil = 0;
    delete h.lastError;
  };

  /** The entries to try this time, in order. */
  const plan = (): EntryHealth[] => {
    const now = clock.now();
    const ready = health.filter((h) => h.cooldownUntil <= now);
    if (ready.length || !health.length) return ready;
    return [[...health].sort((a, b) => a.cooldownUntil - b.cooldownUntil)[0] as EntryHealth];
  };

  /** The entry main requests last announced as serving (compaction/label calls do not move it). */
  let announced: EntryHealth | undefined = health[0];
  function* announce(h: EntryHealth, request: LlmRequest): Generator<LlmEvent> {
    if (!announcesServing(request) || h === announced || !announced) return;
    const reason = h === health[0] ? "primary available again" : `${entryLabel(announced.entry)} cooling down`;
    yield { type: "provider_switch", from: entryLabel(announced.entry), to: entryLabel(h.entry), reason };
    announced = h;
  }

  async function* stream(request: LlmRequest, signal?: AbortSignal): AsyncGenerator<LlmEvent> {
    const order = plan();
    if (!order.length) {
      yield { type: "error", error: makeError("invalid_request", "no fallback providers configured") };
      return;
    }
    const failures: string[] = [];
    let lastError: LlmError | undefined;
    for (let i = 0; i < order.length; i++) {
      const h = order[i] as EntryHealth;
      let provider: LlmProvider;
      try {
        provider = providerFor(h.entry.provider);
      } catch (err) {
        lastError = makeError("unknown", err instanceof Error ? err.message : String(err), { provider: h.entry.provider });
        markFailure(h, lastError);
        failures.push(`${entryLabel(h.entry)}: ${lastError.message}`);
        yield* switchNotice(order, i, lastError, request);
        continue;
      }
      let produced = false;
      let failure: LlmError | undefined;
      // The request's window is the primary entry's: another entry's provider works out its own (Ollama's
      // num_ctx must not become a cloud model's 128K).
      const { contextWindow, ...rest } = request;
      const entryRequest: LlmRequest = h === health[0] && contextWindow !== undefined ? { ...rest, contextWindow, model: h.entry.model || request.model } : { ...rest, model: h.entry.model || request.model };
      const iter = provider.stream(entryRequest, signal)[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await iter.next();
          if (next.done) break;
          const ev = next.value;
          if (ev.type === "error") {
            failure = ev.error;
            break;
          }
          if (ev.type === "retry" && ev.attempt > cfg.maxRetries) {
            // Budget spent: abandon this entry instead of waiting out its backoff.
            failure = ev.error;
            break;
          }
          if (ev.type === "done") {
            markSuccess(h);
            yield* announce(h, request);
            yield ev;
            return;
          }
          if (ev.type === "usage") {
            yield { ...ev, provider: h.entry.provider, model: entryRequest.model };
            continue;
          }
          if (ev.type !== "retry" && !produced) {
            produced = true;
            yield* announce(h, request);
          }
          yield ev;
        }
      } finally {
        await iter.return?.(undefined);
      }
      if (!failure) {
        failure = makeError("network", "stream ended without completing", { provider: h.entry.provider });
      }
      lastError = failure;
      if (produced || !failure.fallbackable || signal?.aborted) {
        if (failure.kind !== "aborted" && failure.fallbackable) markFailure(h, failure);
        yield { type: "error", error: failure };
        return;
      }
      markFailure(h, failure);
      failures.push(`${entryLabel(h.entry)}: ${failure.message}`);
      yield* switchNotice(order, i, failure, request);
    }
    const base = lastError ?? makeError("unknown", "all providers failed");
    yield { type: "error", error: { ...base, message: `all providers failed: ${failures.join("; ")}`, retryable: false, fallbackable: false } };
  }

  function* switchNotice(order: EntryHealth[], i: number, error: LlmError, request: LlmRequest): Generator<LlmEvent> {
    const next = order[i + 1];
    const cur = order[i];
    if (next && cur) {
      yield { type: "provider_switch", from: entryLabel(cur.entry), to: entryLabel(next.entry), reason: `${error.kind}: ${error.message}` };
      if (announcesServing(request)) announced = next;
    }
  }

  const first = (): LlmProvider => providerFor((health[0] as EntryHealth).entry.provider);

  return {
    id: "FALLBACK",
    stream,
    listModels: (signal?: AbortSignal): Promise<ModelInfo[]> => first().listModels(signal),
    modelInfo: (model: string, signal?: AbortSignal) => first().modelInfo(model, signal),
    health: () => health.map((h) => ({ ...h, entry: { ...h.entry } })),
    resetCooldowns: () => health.forEach(markSuccess),
  };
}
