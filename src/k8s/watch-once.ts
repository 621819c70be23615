/** `chatcli watch --once`: one snapshot as the JSON report (the contract CI reads) and its exit code. */
import { countBySeverity, type Finding, type Severity } from "./findings-types.ts";
import type { KubeFault, WatchScope } from "./snapshot.ts";

export interface WatchReport {
  context: string;
  server: string;
  namespace: string;
  scope: { deployment?: string; selector?: string };
  checkedAt: string;
  counts: Record<Severity, number>;
  findings: Finding[];
  faults: KubeFault[];
}

export function watchReport(o: { context: string; server: string; scope: WatchScope; now: number; findings: Finding[]; faults: KubeFault[] }): WatchReport {
  return {
    context: o.context,
    server: o.server,
    namespace: o.scope.namespace,
    scope: { ...(o.scope.deployment ? { deployment: o.scope.deployment } : {}), ...(o.scope.selector ? { selector: o.scope.selector } : {}) },
    checkedAt: new Date(o.now).toISOString(),
    counts: countBySeverity(o.findings),
    findings: o.findings,
    faults: o.faults,
  };
}

/**
 * 1 when any finding is critical; else 3 when the pods in scope could not be read (a CI gate must not pass a check
 * it could not make); else 0 (warnings allowed, and faults on other resources — a namespace-scoped user who may not
 * list nodes — are listed, not fatal). 3 when nothing at all was readable is the caller's.
 */
export function watchExitCode(r: WatchReport): number {
  if (r.counts.critical > 0) return 1;
  return r.faults.some((f) => f.resource === "pods") ? 3 : 0;
}
