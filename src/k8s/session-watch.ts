/**
 * The Kubernetes watch inside a session (issue 23): `/watch`, settings `k8s.watch`, `watch --analyze`. Loaded with
 * `await import()` only when a watch is asked for (src/cli/wire-k8s.ts holds the slot), so a session without one
 * never loads src/k8s. While active it offers the read-only k8s_* tools and the prompt addendum, runs the same
 * watch as `chatcli watch` (watch-cluster.ts: informers with resync, polling where watch is refused), publishes
 * `k8s.findings` after every recompute and each fault/outage/recovery once as a notice in fault-text.ts's words; it
 * keeps the last findings for `/watch status`; it never throws into the session.
 */
import type { AgentEvent } from "../protocol/events.ts";
import type { ToolDefinition } from "../tool/tool.ts";
import { t } from "../i18n/i18n.ts";
import { loadKubeAccess, type KubeAccess } from "./kube-access.ts";
import { KubeClient, KubeError } from "./kube-client.ts";
import { resourceOfPath, takeSnapshot, type KubeFault, type WatchScope } from "./snapshot.ts";
import type { WatchUpdate } from "./watch-loop.ts";
import { watchCluster } from "./watch-cluster.ts";
import { outageText, updateText, type FaultWhere } from "./fault-text.ts";
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
  /** The informers' waits (backoff, polling); default a timer that ends on abort. */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  /** Quiet time after a change before the findings are recomputed (watch-cluster's default: 1 s). */
  debounceMs?: number;
}

interface Active {
  access: KubeAccess;
  client: KubeClient;
  scope: WatchScope;
  spec: WatchSpec;
  abort: AbortController;
  loop: Promise<void>;
  /** The last finished check: what `/watch status` prints. */
  last?: { at: number; findings: Finding[]; faults: KubeFault[] };
  /** The outage being retried, if the cluster cannot be read now (said in `/watch status` under the last check). */
  outage?: string;
}

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
  /** The latest loop, kept after stop() so settled() can wait for it. */
  private loop: Promise<void> = Promise.resolve();
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
    const faultWhere: FaultWhere = { ...where, server: access.server };
    this.deps.publish({ type: "k8s.findings", active: true, ...where, counts: { critical: 0, warning: 0, info: 0 }, appeared: [] });
    const onUpdate = (u: WatchUpdate) => {
      if (this.active !== active) return;
      if (u.type === "findings") {
        active.last = { at: u.checkedAt, findings: u.current, faults: u.faults ?? [] };
        this.deps.publish({ type: "k8s.findings", active: true, ...where, checkedAt: u.checkedAt, counts: countBySeverity(u.current), appeared: u.appeared.map(briefFinding) });
        return;
      }
      if (u.type === "unreadable") active.outage = outageText(u, faultWhere);
      if (u.type === "recovered") active.outage = undefined;
      const text = updateText(u, faultWhere);
      if (text) this.deps.publish({ type: "notice", level: u.type === "recovered" ? "info" : "warn", text: `⎈ ${text}` });
    };
    const options = { intervalMs: spec.intervalMs, everyCheck: true, now: this.now, ...(this.deps.sleep ? { sleep: this.deps.sleep } : {}), ...(this.deps.debounceMs !== undefined ? { debounceMs: this.deps.debounceMs } : {}) };
    active.loop = watchCluster(client, scope, options, abort.signal, onUpdate).catch(() => undefined);
    this.loop = active.loop;
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

  /** The findings the watch holds from its last finished check (undefined before the first one). */
  current(): WatchReport | undefined {
    const a = this.active;
    if (!a?.last) return undefined;
    return watchReport({ context: a.access.context, server: a.access.server, scope: a.scope, now: a.last.at, findings: a.last.findings, faults: a.last.faults });
  }

  /**
   * `/watch status`: the current summary — the last check's findings and standing faults, with its time, in the
   * text of `chatcli watch --once`, and the outage being retried if any. Only before the first check finished does
   * it take a snapshot of its own.
   */
  async statusText(): Promise<string> {
    const a = this.active;
    if (!a) return t("k8s.notWatching");
    const held = this.current();
    if (held) return [reportText(held, { faults: true }).trimEnd(), ...(a.outage ? [a.outage] : [])].join("\n");
    const where = { context: a.access.context, namespace: a.scope.namespace, server: a.access.server };
    try {
      const r = await this.report();
      return r ? reportText(r, { faults: true }).trimEnd() : t("k8s.notWatching");
    } catch (err) {
      if (err instanceof KubeError) return outageText({ type: "unreadable", kind: err.kind, message: err.message, retryInMs: 0, resource: resourceOfPath(err.path) }, where);
      return t("watch.unreadable", { message: (err as Error)?.message ?? String(err), ...where });
    }
  }

  /** Waits for the loop to end after stop() (tests). */
  async settled(): Promise<void> {
    await this.loop;
  }
}
