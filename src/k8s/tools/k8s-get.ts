/**
 * k8s_get: one object by name, or the objects matching a label selector, as compact YAML (no managedFields, no
 * last-applied annotation). ConfigMaps: names and labels only (metadata-only request). Secrets: refused.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tool/tool.ts";
import { compactObject, toYaml } from "./compact-yaml.ts";
import { KNOWN_KINDS, resourcePath } from "./kinds.ts";
import { kubeErrorOutput, targetOf, type K8sToolEnv, K8S_NAME } from "./tool-env.ts";

/** Items shown of a list; the rest are named only. */
export const LIST_LIMIT = 30;

const input = z.object({
  kind: z.string().min(1).describe(`Resource kind: ${KNOWN_KINDS.join(", ")} (plural and short names work too).`),
  name: z.string().regex(K8S_NAME, "not a Kubernetes name").optional().describe("Object name; omit to list."),
  selector: z.string().optional().describe("Label selector when listing, e.g. app=api."),
  namespace: z.string().regex(K8S_NAME, "not a Kubernetes namespace").optional().describe("Namespace (default: the watched one)."),
});

export function createK8sGetTool(env: K8sToolEnv): ToolDefinition {
  return defineTool({
    name: "k8s_get",
    description:
      "Read Kubernetes objects (read-only) from the watched cluster as compact YAML: one by name, or a list filtered by a label selector. " +
      "Secrets are never read; ConfigMaps show names and labels only.",
    input,
    readOnly: true,
    maxResultChars: 24_000,
    argAliases: { resource: "kind", type: "kind", labelSelector: "selector", ns: "namespace" },
    title: (a) => `k8s get ${a.kind}${a.name ? `/${a.name}` : a.selector ? ` -l ${a.selector}` : ""}${a.namespace ? ` -n ${a.namespace}` : ""}`,
    async execute(a, ctx) {
      const target = targetOf(env, a.kind, a.namespace);
      if (!("info" in target)) return target;
      const { info, client, ns } = target;
      const path = resourcePath(info, ns, a.name);
      let body: unknown;
      try {
        body = await client.getJson(path, a.name || !a.selector ? {} : { labelSelector: a.selector }, { metadataOnly: info.metadataOnly === true, signal: ctx.signal });
      } catch (err) {
        return kubeErrorOutput(err, `get ${info.resource}${a.name ? `/${a.name}` : ""}`);
      }
      const where = info.namespaced ? ` in namespace ${ns}` : "";
      if (a.name) return { text: `# ${info.kind} ${a.name}${where}\n${await toYaml(compactObject(body, info.metadataOnly))}`, details: { kind: info.kind, name: a.name } };
      const items = listItems(body);
      if (!items.length) return { text: `No ${info.resource}${where}${a.selector ? ` match ${a.selector}` : ""}.`, details: { kind: info.kind, count: 0 } };
      const shown = items.slice(0, LIST_LIMIT).map((i) => compactObject(i, info.metadataOnly));
      const rest = items.slice(LIST_LIMIT).map(nameOf);
      const more = rest.length ? `\n# ${rest.length} more not shown: ${rest.join(", ")}` : "";
      return { text: `# ${items.length} ${info.resource}${where}${a.selector ? ` (selector ${a.selector})` : ""}\n${await toYaml(shown)}${more}`, details: { kind: info.kind, count: items.length } };
    },
  });
}

export function listItems(body: unknown): unknown[] {
  const items = (body as { items?: unknown })?.items;
  return Array.isArray(items) ? items : [];
}

export function nameOf(obj: unknown): string {
  const name = (obj as { metadata?: { name?: unknown } })?.metadata?.name;
  return typeof name === "string" ? name : "?";
}
