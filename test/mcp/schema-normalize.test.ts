/**
 * Golden tests: real-world MCP tool schemas (test/mcp/fixtures/schemas/) normalised per provider family, compared
 * with test/mcp/golden/<fixture>.<family>.json (UPDATE_GOLDEN=1 rewrites them; review the diff). Beside the goldens,
 * each family's output is checked against the rules of its wire, so a golden written wrong still fails.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeToolSchema, restoreJsonStringArgs, schemaFamilyFor, type SchemaFamily } from "../../src/mcp/schema-normalize.ts";
import { cleanSchemaForGemini } from "../../src/llm/providers/gemini.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "schemas");
const GOLDEN = join(import.meta.dir, "golden");
const FAMILIES: SchemaFamily[] = ["openai", "anthropic", "gemini", "ollama", "text"];
const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith(".json")).sort();
const load = (f: string): unknown => JSON.parse(readFileSync(join(FIXTURES, f), "utf8"));

type Node = Record<string, unknown>;
const isObj = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every schema node (walking the schema keywords only). */
function nodes(s: Node, out: Node[] = []): Node[] {
  out.push(s);
  if (isObj(s.properties)) for (const v of Object.values(s.properties)) if (isObj(v)) nodes(v, out);
  if (isObj(s.items)) nodes(s.items, out);
  if (isObj(s.additionalProperties)) nodes(s.additionalProperties, out);
  for (const k of ["anyOf", "oneOf", "prefixItems"]) if (Array.isArray(s[k])) for (const v of s[k] as unknown[]) if (isObj(v)) nodes(v, out);
  return out;
}

const GEMINI_KEYS = new Set(["type", "format", "description", "nullable", "enum", "items", "properties", "required", "minItems", "maxItems", "minimum", "maximum", "anyOf", "propertyOrdering", "title"]);

function checkWireRules(schema: Node, family: SchemaFamily): void {
  expect(schema.type).toBe("object");
  expect(isObj(schema.properties)).toBe(true);
  for (const k of ["anyOf", "oneOf", "allOf", "enum", "not"]) expect(schema[k]).toBeUndefined();
  const text = JSON.stringify(schema);
  for (const k of ["$ref", "$defs", "\"definitions\"", "$schema", "allOf"]) expect(text).not.toContain(k);
  for (const n of nodes(schema)) {
    const types = Array.isArray(n.type) ? n.type : n.type === undefined ? [] : [n.type];
    if (types.includes("array")) expect(isObj(n.items)).toBe(true);
    if (types.length && !types.includes("object")) expect(n.properties).toBeUndefined();
    if (Array.isArray(n.required)) for (const r of n.required) expect(Object.keys(isObj(n.properties) ? n.properties : {})).toContain(r as string);
    if (family === "gemini") {
      for (const k of Object.keys(n)) expect(GEMINI_KEYS.has(k)).toBe(true);
      expect(typeof n.type === "string" || Array.isArray(n.anyOf)).toBe(true);
      if (n !== schema && n.type === "object") expect(Object.keys(n.properties as Node).length).toBeGreaterThan(0);
      if (Array.isArray(n.enum)) for (const e of n.enum) expect(typeof e).toBe("string");
    }
    if (family === "ollama") expect(Array.isArray(n.type)).toBe(false);
  }
  // What the Gemini wire's own cleaner would still remove: nothing.
  if (family === "gemini") expect(cleanSchemaForGemini(schema)).toEqual(schema);
}

describe("normalizeToolSchema goldens", () => {
  for (const file of fixtures) {
    for (const family of FAMILIES) {
      test(`${file} → ${family}`, () => {
        const input = load(file);
        const before = JSON.stringify(input);
        const result = normalizeToolSchema(input, family);
        expect(JSON.stringify(input)).toBe(before); // the input is never changed
        const goldenFile = join(GOLDEN, `${file.replace(/\.json$/, "")}.${family}.json`);
        const actual = `${JSON.stringify(result, null, 2)}\n`;
        if (process.env.UPDATE_GOLDEN === "1" || !existsSync(goldenFile)) writeFileSync(goldenFile, actual);
        expect(actual).toBe(readFileSync(goldenFile, "utf8"));
        if (file.startsWith("cyclic")) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.reason).toContain("cyclic $ref");
          return;
        }
        expect(result.ok).toBe(true);
        if (result.ok) checkWireRules(result.schema, family);
      });
    }
  }
});

describe("normalizeToolSchema", () => {
  test("a free-form value becomes JSON text for gemini, and the call's arguments are restored", () => {
    const r = normalizeToolSchema(load("fastmcp-defs.json"), "gemini");
    if (!r.ok) throw new Error(r.reason);
    expect(r.jsonStringPaths).toEqual([["metadata"]]);
    expect((r.schema.properties as Node).metadata).toEqual({ type: "string", title: "Metadata", description: "(a JSON value, given as JSON text)" });
    const args = { title: "t", metadata: '{"a":[1,2]}', tags: ["x"] };
    expect(restoreJsonStringArgs(args, r.jsonStringPaths)).toEqual({ title: "t", metadata: { a: [1, 2] }, tags: ["x"] });
    expect(args.metadata).toBe('{"a":[1,2]}');
    // Not JSON, or already a value: left for the server to judge.
    expect(restoreJsonStringArgs({ metadata: "not json" }, r.jsonStringPaths)).toEqual({ metadata: "not json" });
    expect(restoreJsonStringArgs({ list: ['{"k":1}', 2] }, [["list", "*"]])).toEqual({ list: [{ k: 1 }, 2] });
  });

  test("other families keep a free-form object as an object and list no paths", () => {
    for (const family of ["openai", "anthropic", "ollama", "text"] as const) {
      const r = normalizeToolSchema(load("fastmcp-defs.json"), family);
      if (!r.ok) throw new Error(r.reason);
      expect(r.jsonStringPaths).toBeUndefined();
      expect(((r.schema.properties as Node).metadata as Node).type).toBe("object");
    }
  });

  test("non-string enums: gemini moves them into the description, the others keep them", () => {
    const gem = normalizeToolSchema(load("fastmcp-defs.json"), "gemini");
    const oai = normalizeToolSchema(load("fastmcp-defs.json"), "openai");
    if (!gem.ok || !oai.ok) throw new Error("failed");
    expect((gem.schema.properties as Node).priority).toEqual({ type: "integer", title: "Priority", description: "1 = low, 3 = urgent. Allowed values: 1, 2, 3." });
    expect(((oai.schema.properties as Node).priority as Node).enum).toEqual([1, 2, 3]);
  });

  test("missing, empty and non-object schemas", () => {
    expect(normalizeToolSchema(undefined, "openai")).toEqual({ ok: true, schema: { type: "object", properties: {} } });
    expect(normalizeToolSchema({}, "gemini")).toEqual({ ok: true, schema: { type: "object", properties: {} } });
    expect(normalizeToolSchema("string", "openai").ok).toBe(false);
    expect(normalizeToolSchema([], "openai").ok).toBe(false);
    const r = normalizeToolSchema({ type: "string" }, "anthropic");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain("root is not an object");
  });

  test("refs that cannot be inlined fail that tool with a reason", () => {
    const remote = normalizeToolSchema({ type: "object", properties: { a: { $ref: "https://example.com/s.json" } } }, "openai");
    expect(remote).toEqual({ ok: false, reason: "unsupported $ref https://example.com/s.json (only refs inside the schema are inlined)" });
    const missing = normalizeToolSchema({ type: "object", properties: { a: { $ref: "#/$defs/Nope" } } }, "openai");
    expect(missing).toEqual({ ok: false, reason: "unresolvable $ref #/$defs/Nope" });
    // A diamond of refs doubling at every level: refused instead of growing to millions of nodes.
    const defs: Record<string, unknown> = { L0: { type: "string" } };
    for (let i = 1; i <= 20; i++) defs[`L${i}`] = { type: "object", properties: { a: { $ref: `#/$defs/L${i - 1}` }, b: { $ref: `#/$defs/L${i - 1}` } } };
    const big = normalizeToolSchema({ type: "object", $defs: defs, properties: { x: { $ref: "#/$defs/L20" } } }, "openai");
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.reason).toContain("too large");
  });

  test("a property named like a keyword is data, not a keyword", () => {
    const r = normalizeToolSchema({ type: "object", properties: { $ref: { type: "string" }, definitions: { type: "string" } }, required: ["$ref"] }, "gemini");
    expect(r).toEqual({ ok: true, schema: { type: "object", properties: { $ref: { type: "string" }, definitions: { type: "string" } }, required: ["$ref"] } });
  });

  test("the family follows the provider's wire and the tool mode", () => {
    expect(schemaFamilyFor("OLLAMA", true)).toBe("ollama");
    expect(schemaFamilyFor("CLAUDEAI", true)).toBe("anthropic");
    expect(schemaFamilyFor("GOOGLEAI", true)).toBe("gemini");
    for (const id of ["OPENAI", "COPILOT", "OPENROUTER", "XAI", "MY_LOCAL_VLLM"]) expect(schemaFamilyFor(id, true)).toBe("openai");
    expect(schemaFamilyFor("GOOGLEAI", false)).toBe("text");
  });
});

describe("the published server-everything's schemas", () => {
  test("every tool it lists normalises for every family and passes that wire's rules", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const entry = join(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
    const client = new Client({ name: "schema-test", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry, "stdio"], stderr: "ignore" }));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);
      for (const tool of tools) {
        for (const family of FAMILIES) {
          const r = normalizeToolSchema(tool.inputSchema, family);
          if (!r.ok) throw new Error(`${tool.name} (${family}): ${r.reason}`);
          checkWireRules(r.schema, family);
        }
      }
    } finally {
      await client.close();
    }
  }, 30_000);
});
