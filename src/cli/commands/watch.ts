/**
 * `chatcli watch …`: the Kubernetes watcher from the shell (issue 23). Loaded with `await import()` by main.ts only
 * for this subcommand; src/k8s loads @kubernetes/client-node lazily in turn. `--once`: one snapshot (text or JSON),
 * exit 0 no critical finding, 1 a critical finding, 3 unreadable. Without it: the informer watch (src/k8s/watch-cluster.ts; polling where watch is refused)
 * prints what appears and resolves (JSON: one update per line) until SIGINT, exit 130. 2 = usage.
 */
import { homedir } from "node:os";
import { detectLang, setLang, t } from "../../i18n/i18n.ts";
import { KubeConfigError, loadKubeAccess } from "../../k8s/kube-access.ts";
import { KubeClient, KubeError } from "../../k8s/kube-client.ts";
import { faultOf, resourceOfPath, takeSnapshot, type WatchScope } from "../../k8s/snapshot.ts";
import { faultText, updateText, type FaultWhere } from "../../k8s/fault-text.ts";
import { watchExitCode, watchReport, type WatchReport } from "../../k8s/watch-once.ts";
import { reportText } from "../../k8s/report-text.ts";
import type { WatchUpdate } from "../../k8s/watch-loop.ts";
import { watchCluster } from "../../k8s/watch-cluster.ts";
import { parseSubcommandArgs, type Out } from "./subcommand.ts";
import type { WatchSpec } from "../../k8s/session-watch.ts";


/** The watch's scope (the same fields as a session's `/watch` and settings `k8s.watch`) and the command's own flags. */
export interface WatchArgs extends WatchSpec {
  once: boolean;
  /** `--analyze`: main.ts runs it as a headless model turn (watch-analyze.ts); never reaches watchCommand. */
  analyze?: boolean;
  format: "text" | "json";
  help: boolean;
}

class WatchUsage extends Error {}

const VALUED: Record<string, keyof WatchArgs> = { "--context": "context", "--namespace": "namespace", "-n": "namespace", "--deployment": "deployment", "--selector": "selector", "-l": "selector", "--kubeconfig": "kubeconfig", "--interval": "intervalMs", "--output-format": "format" };

export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? "s"] ?? 1000;
  return n * unit;
}

export function parseWatchArgs(argv: string[]): WatchArgs {
  const a: WatchArgs = { intervalMs: 30_000, once: false, format: "text", help: false };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? "";
    const eq = word.indexOf("=");
    const [flag, inline] = word.startsWith("--") && eq > 0 ? [word.slice(0, eq), word.slice(eq + 1)] : [word, undefined];
    if (flag === "--help" || flag === "-h") a.help = true;
    else if (flag === "--once") a.once = true;
    else if (flag === "--analyze") a.analyze = true;
    else if (flag in VALUED) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new WatchUsage(t("watch.missingValue", { option: flag }));
      const key = VALUED[flag];
      if (key === "intervalMs") {
        const ms = parseDuration(value);
        if (!ms) throw new WatchUsage(t("watch.badInterval", { value }));
        a.intervalMs = ms;
      } else if (key === "format") {
        if (value !== "text" && value !== "json") throw new WatchUsage(t("watch.badFormat", { value }));
        a.format = value;
      } else if (key) (a as unknown as Record<string, string>)[key] = value;
    } else throw new WatchUsage(t("watch.unknownOption", { option: word }));
  }
  if (a.deployment && a.selector) throw new WatchUsage(t("watch.bothScopes"));
  return a;
}

function printText(r: WatchReport, out: Out): void {
  out.write(reportText(r));
}

export async function watchCommand(argv: string[], out: Out, err: Out, env: Record<string, string | undefined> = process.env, now: () => number = Date.now): Promise<number> {
  setLang(detectLang(env));
  const args = parseSubcommandArgs(() => parseWatchArgs(argv), (e) => e instanceof WatchUsage, { help: "watch.help", runHelp: "watch.runHelp" }, out, err);
  if (typeof args === "number") return args;
  let access;
  try {
    access = await loadKubeAccess({ env, home: env.HOME ?? homedir(), ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}), ...(args.context ? { context: args.context } : {}) });
  } catch (e) {
    if (!(e instanceof KubeConfigError) && !(e instanceof Error)) throw e;
    err.write(`chatcli: ${t("watch.config", { message: e.message })}\n`);
    return 3;
  }
  const scope: WatchScope = { namespace: args.namespace ?? access.namespace, ...(args.deployment ? { deployment: args.deployment } : {}), ...(args.selector ? { selector: args.selector } : {}) };
  const where: FaultWhere = { context: access.context, namespace: scope.namespace, server: access.server };
  if (!args.once) return loop(new KubeClient(access), scope, args, where, out, err, now);
  const at = now();
  try {
    const snap = await takeSnapshot(new KubeClient(access), scope, at);
    const report = watchReport({ context: access.context, server: access.server, scope, now: at, findings: snap.findings, faults: snap.faults });
    for (const f of snap.faults) err.write(`chatcli: ${faultText(f, where)}\n`);
    if (args.format === "json") out.write(`${JSON.stringify(report, null, 2)}\n`);
    else printText(report, out);
    return watchExitCode(report);
  } catch (e) {
    if (!(e instanceof KubeError)) throw e;
    // Nothing in scope could be read: said once, and (JSON) the report still says why, for CI.
    const fault = faultOf(resourceOfPath(e.path), e, scope.namespace);
    err.write(`chatcli: ${faultText(fault, where)}\n`);
    if (args.format === "json") out.write(`${JSON.stringify(watchReport({ context: access.context, server: access.server, scope, now: at, findings: [], faults: [fault] }), null, 2)}\n`);
    return 3;
  }
}

function printUpdate(u: WatchUpdate, where: FaultWhere, json: boolean, out: Out, err: Out): void {
  const said = updateText(u, where);
  if (said) err.write(`chatcli: ${said}\n`);
  if (u.type !== "findings") return;
  if (json) {
    out.write(`${JSON.stringify({ type: "findings", checkedAt: new Date(u.checkedAt).toISOString(), appeared: u.appeared, resolved: u.resolved, current: u.current.length })}\n`);
    return;
  }
  const critical = u.current.filter((f) => f.severity === "critical").length;
  const warning = u.current.filter((f) => f.severity === "warning").length;
  out.write(`${t("watch.header", { ...where, critical: String(critical), warning: String(warning), time: new Date(u.checkedAt).toISOString() })}\n`);
  for (const f of u.appeared) out.write(`+ [${f.severity}] ${f.kind} ${f.object.kind.toLowerCase()}/${f.object.name}: ${f.summary}\n`);
  for (const f of u.resolved) out.write(`- ${t("watch.resolved")} ${f.kind} ${f.object.kind.toLowerCase()}/${f.object.name}\n`);
}

async function loop(client: KubeClient, scope: WatchScope, args: WatchArgs, where: FaultWhere, out: Out, err: Out, now: () => number): Promise<number> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await watchCluster(client, scope, { intervalMs: args.intervalMs, now }, ac.signal, (u) => printUpdate(u, where, args.format === "json", out, err));
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return 130;
}
