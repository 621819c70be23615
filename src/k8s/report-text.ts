/** The text form of a watch report: `chatcli watch --once` (text) and `/watch status` print the same lines. */
import { t } from "../i18n/i18n.ts";
import type { WatchReport } from "./watch-once.ts";
import { faultText } from "./fault-text.ts";

/** Lines of a CrashLoopBackOff's previous log shown under it. */
const TAIL_SHOWN = 5;

export function reportText(r: WatchReport, o: { faults?: boolean } = {}): string {
  const lines = [t("watch.header", { context: r.context, namespace: r.namespace, critical: String(r.counts.critical), warning: String(r.counts.warning), time: r.checkedAt })];
  if (!r.findings.length) lines.push(t("watch.none"));
  for (const f of r.findings) {
    lines.push(`[${f.severity}] ${f.kind} ${f.object.kind.toLowerCase()}/${f.object.name}: ${f.summary}`);
    const tail = f.evidence.previousLogTail;
    if (typeof tail === "string") for (const line of tail.split("\n").slice(-TAIL_SHOWN)) lines.push(`    | ${line}`);
  }
  if (o.faults) for (const f of r.faults) lines.push(faultText(f, { context: r.context, namespace: r.namespace, server: r.server }));
  return `${lines.join("\n")}\n`;
}
