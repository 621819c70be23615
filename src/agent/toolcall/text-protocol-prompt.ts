/**
 * The model-facing side of the text protocol: the instructions and tool list for models without native tools,
 * and the user message that carries tool results back. The syntax shown here is exactly what
 * parseToolCalls reads first (`<tool_call name="…" args='{…}' />`).
 */

export interface TextToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object */
  parameters: Record<string, unknown>;
}

export interface TextToolResult {
  name: string;
  content: string;
  isError: boolean;
}

/**
 * Short and example-led (small models follow a shown call better than rules): one real call up front, then per
 * tool its first sentences, its parameters on one line (`name*` = required, type when not a string, the first
 * clause of the description), and a concrete example call.
 */
export function formatToolCatalogForText(tools: readonly TextToolSpec[]): string {
  const first = tools[0];
  const demo = first ? `<tool_call name="${first.name}" args='${exampleArgs(first.name, first.parameters)}' />` : `<tool_call name="NAME" args='{}' />`;
  const lines: string[] = [
    "# Tools",
    "To use a tool, write a tool_call line like this one, then stop and wait; the result comes back in <tool_output>:",
    demo,
    "One line per call; * marks a required arg. args is one JSON object in single quotes (inside strings write \\\" and \\n). Never invent results; when done, answer without a tool_call.",
  ];
  for (const t of tools) {
    lines.push("", `## ${t.name}: ${shortDescription(t.description)}`);
    const params = describeParams(t.parameters);
    if (params) lines.push(`args: ${params}`);
    lines.push(`<tool_call name="${t.name}" args='${exampleArgs(t.name, t.parameters)}' />`);
  }
  return lines.join("\n");
}

/** The first two sentences of a description (the rest is for native-tool models, which read the schema). */
function shortDescription(d: string): string {
  const sentences = d.trim().split(/(?<=\.)\s+/);
  return sentences.slice(0, 2).join(" ");
}

function properties(schema: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  const props = schema["properties"];
  if (typeof props !== "object" || props === null) return [];
  return Object.entries(props as Record<string, unknown>).map(([k, v]) => [
    k,
    typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {},
  ]);
}

function required(schema: Record<string, unknown>): Set<string> {
  const r = schema["required"];
  return new Set(Array.isArray(r) ? r.filter((x): x is string => typeof x === "string") : []);
}

function typeName(p: Record<string, unknown>): string {
  if (Array.isArray(p["enum"])) return `one of ${p["enum"].map((v) => JSON.stringify(v)).join(", ")}`;
  const t = p["type"];
  if (Array.isArray(t)) return t.filter((x) => x !== "null").join(" | ");
  if (t === "array") {
    const items = p["items"];
    const inner = typeof items === "object" && items !== null ? typeName(items as Record<string, unknown>) : "any";
    return `array of ${inner}`;
  }
  if (typeof t === "string") return t;
  for (const k of ["anyOf", "oneOf"]) {
    const alts = p[k];
    if (Array.isArray(alts)) {
      return alts
        .map((a) => (typeof a === "object" && a !== null ? typeName(a as Record<string, unknown>) : "any"))
        .filter((x) => x !== "null")
        .join(" | ");
    }
  }
  return "any";
}

function describeParams(schema: Record<string, unknown>): string {
  const req = required(schema);
  return properties(schema)
    .map(([k, p]) => {
      const type = typeName(p);
      const head = `${k}${req.has(k) ? "*" : ""}${type === "string" ? "" : ` (${type})`}`;
      const desc = typeof p["description"] === "string" ? firstClause(p["description"]) : "";
      return desc ? `${head}: ${desc}` : head;
    })
    .join("; ");
}

/** A parameter description up to its first `;` or sentence end outside parentheses (not at `e.g.`). */
function firstClause(d: string): string {
  let depth = 0;
  for (let i = 0; i < d.length; i++) {
    const c = d[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ";" || c === ".") && (i + 1 >= d.length || d[i + 1] === " ") && !/\be\.g$|\bi\.e$/.test(d.slice(0, i))) {
      return d.slice(0, i).trim();
    }
  }
  return d.trim();
}

/** Example values that read like a real call, for the builtin tools' parameters. */
const EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  read: { path: "src/main.ts" },
  write: { path: "notes.md", content: "# Notes\n" },
  edit: { path: "src/main.ts", old_string: "let x = 1;", new_string: "const x = 1;" },
  exec: { command: "npm test" },
  search: { pattern: "TODO", path: "src" },
  tree: { path: "." },
  glob: { pattern: "**/*.ts" },
};

function exampleValue(k: string, p: Record<string, unknown>): unknown {
  if (Array.isArray(p["enum"]) && p["enum"].length > 0) return p["enum"][0];
  const t = Array.isArray(p["type"]) ? p["type"].find((x) => x !== "null") : p["type"];
  switch (t) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return /path|file|dir/i.test(k) ? "src/main.ts" : `<${k}>`;
  }
}

/** A known tool's example, else its required parameters with placeholder values; single quotes cannot appear in it. */
function exampleArgs(name: string, schema: Record<string, unknown>): string {
  const props = new Set(properties(schema).map(([k]) => k));
  const known = EXAMPLES[name];
  if (known && Object.keys(known).every((k) => props.has(k))) return JSON.stringify(known).replace(/'/g, "\\u0027");
  const req = required(schema);
  const obj: Record<string, unknown> = {};
  for (const [k, p] of properties(schema)) if (req.has(k)) obj[k] = exampleValue(k, p);
  return JSON.stringify(obj).replace(/'/g, "\\u0027");
}

/**
 * One user message with the batch's results (English form of the seed's agent.feedback.tool_output).
 * A literal `</tool_output>` inside a result is defused so it cannot end the block early.
 */
export function formatToolResultsForText(results: readonly TextToolResult[]): string {
  const names = [...new Set(results.map((r) => r.name))];
  const label = names.length === 0 ? "(none)" : names.join(", ");
  const lead =
    names.length > 1
      ? `The tools '${label}' were executed and returned the following:`
      : `The tool '${label}' was executed and returned the following:`;
  const blocks = results.map((r, i) => {
    const body = r.content.replace(/<\/tool_output>/gi, "<\\/tool_output>");
    const header = `--- Result of action ${i + 1} (${r.name})${r.isError ? " — ERROR" : ""} ---`;
    return `${header}\n${r.isError ? `ERROR: ${body}` : body}`;
  });
  return (
    `${lead}\n\n<tool_output>\n${blocks.join("\n\n")}\n</tool_output>\n\n` +
    "(If the task is done, reply only with a final summary. If more actions are needed, send the next tool_call.)"
  );
}
