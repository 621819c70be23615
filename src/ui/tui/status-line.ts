/**
 * The status line text: provider · model · ctx · cost · spinner+elapsed · queue · mode · sandbox (when
 * off/unavailable) · branch. Pure. Given a width it fits the line into it by dropping the least important parts
 * first (git branch, provider, cost, "esc to interrupt", the context figures, sandbox, model) so that the spinner,
 * the permission mode and the queue count stay visible down to about 20 columns; a transient hint is shortened
 * before those go.
 */
import type { ViewState } from "./view-model.ts";
import { t } from "../../i18n/i18n.ts";
import { formatCost, formatTokens } from "../../llm/usage.ts";
import { budgetStatus } from "../../llm/budget.ts";
import { k8sSegment } from "./k8s-status.ts";

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

// One token and cost format for the status line and /stats (32768 → "32.8k" in both).
export { formatTokens };

/** A segment and how long it survives a narrow window: lower `keep` is dropped first; `short` is tried before dropping. */
interface Part {
  text: string;
  keep: number;
  short?: string;
}

const SEP = " · ";
const HINT_SEP = "   ";

export function statusText(state: ViewState, now: number, spinnerFrame: number, hint?: string, width = Infinity, vimMode?: string): string {
  const parts = statusParts(state, now, spinnerFrame);
  // Vim mode's NORMAL / INSERT leads the line and stays as long as the permission mode does.
  if (vimMode) parts.unshift({ text: vimMode, keep: 92 });
  return fitStatus(parts, hint ?? "", width);
}

function statusParts(state: ViewState, now: number, spinnerFrame: number): Part[] {
  const s = state.status;
  const parts: Part[] = s.serving ? [{ text: t("status.fallback", { entry: s.serving }), keep: 70 }] : [{ text: s.provider, keep: 20 }, { text: s.model, keep: 70 }];
  if (s.contextWindow > 0) {
    const pct = Math.round((s.contextTokens / s.contextWindow) * 100);
    parts.push({ text: `${formatTokens(s.contextTokens)}/${formatTokens(s.contextWindow)} (${pct}%)`, keep: 50, short: `${pct}%` });
    // Over the window the next request would be cut or refused: say what helps.
    if (s.contextTokens > s.contextWindow) parts.push({ text: t("status.overWindow"), keep: 50, short: "/compact" });
  } else if (s.contextTokens > 0) parts.push({ text: t("status.ctx", { tokens: formatTokens(s.contextTokens) }), keep: 50 });
  // No priced call yet (local Ollama, unknown models): no cost segment, as /stats says "cost n/a".
  if (s.budgetUsd !== undefined) parts.push({ text: budgetStatus(s.costUsd, s.budgetUsd), keep: 85 });
  else if (s.costUsd !== undefined) parts.push({ text: formatCost(s.costUsd), keep: 30 });
  if (state.shellMode) parts.push({ text: t("shell.indicator"), keep: 96 });
  if (s.running) {
    const secs = s.turnStartedAt === null ? 0 : Math.max(0, Math.floor((now - s.turnStartedAt) / 1000));
    parts.push({ text: `${SPINNER[spinnerFrame % SPINNER.length]} ${secs}s`, keep: 95 });
    parts.push({ text: t("status.escToInterrupt"), keep: 40 });
  }
  if (state.queue.length) parts.push({ text: t("status.queued", { count: state.queue.length }), keep: 80 });
  if (s.persona) parts.push({ text: t("status.persona", { name: s.persona }), keep: 85, short: `@${s.persona}` });
  parts.push({ text: s.permissionMode, keep: 90 });
  if (s.sandbox) parts.push({ text: s.sandbox, keep: 60 });
  if (s.k8s) parts.push({ ...k8sSegment(s.k8s, now), keep: 55 });
  if (s.connection) parts.push({ text: s.connection, keep: 88 });
  if (s.gitBranch) parts.push({ text: `⎇ ${s.gitBranch}`, keep: 10 });
  return parts;
}

/** Terminal cells of a string (wide CJK, emoji). */
function cells(text: string): number {
  return Bun.stringWidth(text);
}

function join(texts: string[], hint: string): string {
  const line = texts.join(SEP);
  return hint ? (line ? `${hint}${HINT_SEP}${line}` : hint) : line;
}

function fitStatus(parts: Part[], hint: string, width: number): string {
  const texts = parts.map((p) => p.text);
  const alive = parts.map(() => true);
  const visible = () => texts.filter((_, i) => alive[i]);
  const order = parts.map((p, i) => ({ p, i })).sort((a, b) => a.p.keep - b.p.keep);
  for (const { p, i } of order) {
    if (cells(join(visible(), hint)) <= width) return join(visible(), hint);
    if (p.keep >= 90) break; // the spinner and the permission mode stay; the hint gives way first
    if (p.short) {
      texts[i] = p.short;
      if (cells(join(visible(), hint)) <= width) return join(visible(), hint);
    }
    alive[i] = false;
  }
  const rest = join(visible(), "");
  if (cells(join(visible(), hint)) <= width) return join(visible(), hint);
  const room = width - cells(rest) - HINT_SEP.length;
  if (hint && room >= 2) return `${truncate(hint, room)}${HINT_SEP}${rest}`;
  return truncate(rest, width);
}

/** Cut to `width` cells with a final "…". */
function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (cells(text) <= width) return text;
  let out = "";
  for (const ch of text) {
    if (cells(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}
