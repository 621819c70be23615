/**
 * An API object as a compact YAML for the model: `managedFields`, the last-applied-configuration annotation and
 * other bookkeeping (uid, selfLink, generation, resourceVersion) dropped; a metadata-only kind keeps metadata alone.
 * The `yaml` package is loaded on first use (a session without a watch never loads it).
 */
const DROP_META = new Set(["managedFields", "uid", "selfLink", "resourceVersion", "generation"]);
const DROP_ANNOTATIONS = new Set(["kubectl.kubernetes.io/last-applied-configuration", "deployment.kubernetes.io/revision"]);

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function compactObject(obj: unknown, metadataOnly = false): Obj {
  if (!isObj(obj)) return {};
  const out: Obj = metadataOnly ? { ...(obj.kind ? { kind: obj.kind } : {}) } : { ...obj };
  delete out.apiVersion;
  if (isObj(obj.metadata)) {
    const meta: Obj = {};
    for (const [k, v] of Object.entries(obj.metadata)) if (!DROP_META.has(k)) meta[k] = v;
    if (isObj(meta.annotations)) {
      const ann = Object.fromEntries(Object.entries(meta.annotations).filter(([k]) => !DROP_ANNOTATIONS.has(k)));
      if (Object.keys(ann).length) meta.annotations = ann;
      else delete meta.annotations;
    }
    out.metadata = meta;
  }
  return out;
}

export async function toYaml(value: unknown): Promise<string> {
  const { stringify } = await import("yaml");
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
