/**
 * The Kubernetes watch in the TUI (issue 23): `k8s.findings` → the status-line segment
 * (`⎈ context/namespace · 2 critical 3 warning · 12s ago`) and a notice naming the findings that appeared.
 */
import type { AgentEvent } from "../../protocol/events.ts";
import { t } from "../../i18n/i18n.ts";
import { addNotice } from "./commit-live.ts";
import type { ViewState } from "./view-model.ts";

export interface K8sStatus {
  context: string;
  namespace: string;
  critical: number;
  warning: number;
  /** When the last check ran, on the UI's clock (the reducer's `now`), not the wall clock of the event. */
  checkedAt?: number;
}

/** Findings named in one notice; the rest are counted. */
const NOTICE_NAMES = 3;

/** `now` is the UI's clock (OpenTUI's, performance.now() based); the event's `checkedAt` is wall-clock ms. */
export function foldK8sFindings(state: ViewState, e: Extract<AgentEvent, { type: "k8s.findings" }>, now: number, wallNow = Date.now()): ViewState {
  const { k8s: _old, ...rest } = state.status;
  if (!e.active) return { ...state, status: rest };
  const k8s: K8sStatus = { context: e.context, namespace: e.namespace, critical: e.counts.critical, warning: e.counts.warning, ...(e.checkedAt !== undefined ? { checkedAt: now - Math.max(0, wallNow - e.checkedAt) } : {}) };
  const s = { ...state, status: { ...rest, k8s } };
  if (!e.appeared.length) return s;
  const names = e.appeared.slice(0, NOTICE_NAMES).map((f) => `[${f.severity}] ${f.kind} ${f.object}`);
  const more = e.appeared.length > NOTICE_NAMES ? ` ${t("k8s.moreFindings", { count: e.appeared.length - NOTICE_NAMES })}` : "";
  const level = e.appeared.some((f) => f.severity === "critical") ? "warn" : "info";
  return addNotice(s, level, t("k8s.newFindings", { count: e.appeared.length, list: names.join(", ") + more }));
}

/** The segment's text; `now` for the age of the last check. */
export function k8sSegment(k: K8sStatus, now: number): { text: string; short: string } {
  const counts = t("k8s.counts", { critical: k.critical, warning: k.warning });
  const age = k.checkedAt === undefined ? t("k8s.checking") : t("k8s.ago", { seconds: Math.max(0, Math.floor((now - k.checkedAt) / 1000)) });
  return { text: `⎈ ${k.context}/${k.namespace} · ${counts} · ${age}`, short: `⎈ ${k.critical}/${k.warning}` };
}
