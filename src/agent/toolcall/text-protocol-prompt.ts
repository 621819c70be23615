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

export function formatToolCatalogForText(tools: readonly TextToolSpec[]): string {
  const lines: string[] = [
    "# Tools",
    "",
    "You can use tools. To call a tool, write a tool_call tag on its own line:",
    "",
    `<tool_call name="TOOL_NAME" args='{"param": "value"}' />`,
    "",
    "Rules:",
    "- `args` is one JSON object in single quotes, written as plain JSON (no HTML escaping). Inside JSON strings, escape double quotes as \\\" and newlines as \\n.",
    "- You may write several tool_call tags in one message; they run in order.",
    "- After your tool calls, stop and wait. The results come back in the next message inside <tool_output>.",
    "- Never invent tool results. When the task is done, reply with a final answer and no tool_call.",
    "",
    "Available tools:",
  ];
  for (const t of tools) {
    lines.push("", `## ${t.name}`, t.description.trim());
    const params = describeParams(t.parameters);
    if (params.length > 0) lines.push("Parameters:", ...params);
    else lines.push("Parameters: none");
    lines.push(`Example: <tool_call name="${t.name}" args='${exampleArgs(t.parameters)}' />`);
  }
  return lines.join("\n");
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

function describeParams(schema: Record<string, unknown>): string[] {
  const req = required(schema);
  return properties(schema).map(([k, p]) => {
    const bits = [typeName(p), req.has(k) ? "required" : "optional"];
    if (p["default"] !== undefined) bits.push(`default ${JSON.stringify(p["default"])}`);
    const desc = typeof p["description"] === "string" ? `: ${p["description"]}` : "";
    return `- ${k} (${bits.join(", ")})${desc}`;
  });
}

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

/** Required parameters only, with placeholder values; single quotes cannot appear in it. */
function exampleArgs(schema: Record<string, unknown>): string {
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
