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

/** 0 clean (warnings allowed), 1 when any finding is critical; faults alone are 0 with the faults listed (3 when nothing was readable is the caller's). */
export function watchExitCode(r: WatchReport): number {
  return r.counts.critical > 0 ? 1 : 0;
}
