/**
 * MCP tool input schemas → a schema every provider accepts (issue 17). MCP servers send full JSON Schema (refs,
 * `$defs`, unions, tuple items, non-string enums, free-form objects); each wire accepts a different subset:
 * - all: the root must be `type: "object"` with `properties`, no top-level `anyOf`/`oneOf`/`allOf`/`enum`/`not`
 *   (OpenAI and Anthropic reject those); `$ref`s are inlined (a cycle fails that one tool); `allOf` is merged;
 *   `properties`/`required` only on objects, `required` only names declared properties, arrays always have `items`.
 * - gemini: the OpenAPI subset of the Gemini SDK's `Schema` (see GEMINI_KEYS; the same set
 *   llm/providers/gemini.ts keeps): one `type` plus `nullable`, string-only enums (others become a line of the
 *   description), `oneOf` → `anyOf`, no `additionalProperties`, string formats `enum`/`date-time` only. Gemini
 *   rejects an object without properties and a schema without a type, so a free-form value is declared as a string
 *   holding JSON: its argument path is listed in `jsonStringPaths`, and restoreJsonStringArgs() turns the model's
 *   string back into the value before the call reaches the server.
 * - ollama: `type` as one string (Ollama before 0.6 fails to decode an array there), `const` → `enum`, a union with
 *   one non-null member collapsed; other keywords are ignored by Ollama's decoder and kept.
 * - text (the tool catalog written into the prompt): the JSON Schema as is, minus noise (`additionalProperties:
 *   false`, meta keywords).
 * Pure; never throws: a schema it cannot fix is `{ ok: false, reason }` (the caller disables that tool and warns).
 */
import { inlineRefs, isObject, SCHEMA_KEYS, SchemaError, type JsonObject } from "./schema-walk.ts";

export type SchemaFamily = "openai" | "anthropic" | "gemini" | "ollama" | "text";

export type NormalizeResult =
  | {
      ok: true;
      schema: JsonObject;
      /** Argument paths (property names; `*` = every array element) the model sends as JSON text (gemini only). */
      jsonStringPaths?: string[][];
    }
  | { ok: false; reason: string };

/**
 * Which family a request's tools are written for: the provider id (llm/providers: OLLAMA, CLAUDEAI, GOOGLEAI; every
 * other one speaks the OpenAI chat wire) and whether the model uses native tool calls (otherwise the text protocol
 * puts the catalog in the prompt). A fallback chain with mixed wires should normalise for each entry's family.
 */
export function schemaFamilyFor(providerId: string, nativeTools: boolean): SchemaFamily {
  if (!nativeTools) return "text";
  switch (providerId.toUpperCase()) {
    case "OLLAMA":
      return "ollama";
    case "CLAUDEAI":
      return "anthropic";
    case "GOOGLEAI":
      return "gemini";
    default:
      return "openai";
  }
}

const META_KEYS = ["$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary", "$defs", "definitions"];
const ROOT_FORBIDDEN = ["anyOf", "oneOf", "allOf", "enum", "not", "const", "nullable"];
const GEMINI_KEYS = new Set(["type", "format", "description", "nullable", "enum", "items", "properties", "required", "minItems", "maxItems", "minimum", "maximum", "anyOf", "propertyOrdering", "title"]);
const GEMINI_FORMATS: Record<string, Set<string>> = {
  string: new Set(["enum", "date-time"]),
  integer: new Set(["int32", "int64"]),
  number: new Set(["float", "double"]),
};
const JSON_TEXT_NOTE = "(a JSON value, given as JSON text)";

interface Ctx {
  family: SchemaFamily;
  jsonStringPaths: string[][];
}

export function normalizeToolSchema(schema: unknown, family: SchemaFamily): NormalizeResult {
  if (schema === undefined || schema === null) return { ok: true, schema: { type: "object", properties: {} } };
  if (!isObject(schema)) return { ok: false, reason: "the input schema is not a JSON object" };
  try {
    const inlined = inlineRefs(schema);
    if (!isObject(inlined)) return { ok: false, reason: "the input schema is not a JSON object" };
    const ctx: Ctx = { family, jsonStringPaths: [] };
    const root = normalizeNode(flattenRootUnion(mergeAllOf(inlined)), ctx, [], { root: true, inUnion: false }) ?? {};
    const types = typeList(root.type);
    if (types.length && !types.includes("object")) return { ok: false, reason: `the input schema's root is not an object (type ${types.join("|")})` };
    for (const k of ROOT_FORBIDDEN) delete root[k];
    const out: JsonObject = { type: "object", ...root };
    out.type = "object";
    if (!isObject(out.properties)) out.properties = {};
    return { ok: true, schema: out, ...(ctx.jsonStringPaths.length ? { jsonStringPaths: ctx.jsonStringPaths } : {}) };
  } catch (err) {
    if (err instanceof SchemaError) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * The model's arguments with every `jsonStringPaths` value that came as JSON text parsed back (a value that is not
 * a string, or not valid JSON, is left as the model sent it: the server's own validation answers).
 */
export function restoreJsonStringArgs(args: unknown, paths: readonly (readonly string[])[] | undefined): unknown {
  if (!paths?.length) return args;
  let out = structuredClone(args);
  for (const p of paths) out = restoreAt(out, p, 0);
  return out;
}

function restoreAt(value: unknown, path: readonly string[], i: number): unknown {
  if (i === path.length) {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  const part = path[i]!;
  if (part === "*" && Array.isArray(value)) return value.map((v) => restoreAt(v, path, i + 1));
  if (isObject(value) && Object.hasOwn(value, part)) return { ...value, [part]: restoreAt(value[part], path, i + 1) };
  return value;
}

function normalizeNode(input: unknown, ctx: Ctx, path: string[], where: { root: boolean; inUnion: boolean }): JsonObject | undefined {
  if (input === false) return undefined;
  const n: JsonObject = isObject(input) ? mergeAllOf(input) : {};
  for (const k of META_KEYS) delete n[k];
  if (n.description !== undefined && typeof n.description !== "string") delete n.description;
  if (n.title !== undefined && typeof n.title !== "string") delete n.title;
  if (n.properties !== undefined && !isObject(n.properties)) delete n.properties;
  if (n.required !== undefined) {
    const req = Array.isArray(n.required) ? [...new Set(n.required.filter((x): x is string => typeof x === "string"))] : [];
    n.required = req;
  }
  if (n.type !== undefined && typeof n.type !== "string" && !Array.isArray(n.type)) delete n.type;
  if (Array.isArray(n.type)) n.type = [...new Set(n.type.filter((x): x is string => typeof x === "string"))];
  if (n.type === undefined && isObject(n.properties)) n.type = "object";
  if (n.type === undefined && (n.items !== undefined || n.prefixItems !== undefined)) n.type = "array";
  if (n.enum !== undefined && !Array.isArray(n.enum)) delete n.enum;

  const types = typeList(n.type);
  const isObjectType = types.includes("object");
  const isArrayType = types.includes("array");
  // Keywords of another type's vocabulary: Gemini rejects `properties` on a string, and no model needs them.
  if (types.length && !isObjectType) for (const k of ["properties", "required", "additionalProperties", "patternProperties"]) delete n[k];
  if (types.length && !isArrayType) for (const k of ["items", "prefixItems", "minItems", "maxItems"]) delete n[k];

  if (isObject(n.properties)) {
    const props: JsonObject = {};
    for (const [name, sub] of Object.entries(n.properties)) {
      const s = normalizeNode(sub, ctx, [...path, name], { root: false, inUnion: where.inUnion });
      if (s) props[name] = s;
    }
    n.properties = props;
  }
  if (Array.isArray(n.required)) {
    const declared = isObject(n.properties) ? n.properties : {};
    n.required = (n.required as string[]).filter((r) => Object.hasOwn(declared, r));
    if (!(n.required as string[]).length) delete n.required;
  }
  if (isArrayType) normalizeItems(n, ctx, path, where);
  for (const k of ["anyOf", "oneOf"]) {
    if (n[k] === undefined) continue;
    const list = Array.isArray(n[k]) ? (n[k] as unknown[]) : [];
    const variants = list.map((v) => normalizeNode(v, ctx, path, { root: false, inUnion: true })).filter((v): v is JsonObject => v !== undefined);
    if (variants.length) n[k] = variants;
    else delete n[k];
  }
  for (const k of SCHEMA_KEYS) {
    if (k === "items" || !isObject(n[k])) continue;
    n[k] = normalizeNode(n[k], ctx, [...path, "*"], { root: false, inUnion: true }) ?? {};
  }

  switch (ctx.family) {
    case "gemini":
      return toGemini(n, ctx, path, where);
    case "ollama":
      return toOllama(n);
    case "text":
      if (n.additionalProperties === false) delete n.additionalProperties;
      return n;
    case "openai":
    case "anthropic":
      return n;
  }
}

/** `items` as one schema (tuple forms folded for the strict families); an array always gets one. */
function normalizeItems(n: JsonObject, ctx: Ctx, path: string[], where: { root: boolean; inUnion: boolean }): void {
  const strict = ctx.family === "gemini" || ctx.family === "ollama";
  let items: unknown = n.items;
  if (Array.isArray(items)) items = items.length === 1 || (strict && items.length) ? items[0] : {};
  if (items === undefined && Array.isArray(n.prefixItems) && strict) items = n.prefixItems[0];
  if (strict) delete n.prefixItems;
  else if (Array.isArray(n.prefixItems)) n.prefixItems = n.prefixItems.map((p) => normalizeNode(p, ctx, [...path, "*"], { root: false, inUnion: true }) ?? {});
  n.items = normalizeNode(items ?? {}, ctx, [...path, "*"], { root: false, inUnion: where.inUnion }) ?? {};
}

function toGemini(n: JsonObject, ctx: Ctx, path: string[], where: { root: boolean; inUnion: boolean }): JsonObject | undefined {
  let types = typeList(n.type);
  // A null member of a union: kept as a marker the parent turns into `nullable`; alone it says nothing Gemini can hold.
  if (types.length === 1 && types[0] === "null") return where.inUnion ? { type: "null" } : undefined;
  if (types.includes("null")) n.nullable = true;
  types = types.filter((t) => t !== "null");
  if ("const" in n) {
    n.enum = [n.const];
    delete n.const;
  }
  const union = [...(Array.isArray(n.anyOf) ? (n.anyOf as JsonObject[]) : []), ...(Array.isArray(n.oneOf) ? (n.oneOf as JsonObject[]) : [])];
  delete n.oneOf;
  delete n.anyOf;
  const nonNull = union.filter((v) => !(typeList(v.type).length === 1 && v.type === "null"));
  if (nonNull.length < union.length) n.nullable = true;
  if (nonNull.length === 1) {
    const { description: _d, ...variant } = nonNull[0]!;
    Object.assign(n, { ...variant, ...pick(n, ["description", "title", "nullable"]) });
    types = typeList(n.type);
  } else if (nonNull.length > 1) {
    n.anyOf = nonNull;
  }
  if (types.length > 1 && !n.anyOf) {
    n.anyOf = types.map((t) => ({ type: t }));
    types = [];
  }
  n.type = types[0];
  if (n.type === undefined) delete n.type;

  if (Array.isArray(n.enum)) {
    const values = n.enum.filter((v) => v !== null);
    if (values.length < n.enum.length) n.nullable = true;
    if (values.length && values.every((v) => typeof v === "string")) {
      n.enum = [...new Set(values)];
      n.type = "string";
    } else {
      delete n.enum;
      if (values.length) n.description = joinText(n.description, `Allowed values: ${values.map((v) => JSON.stringify(v)).join(", ")}.`);
    }
  }
  const allowedFormats = GEMINI_FORMATS[String(n.type)];
  if (n.format !== undefined && !(allowedFormats?.has(String(n.format)) ?? false)) delete n.format;
  for (const k of Object.keys(n)) if (!GEMINI_KEYS.has(k)) delete n[k];
  if (n.nullable !== true) delete n.nullable;

  // Gemini has no "any" and no property-less object: a free-form value travels as JSON text.
  const freeForm = !where.root && ((n.type === undefined && !n.anyOf) || (n.type === "object" && !Object.keys(isObject(n.properties) ? n.properties : {}).length));
  if (!freeForm) return n;
  if (where.inUnion) return undefined;
  ctx.jsonStringPaths.push(path);
  const out: JsonObject = { type: "string", ...pick(n, ["title"]), description: joinText(typeof n.description === "string" ? n.description : undefined, JSON_TEXT_NOTE) };
  if (n.nullable) out.nullable = true;
  return out;
}

function toOllama(n: JsonObject): JsonObject {
  const types = typeList(n.type).filter((t) => t !== "null");
  if (Array.isArray(n.type)) {
    if (types.length) n.type = types[0];
    else delete n.type;
  }
  if ("const" in n) {
    n.enum = [n.const];
    delete n.const;
  }
  for (const k of ["anyOf", "oneOf"]) {
    const list = n[k];
    if (!Array.isArray(list)) continue;
    const nonNull = (list as JsonObject[]).filter((v) => v.type !== "null");
    if (nonNull.length !== 1) continue;
    delete n[k];
    const { description: _d, ...variant } = nonNull[0]!;
    Object.assign(n, { ...variant, ...pick(n, ["description", "title"]) });
  }
  return n;
}

/** `allOf` members folded into the schema: properties and required united, other keywords first-wins. */
function mergeAllOf(node: JsonObject): JsonObject {
  if (!Array.isArray(node.allOf)) return { ...node };
  const { allOf, ...base } = node;
  const out: JsonObject = { ...base };
  for (const part of allOf as unknown[]) {
    if (!isObject(part)) continue;
    const p = mergeAllOf(part);
    for (const [k, v] of Object.entries(p)) {
      if (k === "properties" && isObject(v)) out.properties = { ...v, ...(isObject(out.properties) ? out.properties : {}) };
      else if (k === "required" && Array.isArray(v)) out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...v])];
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

/**
 * A root `anyOf`/`oneOf` of object shapes (a tool with alternative argument sets) becomes one object: every
 * variant's properties, required only where every variant requires it. The server still validates the call.
 */
function flattenRootUnion(root: JsonObject): JsonObject {
  const variants = [...(Array.isArray(root.anyOf) ? root.anyOf : []), ...(Array.isArray(root.oneOf) ? root.oneOf : [])].filter(isObject).map(mergeAllOf);
  if (!variants.length) return root;
  const { anyOf: _a, oneOf: _o, ...rest } = root;
  const properties: JsonObject = { ...(isObject(rest.properties) ? rest.properties : {}) };
  for (const v of variants) if (isObject(v.properties)) for (const [k, s] of Object.entries(v.properties)) if (!(k in properties)) properties[k] = s;
  const reqOf = (v: JsonObject) => (Array.isArray(v.required) ? v.required.filter((x): x is string => typeof x === "string") : []);
  const common = reqOf(variants[0]!).filter((r) => variants.every((v) => reqOf(v).includes(r)));
  const required = [...new Set([...reqOf(rest), ...common])];
  return { ...rest, type: "object", properties, ...(required.length ? { required } : {}) };
}

function typeList(t: unknown): string[] {
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

function pick(n: JsonObject, keys: string[]): JsonObject {
  return Object.fromEntries(keys.filter((k) => n[k] !== undefined).map((k) => [k, n[k]]));
}

function joinText(a: unknown, b: string): string {
  if (typeof a !== "string" || !a.trim()) return b;
  const head = a.trim();
  return /[.!?:)]$/.test(head) ? `${head} ${b}` : `${head}. ${b}`;
}
