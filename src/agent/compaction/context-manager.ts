/**
 * The session-facing side of context management, wired by src/cli/wire-session.ts:
 * - `beforeModelCall`: run from the history pipeline before every model call; compacts when the request
 *   would exceed the trigger (60% of the window in agent work, 75% in plain chat);
 * - `compact`: `/compact [instruction]` (target 50%, always summarizes, never drops messages);
 * - `recoverOverflow`: after the provider rejected a request as too large;
 * - `accountant`: feed it the provider's reported prompt size (`reported`) for better figures.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import type { Message } from "../../protocol/message.ts";
import { MANUAL_COMPACT_RATIO, computeBudget, formatTokens, type Budget } from "./budget.ts";
import { compactHistory } from "./compactor.ts";
import { MAX_RECOVERY_ATTEMPTS, recoverFromOverflow } from "./recovery.ts";
import type { Summarizer } from "./summarize.ts";
import { t } from "../../i18n/i18n.ts";
import { createTokenAccountant, estimateTokens, type TokenAccountant } from "./tokens.ts";

export interface ContextManagerOptions {
  contextWindow: () => number;
  /** Tokens of the system prompt, tool definitions and per-request reminder. */
  overheadTokens: () => number;
  /** Tools enabled (agent work, 60% trigger) or plain chat (75%). */
  agent: () => boolean;
  summarize?: Summarizer;
  /** Window of the summarizing model when it is not the session's. */
  summarizerWindow?: () => number;
  archive?: (messages: Message[]) => string | undefined;
  timeoutMs?: number;
  /** Said once, before the first model call (e.g. that the window is an assumed default). */
  windowNote?: string;
  /** Where the details of each compaction go (the log file); the screen gets one line per compaction. */
  log?: (line: string) => void;
  /** Awaited just before a compaction runs (PreCompact hooks): `auto` before a model call, `manual` for /compact. */
  beforeCompact?: (trigger: "auto" | "manual", instruction?: string) => Promise<void>;
  /** Awaited after a compaction changed the history (SessionStart hooks with source `compact`). */
  afterCompact?: () => Promise<void>;
}

/** The notice for a model whose window nobody reported: the figure assumed and how to change it. */
export function assumedWindowNote(model: string, window: number): string {
  return t("core.windowAssumed", { model, window: window.toLocaleString("en-US") });
}

export interface ContextManager {
  accountant: TokenAccountant;
  budget(ratio?: number): Budget;
  /** Request tokens for `history` as accounted (reported usage + estimate of the rest). */
  requestTokens(history: readonly Message[]): number;
  beforeModelCall(history: Message[], ctx: { signal: AbortSignal; emit(e: AgentEvent): void }): Promise<Message[]>;
  compact(ctx: { history: Message[]; instruction?: string; signal: AbortSignal; emit(e: AgentEvent): void }): Promise<Message[] | undefined>;
  recoverOverflow(ctx: { history: Message[]; attempt: number; emit(e: AgentEvent): void }): Message[] | undefined;
}

export function createContextManager(o: ContextManagerOptions): ContextManager {
  const accountant = createTokenAccountant();
  // `overhead` composes the whole system prompt: callers that need it too pass theirs instead of a second one.
  const budget = (ratio?: number, overhead = o.overheadTokens()): Budget =>
    computeBudget({ contextWindow: o.contextWindow(), agent: o.agent(), overheadTokens: overhead, ...(ratio !== undefined ? { ratio } : {}) });
  const deps = {
    ...(o.summarize ? { summarize: o.summarize } : {}),
    ...(o.archive ? { archive: o.archive } : {}),
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.log ? { log: o.log } : {}),
  };
  const summarizerWindow = () => o.summarizerWindow?.() ?? o.contextWindow();
  let noted = false;
  return {
    accountant,
    budget,
    requestTokens: (history) => accountant.requestTokens(history, o.overheadTokens()),
    async beforeModelCall(history, ctx) {
      if (!noted && o.windowNote) ctx.emit({ type: "notice", level: "info", text: o.windowNote });
      noted = true;
      const overhead = o.overheadTokens();
      const b = budget(undefined, overhead);
      let out = history;
      if (accountant.requestTokens(history, overhead) > b.triggerTokens) {
        await o.beforeCompact?.("auto");
        const r = await compactHistory({ history, budget: b, overheadTokens: overhead, signal: ctx.signal, emit: ctx.emit, summarizerWindow: summarizerWindow() }, deps);
        out = r.messages;
        if (r.level > 0) await o.afterCompact?.();
      }
      accountant.sent(out);
      return out;
    },
    async compact(ctx) {
      const overhead = o.overheadTokens();
      // A short history is still compacted when it does not fit (a few huge messages): shortened, not summarized away.
      if (ctx.history.length < 4 && estimateTokens(ctx.history) <= budget(MANUAL_COMPACT_RATIO, overhead).historyTarget) {
        ctx.emit({ type: "notice", level: "warn", text: t("core.historyTooShort") });
        return undefined;
      }
      await o.beforeCompact?.("manual", ctx.instruction);
      const r = await compactHistory(
        {
          history: ctx.history,
          budget: budget(MANUAL_COMPACT_RATIO, overhead),
          overheadTokens: overhead,
          signal: ctx.signal,
          emit: ctx.emit,
          manual: true,
          summarizerWindow: summarizerWindow(),
          ...(ctx.instruction ? { instruction: ctx.instruction, keepRecent: 4 } : {}),
        },
        deps,
      );
      if (r.level === 0) return undefined;
      await o.afterCompact?.();
      return r.messages;
    },
    recoverOverflow(ctx) {
      if (ctx.attempt > MAX_RECOVERY_ATTEMPTS) return undefined;
      const overhead = o.overheadTokens();
      const b = budget(undefined, overhead);
      const r = recoverFromOverflow(ctx.history, ctx.attempt, b, o.archive);
      if (!r) return undefined;
      const before = estimateTokens(ctx.history) + overhead;
      const after = estimateTokens(r.messages) + overhead;
      const summary = `overflow recovery ${ctx.attempt}/${MAX_RECOVERY_ATTEMPTS}: ${r.description}`;
      o.log?.(`compaction: the provider said the request was too large; ${summary} (${formatTokens(before)} → ${formatTokens(after)} tokens)`);
      ctx.emit({ type: "compaction", level: 3, messagesBefore: ctx.history.length, messagesAfter: r.messages.length, tokensBefore: before, tokensAfter: after, summary, trigger: "overflow", ...r.counts });
      return r.messages;
    },
  };
}
