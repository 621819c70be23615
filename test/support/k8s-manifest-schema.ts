/**
 * Structural validation of Kubernetes manifests against the API's own models, offline: `@kubernetes/client-node`
 * (already a dependency) ships the OpenAPI-generated model of every kind (spec release 1.36) with each field's name
 * and type (`attributeTypeMap`), and its `.d.ts` marks the required fields (no `?`). This checks every field of an
 * object is known to its kind's model (a typo such as `readOnlyRootFileSystem` is an error, as `kubectl apply
 * --validate=strict` would say), has the right JSON type, and that required fields are present. It does not check
 * value formats (quantities, label syntax) or cross-object references — the deploy tests check those that matter.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

interface Attribute {
  name: string;
  baseName: string;
  type: string;
}
type ModelClass = { getAttributeTypeMap(): Attribute[] };

/** apiVersion/kind → the model's class name. Only the kinds the deploy manifests use. */
const KINDS: Record<string, string> = {
  "apps/v1/Deployment": "V1Deployment",
  "v1/Service": "V1Service",
  "v1/PersistentVolumeClaim": "V1PersistentVolumeClaim",
  "v1/Secret": "V1Secret",
  "v1/ConfigMap": "V1ConfigMap",
  "v1/ServiceAccount": "V1ServiceAccount",
  "networking.k8s.io/v1/NetworkPolicy": "V1NetworkPolicy",
  "networking.k8s.io/v1/Ingress": "V1Ingress",
  "rbac.authorization.k8s.io/v1/ClusterRole": "V1ClusterRole",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "V1ClusterRoleBinding",
  "rbac.authorization.k8s.io/v1/Role": "V1Role",
  "rbac.authorization.k8s.io/v1/RoleBinding": "V1RoleBinding",
};

export interface SchemaValidator {
  /** Problems of one object (empty when valid), each `path: what`. */
  validate(obj: unknown): string[];
}

export async function k8sSchemaValidator(): Promise<SchemaValidator> {
  const models = (await import("@kubernetes/client-node")) as unknown as Record<string, ModelClass | undefined>;
  const modelsDir = join(dirname(createRequire(import.meta.url).resolve("@kubernetes/client-node")), "gen", "models");
  const required = new Map<string, Set<string>>();
  const requiredOf = (model: string): Set<string> => {
    let r = required.get(model);
    if (!r) {
      const dts = readFileSync(join(modelsDir, `${model}.d.ts`), "utf8");
      r = new Set([...dts.matchAll(/^\s+'([^']+)': /gm)].map((m) => m[1]!));
      required.set(model, r);
    }
    return r;
  };

  const checkType = (type: string, v: unknown, path: string, out: string[]): void => {
    if (v === null || v === undefined) return;
    if (type === "any") return;
    if (type === "string" || type === "Date") {
      if (typeof v !== "string") out.push(`${path}: expected a string, got ${JSON.stringify(v)}`);
      return;
    }
    if (type === "number" || type === "boolean") {
      if (typeof v !== type) out.push(`${path}: expected a ${type}, got ${JSON.stringify(v)}`);
      return;
    }
    if (type === "IntOrString") {
      if (typeof v !== "string" && !(typeof v === "number" && Number.isInteger(v))) out.push(`${path}: expected an int or a string`);
      return;
    }
    const arr = /^Array<(.+)>$/.exec(type);
    if (arr) {
      if (!Array.isArray(v)) {
        out.push(`${path}: expected a list`);
        return;
      }
      v.forEach((x, i) => checkType(arr[1]!, x, `${path}[${i}]`, out));
      return;
    }
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map) {
      if (typeof v !== "object" || Array.isArray(v)) {
        out.push(`${path}: expected a map`);
        return;
      }
      for (const [k, x] of Object.entries(v)) checkType(map[1]!, x, `${path}.${k}`, out);
      return;
    }
    checkModel(type, v, path, out);
  };

  const checkModel = (model: string, v: unknown, path: string, out: string[]): void => {
    const cls = models[model];
    if (!cls || typeof cls.getAttributeTypeMap !== "function") {
      out.push(`${path}: no model ${model}`);
      return;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      out.push(`${path}: expected an object (${model})`);
      return;
    }
    const attrs = new Map(cls.getAttributeTypeMap().map((a) => [a.baseName, a]));
    for (const [k, x] of Object.entries(v)) {
      const a = attrs.get(k);
      if (!a) out.push(`${path}.${k}: unknown field of ${model}`);
      else checkType(a.type, x, `${path}.${k}`, out);
    }
    for (const name of requiredOf(model)) {
      const a = cls.getAttributeTypeMap().find((x) => x.name === name);
      if (a && (v as Record<string, unknown>)[a.baseName] === undefined) out.push(`${path}.${a.baseName}: required by ${model}`);
    }
  };

  return {
    validate(obj) {
      const o = obj as { apiVersion?: unknown; kind?: unknown };
      const model = KINDS[`${String(o?.apiVersion)}/${String(o?.kind)}`];
      if (!model) return [`unknown apiVersion/kind ${String(o?.apiVersion)}/${String(o?.kind)}`];
      const out: string[] = [];
      checkModel(model, obj, String(o.kind), out);
      return out;
    },
  };
}
