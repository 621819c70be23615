/**
 * `chatcli watch --analyze [watch flags] [--model M] [--output-format json] …` (issue 23): one snapshot of the scope,
 * then a headless model turn (main.ts runs it as `-p`) with the findings and their log tails (bounded) and the
 * k8s_* tools available (settings `k8s.watch` set to the same scope). Flags that are not the watch's go to the
 * one-shot run unchanged (`--output-format json` wraps the diagnosis in the headless result).
 * Exit 2 usage, 3 when the cluster cannot be read at all; otherwise the one-shot's code.
 */
import { homedir } from "node:os";
import { t } from "../../i18n/i18n.ts";
import { KubeClient, KubeError } from "../../k8s/kube-client.ts";
import { loadKubeAccess } from "../../k8s/kube-access.ts";
import { faultOf, resourceOfPath, takeSnapshot, type WatchScope } from "../../k8s/snapshot.ts";
import { faultText } from "../../k8s/fault-text.ts";
import { watchReport, type WatchReport } from "../../k8s/watch-once.ts";
import { parseWatchArgs } from "./watch.ts";

interface Out {
  write(s: string): unknown;
}

/** The watch's own flags (those with a value); everything else belongs to the one-shot run. */
const WATCH_VALUED = new Set(["--context", "--namespace", "-n", "--deployment", "--selector", "-l", "--kubeconfig", "--interval"]);

/** Bounds of what the prompt carries: findings listed, characters of evidence per finding, the whole report. */
export const ANALYZE_MAX_FINDINGS = 20;
export const ANALYZE_MAX_EVIDENCE_CHARS = 2_000;
export const ANALYZE_MAX_PROMPT_CHARS = 24_000;

export interface AnalyzePlan {
  /** The one-shot argv: `-p PROMPT` and the passed-through flags. */
  argv: string[];
  /** settings `k8s.watch` for the session: the same scope, so the k8s_* tools read it. */
  watch: { context?: string; namespace: string; deployment?: string; selector?: string; kubeconfig?: string; interval: string };
}

export function splitAnalyzeArgv(argv: readonly string[]): { watch: string[]; rest: string[] } {
  const watch: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? "";
    const flag = word.startsWith("--") && word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    if (word === "--analyze") continue;
    if (WATCH_VALUED.has(flag)) {
      watch.push(word);
      if (flag === word && i + 1 < argv.length) watch.push(argv[++i] ?? "");
    } else rest.push(word);
  }
  return { watch, rest };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-max)}`;
}

/** The diagnosis request (English: it is for the model). */
export function analyzePrompt(r: WatchReport): string {
  const findings = r.findings.slice(0, ANALYZE_MAX_FINDINGS).map((f) => ({
    ...f,
    evidence: Object.fromEntries(Object.entries(f.evidence).map(([k, v]) => [k, typeof v === "string" ? clip(v, ANALYZE_MAX_EVIDENCE_CHARS) : v])),
  }));
  const report = { ...r, findings, ...(r.findings.length > ANALYZE_MAX_FINDINGS ? { findingsNotShown: r.findings.length - ANALYZE_MAX_FINDINGS } : {}) };
  const body = clip(JSON.stringify(report, null, 2), ANALYZE_MAX_PROMPT_CHARS);
  return [
    `The Kubernetes watcher checked the cluster context "${r.context}", namespace "${r.namespace}" at ${r.checkedAt}. Its report (findings with evidence, including the previous container's log tail for crash loops, and the parts of the cluster it could not read):`,
    "",
    "```json",
    body,
    "```",
    "",
    "Diagnose these findings: for each problem, the most likely root cause, the evidence for it, and the fix. Use the read-only tools k8s_get, k8s_logs, k8s_events and k8s_describe to confirm before you conclude. Do not change the cluster: give any change as the exact kubectl command for the user to run. If there are no findings, say the scope looks healthy and mention anything the watcher could not read.",
  ].join("\n");
}

/** The plan, or an exit code when it cannot run (the reason written to `err`). */
export async function planAnalyze(argv: readonly string[], err: Out, env: Record<string, string | undefined> = process.env, now: () => number = Date.now): Promise<AnalyzePlan | number> {
  const { watch, rest } = splitAnalyzeArgv(argv);
  let args;
  try {
    args = parseWatchArgs(watch);
  } catch (e) {
    err.write(`chatcli: ${(e as Error).message}\n${t("watch.runHelp")}\n`);
    return 2;
  }
  let access;
  try {
    access = await loadKubeAccess({ env, home: env.HOME ?? homedir(), ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}), ...(args.context ? { context: args.context } : {}) });
  } catch (e) {
    err.write(`chatcli: ${t("watch.config", { message: (e as Error).message })}\n`);
    return 3;
  }
  const scope: WatchScope = { namespace: args.namespace ?? access.namespace, ...(args.deployment ? { deployment: args.deployment } : {}), ...(args.selector ? { selector: args.selector } : {}) };
  const where = { context: access.context, namespace: scope.namespace, server: access.server };
  let report: WatchReport;
  try {
    const at = now();
    const snap = await takeSnapshot(new KubeClient(access), scope, at);
    report = watchReport({ context: access.context, server: access.server, scope, now: at, findings: snap.findings, faults: snap.faults });
  } catch (e) {
    if (!(e instanceof KubeError)) throw e;
    err.write(`chatcli: ${faultText(faultOf(resourceOfPath(e.path), e, scope.namespace), where)}\n`);
    return 3;
  }
  for (const f of report.faults) err.write(`chatcli: ${faultText(f, where)}\n`);
  return {
    argv: ["-p", analyzePrompt(report), ...rest],
    watch: {
      namespace: scope.namespace,
      interval: `${Math.max(1, Math.round(args.intervalMs / 1000))}s`,
      ...(args.context ? { context: args.context } : { context: access.context }),
      ...(scope.deployment ? { deployment: scope.deployment } : {}),
      ...(scope.selector ? { selector: scope.selector } : {}),
      ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}),
    },
  };
}
