/** k8s_events: the namespace's events (or one object's), newest first, at most EVENTS_LIMIT_MAX lines. */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import type { KubeClient } from "../kube-client.ts";
import { KubeEvent, listOf } from "../kube-schemas.ts";
import { kubeErrorOutput, noWatch, type K8sToolEnv, K8S_NAME } from "./tool-env.ts";

export const EVENTS_LIMIT_DEFAULT = 50;
export const EVENTS_LIMIT_MAX = 200;

const input = z.object({
  namespace: z.string().regex(K8S_NAME, "not a Kubernetes namespace").optional().describe("Namespace (default: the watched one)."),
  kind: z.string().optional().describe("Only events of objects of this kind (Pod, Deployment, …)."),
  name: z.string().regex(K8S_NAME, "not a Kubernetes name").optional().describe("Only events of the object with this name."),
  type: z.enum(["Normal", "Warning"]).optional().describe("Only this event type."),
  limit: z.number().int().positive().optional().describe(`At most this many, newest first (default ${EVENTS_LIMIT_DEFAULT}, max ${EVENTS_LIMIT_MAX}).`),
});

const when = (e: KubeEvent): string => e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? "";

/** The events of a namespace, optionally one object's, newest first. */
export async function eventsFor(client: KubeClient, ns: string, o: { kind?: string; name?: string; type?: string; signal?: AbortSignal } = {}): Promise<KubeEvent[]> {
  const field = [o.name ? `involvedObject.name=${o.name}` : "", o.kind ? `involvedObject.kind=${o.kind}` : ""].filter(Boolean).join(",");
  const body = await client.getJson(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`, field ? { fieldSelector: field } : {}, o.signal ? { signal: o.signal } : {});
  const parsed = listOf(KubeEvent).safeParse(body);
  const items = parsed.success ? parsed.data.items : [];
  const kind = o.kind?.toLowerCase();
  return items
    .filter((e) => (!o.name || e.involvedObject?.name === o.name) && (!kind || e.involvedObject?.kind?.toLowerCase() === kind) && (!o.type || e.type === o.type))
    .sort((a, b) => when(b).localeCompare(when(a)));
}

export function eventLine(e: KubeEvent): string {
  const obj = e.involvedObject ? `${(e.involvedObject.kind ?? "").toLowerCase()}/${e.involvedObject.name ?? "?"}` : "?";
  return `${when(e) || "-"} ${e.type ?? "-"} ${e.reason ?? "-"} ${obj}: ${(e.message ?? "").trim()}${e.count && e.count > 1 ? ` (x${e.count})` : ""}`;
}

export function createK8sEventsTool(env: K8sToolEnv): ToolDefinition {
  return defineTool({
    name: "k8s_events",
    description: "List Kubernetes events of the watched namespace (read-only), newest first; optionally only one object's (kind/name) or only warnings.",
    input,
    readOnly: true,
    maxResultChars: 20_000,
    argAliases: { ns: "namespace", object: "name", involvedObject: "name" },
    title: (a) => `k8s events${a.name ? ` ${a.kind ? `${a.kind.toLowerCase()}/` : ""}${a.name}` : ""}${a.namespace ? ` -n ${a.namespace}` : ""}`,
    async execute(a, ctx) {
      const client = env.client();
      if (!client) return noWatch();
      const ns = a.namespace ?? env.namespace();
      let events: KubeEvent[];
      try {
        events = await eventsFor(client, ns, { ...(a.kind ? { kind: a.kind } : {}), ...(a.name ? { name: a.name } : {}), ...(a.type ? { type: a.type } : {}), signal: ctx.signal });
      } catch (err) {
        return kubeErrorOutput(err, `events in ${ns}`);
      }
      const limit = Math.min(a.limit ?? EVENTS_LIMIT_DEFAULT, EVENTS_LIMIT_MAX);
      const shown = events.slice(0, limit);
      const of = a.name ? ` of ${a.kind ? `${a.kind.toLowerCase()}/` : ""}${a.name}` : "";
      if (!shown.length) return { text: `No events${of} in ${ns}.`, details: { count: 0 } };
      const more = events.length > limit ? `\n(${events.length - limit} older events not shown)` : "";
      return { text: `# ${shown.length} event(s)${of} in ${ns}, newest first\n${shown.map(eventLine).join("\n")}${more}`, details: { count: shown.length } };
    },
  });
}
