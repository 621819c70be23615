/**
 * STAND-IN for src/mcp/schema-normalize.ts (written on the other MCP branch): the one place MCP tool schemas are
 * made acceptable to a provider. Same signatures as that module (`normalizeToolSchema(schema, family)`,
 * `schemaFamilyFor`, `restoreJsonStringArgs`); when it lands, these three bodies become re-exports of it.
 *
 * What this stand-in does: the root must be a JSON object (`type` "object" is added when missing; `properties`
 * when absent); local `$ref`s (`#`, `#/$defs/X`, `#/definitions/X`) are inlined and a cycle fails that one tool;
 * `$schema` and `$defs` are dropped. Never throws.
 */
export type SchemaFamily = "openai" | "anthropic" | "gemini" | "ollama" | "text";
type JsonObject = Record<string, unknown>;
export type NormalizeResult = { ok: true; schema: JsonObject; jsonStringPaths?: string[][] } | { ok: false; reason: string };

export function schemaFamilyFor(providerId: string, nativeTools: boolean): SchemaFamily {
  if (!nativeTools) return "text";
  const id = providerId.toUpperCase();
  return id === "OLLAMA" ? "ollama" : id === "CLAUDEAI" ? "anthropic" : id === "GOOGLEAI" ? "gemini" : "openai";
}

export function normalizeToolSchema(schema: unknown, _family: SchemaFamily): NormalizeResult {
  if (schema === undefined) return { ok: true, schema: { type: "object", properties: {} } };
  if (!isObject(schema)) return { ok: false, reason: "the input schema is not a JSON object" };
  if (schema.type !== undefined && schema.type !== "object") return { ok: false, reason: `the input schema's type is ${JSON.stringify(schema.type)}, not "object"` };
  try {
    const inlined = inline(schema, schema, []) as JsonObject;
    const { $schema: _s, $defs: _d, definitions: _e, ...rest } = inlined;
    return { ok: true, schema: { ...rest, type: "object", properties: isObject(rest.properties) ? rest.properties : {} } };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

export function restoreJsonStringArgs(args: unknown, _paths: readonly (readonly string[])[] | undefined): unknown {
  return args;
}

function inline(node: unknown, root: JsonObject, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, root, stack));
  if (!isObject(node)) return node;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    if (stack.includes(ref)) throw new Error(`the input schema is recursive ($ref ${ref})`);
    if (stack.length > 32) throw new Error("the input schema nests $refs too deeply");
    const target = resolveRef(ref, root);
    if (target === undefined) throw new Error(`the input schema's $ref ${ref} cannot be resolved`);
    const { $ref: _r, ...siblings } = node;
    return { ...(inline(target, root, [...stack, ref]) as JsonObject), ...(inline(siblings, root, stack) as JsonObject) };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) if (k !== "$defs" && k !== "definitions") out[k] = inline(v, root, stack);
  return out;
}

function resolveRef(ref: string, root: JsonObject): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    if (!isObject(cur)) return undefined;
    cur = cur[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return cur;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
