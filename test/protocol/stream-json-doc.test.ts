// docs/stream-json.md is the public description of the stream-json schema: every event type, every field,
// which fields may be absent, and every enum's values must match src/protocol/events.ts exactly.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { agentEventSchema, EVENT_SCHEMA_VERSION } from "../../src/protocol/events.ts";
import { HEADLESS_RESULT_ALIASES, headlessResultSchema } from "../../src/protocol/headless-result.ts";
import { messageSchema } from "../../src/protocol/message.ts";
import { todoItemSchema } from "../../src/protocol/todo.ts";

const doc = readFileSync(join(import.meta.dir, "../../docs/stream-json.md"), "utf8");

interface DocField {
  name: string;
  optional: boolean;
  /** Values listed as "(one of: `a`, `b`)". */
  oneOf?: string[];
}

/** Rows of every table in a `## ` section whose first cell names an event, object or role. */
function rows(section: string): Array<{ key: string; fields: DocField[] }> {
  const start = doc.indexOf(`\n${section}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const out: Array<{ key: string; fields: DocField[] }> = [];
  const lines = doc.slice(start + 1).split("\n").slice(1);
  for (const line of lines) {
    if (line.startsWith("## ")) break;
    if (!line.startsWith("|")) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const key = cells[0]!.replace(/`/g, "");
    if (!cells[1] || /^-+$/.test(cells[1]) || key === "type" || key === "role" || key === "object") continue;
    out.push({ key, fields: parseFields(cells[1]) });
  }
  return out;
}

/** Top-level backticked names (outside parentheses), `?` marking optional, plus any "(one of: …)" list. */
function parseFields(cell: string): DocField[] {
  const fields: DocField[] = [];
  let i = 0;
  while (i < cell.length) {
    const ch = cell[i]!;
    if (ch === "(") {
      const close = matching(cell, i);
      const inner = cell.slice(i + 1, close);
      const last = fields.at(-1);
      if (last && inner.startsWith("one of:")) last.oneOf = [...inner.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      i = close + 1;
      continue;
    }
    if (ch === "`") {
      const end = cell.indexOf("`", i + 1);
      const raw = cell.slice(i + 1, end);
      fields.push({ name: raw.replace(/\?$/, ""), optional: raw.endsWith("?") });
      i = end + 1;
      continue;
    }
    i++;
  }
  return fields;
}

function matching(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "(") depth++;
    else if (s[i] === ")" && --depth === 0) return i;
  }
  throw new Error(`unbalanced parenthesis in: ${s}`);
}

type Shape = Record<string, z.ZodType>;

function defType(s: z.ZodType): string {
  return (s as unknown as { def: { type: string } }).def.type;
}

function unwrapOptional(s: z.ZodType): z.ZodType {
  return defType(s) === "optional" ? (s as unknown as { unwrap(): z.ZodType }).unwrap() : s;
}

function expectFieldsMatch(where: string, shape: Shape, fields: DocField[], skip: string[] = []): void {
  const schemaFields = Object.keys(shape)
    .filter((k) => !skip.includes(k))
    .map((k) => `${k}${defType(shape[k]!) === "optional" ? "?" : ""}`);
  const docFields = fields.map((f) => `${f.name}${f.optional ? "?" : ""}`);
  expect({ where, fields: docFields }).toEqual({ where, fields: schemaFields });
  for (const f of fields) {
    if (!f.oneOf) continue;
    const inner = unwrapOptional(shape[f.name]!);
    expect(defType(inner)).toBe("enum");
    expect({ where: `${where}.${f.name}`, values: f.oneOf }).toEqual({ where: `${where}.${f.name}`, values: (inner as unknown as { options: string[] }).options });
  }
}

const eventShapes = new Map<string, Shape>(agentEventSchema.options.map((o) => [String((o.shape.type as unknown as { value: string }).value), o.shape as unknown as Shape]));

describe("docs/stream-json.md mirrors the zod schema", () => {
  test("the same event types, in the same order", () => {
    expect(rows("## Events").map((r) => r.key)).toEqual([...eventShapes.keys()]);
  });

  test("each event: the same fields, the same optional ones, the same enum values", () => {
    for (const r of rows("## Events")) expectFieldsMatch(r.key, eventShapes.get(r.key)!, r.fields, ["type"]);
  });

  test("usage and error objects", () => {
    const objects = new Map(rows("## Objects").map((r) => [r.key, r.fields]));
    const turn = eventShapes.get("turn.completed")!;
    expectFieldsMatch("usage", (unwrapOptional(turn.usage!) as unknown as { shape: Shape }).shape, objects.get("usage")!);
    const err = (unwrapOptional(eventShapes.get("error")!.error!) as unknown as { shape: Shape }).shape;
    expectFieldsMatch("error", err, objects.get("error")!);
    const retryErr = (eventShapes.get("retry")!.error as unknown as { shape: Shape }).shape;
    expect(Object.keys(retryErr)).toEqual(Object.keys(err));
    expectFieldsMatch("todo item", todoItemSchema.shape as unknown as Shape, objects.get("todo item")!);
  });

  test("history messages by role", () => {
    const table = rows("## Objects").filter((r) => r.key !== "usage" && r.key !== "error" && r.key !== "todo item");
    const byRole = new Map(messageSchema.options.map((o) => [String((o.shape.role as unknown as { value: string }).value), o.shape as unknown as Shape]));
    expect(table.map((r) => r.key)).toEqual([...byRole.keys()]);
    for (const r of table) expectFieldsMatch(`message(${r.key})`, byRole.get(r.key)!, r.fields);
  });

  test("every stop reason the loop can report is listed", () => {
    const row = doc.split("\n").find((l) => l.startsWith("| `turn.completed`"))!;
    for (const reason of ["stop", "length", "tool_calls", "content_filter", "error", "interrupted", "max_turns", "stagnation"]) expect(row).toContain(`\`${reason}\``);
  });

  test("the schema version in the title, in session.started and in the change list is the code's", () => {
    expect(doc.split("\n")[0]).toBe(`# stream-json output (schema version ${EVENT_SCHEMA_VERSION})`);
    expect(doc).toContain(`\`schemaVersion\` (number, currently ${EVENT_SCHEMA_VERSION})`);
    expect(doc).toContain(`- **Schema version ${EVENT_SCHEMA_VERSION}**:`);
  });

  test("the --output-format json object and its deprecated aliases", () => {
    const [result] = rows("## `--output-format json`");
    expect(result!.key).toBe("result");
    expectFieldsMatch("result", headlessResultSchema.shape as unknown as Shape, result!.fields);
    const section = doc.slice(doc.indexOf("## `--output-format json`"), doc.indexOf("Exit codes:"));
    const listed = [...section.matchAll(/`([a-z_]+)`\s+\(= `([A-Za-z]+)`\)/g)].map((m) => [m[1], m[2]]);
    expect(listed).toEqual(Object.entries(HEADLESS_RESULT_ALIASES));
  });
});
