/**
 * k8s_describe: an object as compact YAML, then its events (newest first), and for a pod each container's state,
 * last state, readiness and restarts — what `kubectl describe` shows first, read-only.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import { Pod, type Pod as PodT } from "../kube-schemas.ts";
import { compactObject, toYaml } from "./compact-yaml.ts";
import { eventLine, eventsFor } from "./k8s-events.ts";
import { KNOWN_KINDS, resourcePath } from "./kinds.ts";
import { kubeErrorOutput, targetOf, type K8sToolEnv, K8S_NAME } from "./tool-env.ts";

export const DESCRIBE_EVENTS = 20;

const input = z.object({
  kind: z.string().min(1).describe(`Resource kind: ${KNOWN_KINDS.join(", ")}.`),
  name: z.string().regex(K8S_NAME, "not a Kubernetes name").describe("Object name."),
  namespace: z.string().regex(K8S_NAME, "not a Kubernetes namespace").optional().describe("Namespace (default: the watched one)."),
});

type State = NonNullable<NonNullable<NonNullable<PodT["status"]>["containerStatuses"]>[number]["state"]>;

function stateText(s: State | undefined): string {
  if (!s) return "unknown";
  if (s.running) return `Running since ${s.running.startedAt ?? "?"}`;
  if (s.waiting) return `Waiting (${s.waiting.reason ?? "?"})${s.waiting.message ? `: ${s.waiting.message}` : ""}`;
  if (s.terminated) return `Terminated (${s.terminated.reason ?? "?"}, exit code ${s.terminated.exitCode ?? "?"})${s.terminated.finishedAt ? ` at ${s.terminated.finishedAt}` : ""}${s.terminated.message ? `: ${s.terminated.message}` : ""}`;
  return "unknown";
}

export function containerStates(pod: PodT): string[] {
  const all = [...(pod.status?.initContainerStatuses ?? []).map((c) => ({ c, init: true })), ...(pod.status?.containerStatuses ?? []).map((c) => ({ c, init: false }))];
  return all.map(({ c, init }) =>
    [`${init ? "init " : ""}container ${c.name}: ${stateText(c.state)}`, `  ready: ${c.ready ?? "?"}, restarts: ${c.restartCount ?? 0}${c.image ? `, image: ${c.image}` : ""}`, ...(c.lastState && Object.keys(c.lastState).length ? [`  last state: ${stateText(c.lastState)}`] : [])].join("\n"),
  );
}

export function createK8sDescribeTool(env: K8sToolEnv): ToolDefinition {
  return defineTool({
    name: "k8s_describe",
    description: "Describe one Kubernetes object of the watched cluster (read-only): its compact YAML, its recent events and, for a pod, each container's state, last state and restarts.",
    input,
    readOnly: true,
    maxResultChars: 24_000,
    argAliases: { resource: "kind", type: "kind", ns: "namespace" },
    title: (a) => `k8s describe ${a.kind.toLowerCase()}/${a.name}`,
    async execute(a, ctx) {
      const target = targetOf(env, a.kind, a.namespace);
      if (!("info" in target)) return target;
      const { info, client, ns } = target;
      let body: unknown;
      try {
        body = await client.getJson(resourcePath(info, ns, a.name), {}, { metadataOnly: info.metadataOnly === true, signal: ctx.signal });
      } catch (err) {
        return kubeErrorOutput(err, `describe ${info.resource}/${a.name}`);
      }
      const parts = [`# ${info.kind} ${a.name}${info.namespaced ? ` in namespace ${ns}` : ""}`, await toYaml(compactObject(body, info.metadataOnly))];
      if (info.kind === "Pod") {
        const pod = Pod.safeParse(body);
        if (pod.success) parts.push("# Containers", ...containerStates(pod.data));
      }
      try {
        const events = await eventsFor(client, info.namespaced ? ns : "default", { kind: info.kind, name: a.name, signal: ctx.signal });
        parts.push(`# Events (newest first)`, events.length ? events.slice(0, DESCRIBE_EVENTS).map(eventLine).join("\n") : "(none)");
      } catch (err) {
        parts.push(`# Events: could not be read (${(err as Error).message})`);
      }
      return { text: parts.join("\n"), details: { kind: info.kind, name: a.name } };
    },
  });
}
