/** k8s_logs: a container's log, bounded (tail ≤ 500 lines, ≤ 64 KiB asked of the server and kept). */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import { kubeErrorOutput, noWatch, type K8sToolEnv, K8S_NAME } from "./tool-env.ts";

export const MAX_TAIL = 500;
export const DEFAULT_TAIL = 100;
export const MAX_LOG_BYTES = 64 * 1024;

const input = z.object({
  pod: z.string().regex(K8S_NAME, "not a Kubernetes name").describe("Pod name."),
  container: z.string().regex(K8S_NAME, "not a container name").optional().describe("Container (default: the pod's only or first container)."),
  previous: z.boolean().optional().describe("The previous (crashed) container's log."),
  tail: z.number().int().positive().optional().describe(`Last N lines (default ${DEFAULT_TAIL}, at most ${MAX_TAIL}).`),
  since: z.union([z.string(), z.number()]).optional().describe("Only newer lines: seconds, or a duration like 10m, 1h."),
  namespace: z.string().regex(K8S_NAME, "not a Kubernetes namespace").optional().describe("Namespace (default: the watched one)."),
});

/** `90`, `"90"`, `"90s"`, `"10m"`, `"1h"` → seconds; undefined when unreadable. */
export function sinceSeconds(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "number") return v > 0 ? Math.floor(v) : undefined;
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(v.trim());
  if (!m) return undefined;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? "s") as "s"];
}

export function createK8sLogsTool(env: K8sToolEnv): ToolDefinition {
  return defineTool({
    name: "k8s_logs",
    description: `Read a pod container's log from the watched cluster (read-only): the last lines (default ${DEFAULT_TAIL}, at most ${MAX_TAIL}), optionally the previous crashed container's, optionally only since a time.`,
    input,
    readOnly: true,
    maxResultChars: 24_000,
    headShare: 0.2,
    argAliases: { name: "pod", podName: "pod", tailLines: "tail", lines: "tail", sinceSeconds: "since", ns: "namespace", c: "container" },
    title: (a) => `k8s logs ${a.pod}${a.container ? ` -c ${a.container}` : ""}${a.previous ? " --previous" : ""}`,
    async execute(a, ctx) {
      const client = env.client();
      if (!client) return noWatch();
      const ns = a.namespace ?? env.namespace();
      const tail = Math.min(a.tail ?? DEFAULT_TAIL, MAX_TAIL);
      const since = sinceSeconds(a.since);
      let text: string;
      try {
        text = await client.logs(ns, a.pod, { ...(a.container ? { container: a.container } : {}), previous: a.previous === true, tailLines: tail, ...(since ? { sinceSeconds: since } : {}), limitBytes: MAX_LOG_BYTES });
      } catch (err) {
        return kubeErrorOutput(err, `logs of ${ns}/${a.pod}${a.previous ? " (previous)" : ""}`);
      }
      if (ctx.signal.aborted) return { text: "Canceled.", isError: true, errorCode: "Canceled" };
      // The server's bounds are a request; these are the guarantee.
      const lines = text.slice(-MAX_LOG_BYTES).replace(/\n$/, "").split("\n").slice(-tail);
      const head = `# logs of pod ${a.pod}${a.container ? ` container ${a.container}` : ""} in ${ns}${a.previous ? " (previous container)" : ""}, last ${lines.length} line(s)${since ? ` since ${since}s ago` : ""}`;
      if (!text.trim()) return { text: `${head}\n(empty log)`, details: { lines: 0 } };
      return { text: `${head}\n${lines.join("\n")}`, details: { lines: lines.length } };
    },
  });
}
