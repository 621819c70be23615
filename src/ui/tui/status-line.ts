/** The status line text: provider · model · ctx · cost · spinner+elapsed · queue · mode · sandbox (when off/unavailable) · branch. Pure. */
import type { ViewState } from "./view-model.ts";
import { t } from "../../i18n/i18n.ts";
import { formatCost, formatTokens } from "../../llm/usage.ts";

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

// One token and cost format for the status line and /stats (32768 → "32.8k" in both).
export { formatTokens };

export function statusText(state: ViewState, now: number, spinnerFrame: number, hint?: string): string {
  const s = state.status;
  const parts = s.serving ? [t("status.fallback", { entry: s.serving })] : [s.provider, s.model];
  if (s.contextWindow > 0) {
    const pct = Math.round((s.contextTokens / s.contextWindow) * 100);
    parts.push(`${formatTokens(s.contextTokens)}/${formatTokens(s.contextWindow)} (${pct}%)`);
  } else if (s.contextTokens > 0) parts.push(t("status.ctx", { tokens: formatTokens(s.contextTokens) }));
  // No priced call yet (local Ollama, unknown models): no cost segment, as /stats says "cost n/a".
  if (s.costUsd !== undefined) parts.push(formatCost(s.costUsd));
  if (s.running) {
    const secs = s.turnStartedAt === null ? 0 : Math.max(0, Math.floor((now - s.turnStartedAt) / 1000));
    parts.push(`${SPINNER[spinnerFrame % SPINNER.length]} ${secs}s · ${t("status.escToInterrupt")}`);
  }
  if (state.queue.length) parts.push(t("status.queued", { count: state.queue.length }));
  parts.push(s.permissionMode);
  if (s.sandbox) parts.push(s.sandbox);
  if (s.gitBranch) parts.push(`⎇ ${s.gitBranch}`);
  const line = parts.join(" · ");
  return hint ? `${hint}   ${line}` : line;
}
