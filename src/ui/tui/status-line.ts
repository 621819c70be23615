/** The status line text: provider · model · ctx · cost · spinner+elapsed · queue · mode · branch. Pure. */
import type { ViewState } from "./view-model.ts";
import { t } from "../../i18n/i18n.ts";

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function statusText(state: ViewState, now: number, spinnerFrame: number, hint?: string): string {
  const s = state.status;
  const parts = [s.provider, s.model];
  if (s.contextWindow > 0) {
    const pct = Math.round((s.contextTokens / s.contextWindow) * 100);
    parts.push(`${formatTokens(s.contextTokens)}/${formatTokens(s.contextWindow)} (${pct}%)`);
  } else if (s.contextTokens > 0) parts.push(t("status.ctx", { tokens: formatTokens(s.contextTokens) }));
  parts.push(`$${s.costUsd.toFixed(s.costUsd >= 1 ? 2 : 4)}`);
  if (s.running) {
    const secs = s.turnStartedAt === null ? 0 : Math.max(0, Math.floor((now - s.turnStartedAt) / 1000));
    parts.push(`${SPINNER[spinnerFrame % SPINNER.length]} ${secs}s · ${t("status.escToInterrupt")}`);
  }
  if (state.queue.length) parts.push(t("status.queued", { count: state.queue.length }));
  parts.push(s.permissionMode);
  if (s.gitBranch) parts.push(`⎇ ${s.gitBranch}`);
  const line = parts.join(" · ");
  return hint ? `${hint}   ${line}` : line;
}
