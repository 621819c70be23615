/**
 * Schema-aware traversal helpers for JSON Schema (draft-07 … 2020-12) as MCP servers send it, and `$ref` inlining.
 * Only keys that hold schemas are walked: a property named `$ref` or `definitions` inside `properties`, or a value
 * inside `enum`/`default`/`examples`, is data and is never touched.
 */

export type JsonObject = Record<string, unknown>;

/** Keys whose value is a map of name → schema. */
export const SCHEMA_MAP_KEYS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keys whose value is one schema. */
export const SCHEMA_KEYS = new Set([
  "items",
  "additionalProperties",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
/** Keys whose value is a list of schemas. */
export const SCHEMA_LIST_KEYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaError";
  }
}

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Above this many schema nodes after inlining, the tool is refused (a diamond of refs can grow exponentially). */
const MAX_NODES = 20_000;

/**
 * Replaces every local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer into the document) by a copy of
 * its target; keywords beside a `$ref` win over the target's. Throws SchemaError on a cycle (a ref reached again
 * while expanding itself: recursive types cannot be inlined), an unresolvable or remote ref, or an oversized result.
 * `$defs`/`definitions` are left in place; the caller drops them.
 */
export function inlineRefs(root: unknown): unknown {
  const budget = { nodes: 0 };
  return inlineNode(root, root, ["#"], budget);
}

function inlineNode(node: unknown, root: unknown, stack: string[], budget: { nodes: number }): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineNode(n, root, stack, budget));
  if (!isObject(node)) return node;
  if (++budget.nodes > MAX_NODES) throw new SchemaError(`schema too large after inlining $ref (over ${MAX_NODES} nodes)`);
  const ref = node.$ref;
  if (ref !== undefined) {
    if (typeof ref !== "string") throw new SchemaError("$ref is not a string");
    if (stack.includes(ref)) throw new SchemaError(`cyclic $ref ${ref} (a recursive type cannot be inlined)`);
    const target = resolvePointer(root, ref);
    const expanded = inlineNode(target, root, [...stack, ref], budget);
    const { $ref: _drop, ...siblings } = node;
    const rest = inlineChildren(siblings, root, stack, budget);
    return isObject(expanded) ? { ...expanded, ...rest } : Object.keys(rest).length ? rest : expanded;
  }
  return inlineChildren(node, root, stack, budget);
}

function inlineChildren(node: JsonObject, root: unknown, stack: string[], budget: { nodes: number }): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    // Definitions are only read through refs; expanding them too would report cycles nobody uses.
    if (k === "$defs" || k === "definitions") continue;
    if (SCHEMA_MAP_KEYS.has(k) && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, inlineNode(s, root, stack, budget)]));
    } else if (SCHEMA_KEYS.has(k) || SCHEMA_LIST_KEYS.has(k)) {
      out[k] = inlineNode(v, root, stack, budget);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** A local JSON pointer (`#/a/b~1c`), percent-decoded. Remote and anchor refs are not supported. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) throw new SchemaError(`unsupported $ref ${ref} (only refs inside the schema are inlined)`);
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) throw new SchemaError(`unsupported $ref ${ref} (anchors are not supported)`);
  let cur: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      throw new SchemaError(`malformed $ref ${ref}`);
    }
    if (Array.isArray(cur) && /^\d+$/.test(part)) cur = cur[Number(part)];
    else if (isObject(cur) && Object.hasOwn(cur, part)) cur = cur[part];
    else throw new SchemaError(`unresolvable $ref ${ref}`);
  }
  if (cur === undefined) throw new SchemaError(`unresolvable $ref ${ref}`);
  return cur;
}
