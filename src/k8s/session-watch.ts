/**
 * The Kubernetes watch inside a session (issue 23): `/watch`, settings `k8s.watch`, `watch --analyze`. Loaded with
 * `await import()` only when a watch is asked for (src/cli/wire-k8s.ts holds the slot), so a session without one
 * never loads src/k8s. While active it offers the read-only k8s_* tools and the prompt addendum, runs the polling
 * loop (watch-loop.ts) and publishes `k8s.findings` after each check and each fault once as a notice; it never
 * throws into the session.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { ToolDefinition } from "../tool/tool.ts";
import { t } from "../i18n/i18n.ts";
import { loadKubeAccess, type KubeAccess } from "./kube-access.ts";
import { KubeClient } from "./kube-client.ts";
import { takeSnapshot, type SnapshotResult, type WatchScope } from "./snapshot.ts";
import { diffFindings, runWatchLoop, type WatchUpdate } from "./watch-loop.ts";
import { watchReport, type WatchReport } from "./watch-once.ts";
import { countBySeverity, type Finding } from "./findings-types.ts";
import { reportText } from "./report-text.ts";
import { createK8sTools } from "./tools/index.ts";

export interface WatchSpec {
  context?: string;
  namespace?: string;
  deployment?: string;
  selector?: string;
  kubeconfig?: string;
  intervalMs: number;
}

export interface SessionWatchDeps {
  env: Record<string, string | undefined>;
  home: string;
  publish(e: AgentEvent): void;
  now?(): number;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

interface Active {
  access: KubeAccess;
  client: KubeClient;
  scope: WatchScope;
  spec: WatchSpec;
  abort: AbortController;
  loop: Promise<void>;
  last?: { at: number; snap: SnapshotResult };
}

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export const PROMPT_ADDENDUM = [
  "A Kubernetes watch is active on the cluster context \"{context}\", namespace \"{namespace}\"{scope}.",
  "To investigate, use the read-only tools k8s_get, k8s_logs, k8s_events and k8s_describe (they default to that namespace).",
  "Secrets are never readable. You cannot change the cluster with these tools: when a fix needs a change, propose the exact",
  "kubectl command (for example `kubectl rollout restart deployment/NAME -n NS`, `kubectl scale deployment/NAME --replicas=N -n NS`,",
  "`kubectl delete pod NAME -n NS`) and run it only through the exec tool, where the user approves it.",
].join("\n");

export function briefFinding(f: Finding): { kind: string; severity: Finding["severity"]; object: string; summary: string } {
  return { kind: f.kind, severity: f.severity, object: `${f.object.kind.toLowerCase()}/${f.object.name}`, summary: f.summary };
}

export class SessionWatch {
  private active: Active | undefined;
  private readonly now: () => number;
  private readonly tools_: ToolDefinition[];

  constructor(private readonly deps: SessionWatchDeps) {
    this.now = deps.now ?? Date.now;
    this.tools_ = createK8sTools({ client: () => this.active?.client, namespace: () => this.active?.scope.namespace ?? "default", now: this.now });
  }

  get isActive(): boolean {
    return this.active !== undefined;
  }

  get where(): { context: string; namespace: string } | undefined {
    return this.active ? { context: this.active.access.context, namespace: this.active.scope.namespace } : undefined;
  }

  /** The k8s_* tools while a watch is active, none otherwise (the tool host reads this on every request). */
  tools(): readonly ToolDefinition[] {
    return this.active ? this.tools_ : [];
  }

  find(name: string): ToolDefinition | undefined {
    return this.tools().find((x) => x.name === name);
  }

  /** The system prompt addendum while active (English: it is for the model). */
  promptPart(): string | undefined {
    const a = this.active;
    if (!a) return undefined;
    const scope = a.scope.deployment ? `, deployment "${a.scope.deployment}"` : a.scope.selector ? `, pods matching "${a.scope.selector}"` : "";
    return PROMPT_ADDENDUM.replace("{context}", a.access.context).replace("{namespace}", a.scope.namespace).replace("{scope}", scope);
  }

  /**
   * Starts (or restarts with a new scope) the watch. Resolves once the kubeconfig is loaded and the tools are
   * offered; the first check runs in the background. A kubeconfig that cannot be read is the answer's text.
   */
  async start(spec: WatchSpec): Promise<{ ok: boolean; text: string }> {
    let access: KubeAccess;
    try {
      access = await loadKubeAccess({ env: this.deps.env, home: this.deps.home, ...(spec.kubeconfig ? { kubeconfig: spec.kubeconfig } : {}), ...(spec.context ? { context: spec.context } : {}) });
    } catch (err) {
      return { ok: false, text: t("k8s.startFailed", { message: (err as Error)?.message ?? String(err) }) };
    }
    this.stop(false);
    const scope: WatchScope = { namespace: spec.namespace ?? access.namespace, ...(spec.deployment ? { deployment: spec.deployment } : {}), ...(spec.selector ? { selector: spec.selector } : {}) };
    const client = new KubeClient(access);
    const abort = new AbortController();
    const active: Active = { access, client, scope, spec, abort, loop: Promise.resolve() };
    this.active = active;
    const where = { context: access.context, namespace: scope.namespace };
    this.deps.publish({ type: "k8s.findings", active: true, ...where, counts: { critical: 0, warning: 0, info: 0 }, appeared: [] });
    let previous: Finding[] | undefined;
    const snapshot = async (at: number) => {
      const snap = await takeSnapshot(client, scope, at);
      if (this.active !== active) return snap;
      active.last = { at, snap };
      const d = diffFindings(previous ?? [], snap.findings);
      previous = snap.findings;
      this.deps.publish({ type: "k8s.findings", active: true, ...where, checkedAt: at, counts: countBySeverity(snap.findings), appeared: d.appeared.map(briefFinding) });
      return snap;
    };
    const onUpdate = (u: WatchUpdate) => {
      if (this.active !== active) return;
      const notice = updateNotice(u, where);
      if (notice) this.deps.publish({ type: "notice", level: u.type === "recovered" ? "info" : "warn", text: notice });
    };
    active.loop = runWatchLoop({ snapshot, sleep: this.deps.sleep ?? defaultSleep, now: this.now }, spec.intervalMs, abort.signal, onUpdate).catch(() => undefined);
    const what = scope.deployment ? ` (deployment ${scope.deployment})` : scope.selector ? ` (${scope.selector})` : "";
    return { ok: true, text: t("k8s.started", { ...where, scope: what, seconds: Math.round(spec.intervalMs / 1000) }) };
  }

  /** Stops the loop and withdraws the tools; the status segment goes with `active: false`. */
  stop(announce = true): string {
    const a = this.active;
    if (!a) return t("k8s.notWatching");
    this.active = undefined;
    a.abort.abort();
    if (announce) this.deps.publish({ type: "k8s.findings", active: false, context: a.access.context, namespace: a.scope.namespace, counts: { critical: 0, warning: 0, info: 0 }, appeared: [] });
    return t("k8s.stopped");
  }

  /** A fresh check as the `watch --once` report (undefined when no watch is active). Throws a KubeError when nothing could be read. */
  async report(): Promise<WatchReport | undefined> {
    const a = this.active;
    if (!a) return undefined;
    const at = this.now();
    const snap = await takeSnapshot(a.client, a.scope, at);
    return watchReport({ context: a.access.context, server: a.access.server, scope: a.scope, now: at, findings: snap.findings, faults: snap.faults });
  }

  /** `/watch status`: the same text as `chatcli watch --once`, faults listed. */
  async statusText(): Promise<string> {
    if (!this.active) return t("k8s.notWatching");
    const where = this.where ?? { context: "", namespace: "" };
    try {
      const r = await this.report();
      return r ? reportText(r, { faults: true }).trimEnd() : t("k8s.notWatching");
    } catch (err) {
      return t("watch.unreadable", { message: `${(err as { kind?: string }).kind ?? "error"}: ${(err as Error).message}`, ...where });
    }
  }

  /** Waits for the loop to end after stop() (tests). */
  async settled(): Promise<void> {
    await this.active?.loop;
  }
}

function updateNotice(u: WatchUpdate, where: { context: string; namespace: string }): string | undefined {
  if (u.type === "fault") return t("k8s.fault", { ...where, resource: u.fault.resource, kind: u.fault.kind, message: u.fault.message });
  if (u.type === "unreadable") return t("k8s.unreadable", { ...where, kind: u.kind, message: u.message, seconds: Math.round(u.retryInMs / 1000) });
  if (u.type === "recovered") return t("k8s.recovered", where);
  return undefined;
}
