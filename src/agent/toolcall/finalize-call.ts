/** The last step of the text tool-call protocol (toolcall-parser.ts): a scanned candidate becomes a call or an error. */
import type { Candidate } from "./candidate.ts";
import type { ParsedToolCall } from "../toolcall-parser.ts";
import { isPlainObject } from "./lenient-json.ts";
import { isCoderName, resolveCoderCall } from "./coder-alias.ts";
import { isToolName } from "../native-text-recovery.ts";
import { sanitizeToolArgs } from "../arg-sanitizer.ts";

/** When a call's args are a plain string, the argument it fills (`<tool_call name="read">a.ts</tool_call>`). */
export const PLAIN_STRING_ARG: Readonly<Record<string, string>> = {
  read: "path",
  exec: "command",
  search: "pattern",
  tree: "path",
  glob: "pattern",
};

export type Final = { call: ParsedToolCall } | { error: string };

/** A candidate as a call (name normalized, `@coder` mapped, arguments sanitized), or what to fix, for the model. */
export function finalizeCall(c: Candidate): Final {
  let name = c.name.trim().replace(/^["']|["']$/g, "");
  if (/^functions?\./i.test(name)) name = name.replace(/^functions?\./i, "");
  const coder = isCoderName(name);
  if (!coder && name.startsWith("@")) name = name.slice(1);
  if (!coder && !isToolName(name)) return { error: `Ignored a tool call with an invalid tool name: ${JSON.stringify(c.name.slice(0, 80))}` };
  const hint = `write args as one JSON object, e.g. <tool_call name="${coder ? "read" : name}" args='{"path":"src/main.ts"}' />`;

  let repaired = c.repaired;
  let args: Record<string, unknown> | string;
  const a = c.args;
  if (a.kind === "none") args = {};
  else if (a.kind === "value" && isPlainObject(a.value)) args = a.value;
  else if (a.kind === "value" && typeof a.value !== "string") {
    return { error: `Tool call "${name}": arguments must be a JSON object; ${hint}` };
  } else {
    // argument text; a string value too (OpenAI-style printouts carry arguments as a JSON string)
    const rawText = a.kind === "raw" ? a.text : String(a.value);
    const s = sanitizeToolArgs(rawText, "text");
    const t = rawText.trim();
    const field = PLAIN_STRING_ARG[name];
    if (s.value) {
      args = s.value;
      repaired ||= s.repaired;
    } else if (coder) {
      args = t; // a command line: `read --file main.go`
    } else if (field && t !== "" && !t.startsWith("{") && !t.startsWith("[")) {
      args = { [field]: t.replace(/^["']|["']$/g, "") };
      repaired = true;
    } else {
      return { error: `Tool call "${name}": ${s.error ?? "arguments could not be read"}; ${hint}` };
    }
  }
  if (coder) {
    const r = resolveCoderCall(args);
    if (!r.ok) return { error: r.error };
    return { call: { name: r.name, args: r.args, raw: c.raw, repaired, dialect: "coder-alias" } };
  }
  if (typeof args === "string") return { error: `Tool call "${name}": ${hint}` };
  return { call: { name, args, raw: c.raw, repaired, dialect: c.dialect ?? "json" } };
}
